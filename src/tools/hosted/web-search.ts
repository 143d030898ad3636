// Web search, run by the server ({type: "web_search"}): each search is shown as it starts and
// when it is done (the query is only known then); the answer's citations become the numbered
// source list (engine/hosted.ts).
import type { HostedItem, WebSearchCallItem } from '../../wire/items.ts';
import type { HostedProgress, HostedTool } from '../tool.ts';
import { hostedTool } from './hosted-tool.ts';

export function webSearchProgress(item: WebSearchCallItem, phase: 'added' | 'done'): HostedProgress {
  const action = item.action;
  const query = action?.query ?? (action?.queries && action.queries.length > 0 ? action.queries.join(' | ') : undefined);
  const status = phase === 'added' ? 'searching' : item.status === 'failed' ? 'failed' : 'done';
  const ev: HostedProgress = { type: 'web_search', id: item.id, status, action: action?.type ?? 'search' };
  if (query !== undefined && query !== '') ev.query = query;
  if (typeof action?.url === 'string' && action.url !== '') ev.url = action.url;
  return ev;
}

export function createWebSearchTool(): HostedTool {
  return hostedTool({
    name: 'web_search',
    definitions: () => [{ type: 'web_search' }],
    observes: (item: HostedItem) => item.type === 'web_search_call',
    observe(item, phase, ctx) {
      if (item.type === 'web_search_call') ctx.progress(webSearchProgress(item, phase));
    },
  });
}
