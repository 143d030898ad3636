// Items of hosted tools (web search, remote MCP, image generation) as a response streams: each is
// shown once as it starts and once when it is done, through the tool that offered it (the
// registry routes it). They are never journaled or run here: the server ran them. A server that
// streams no item events still gets every item shown from the completed response.
import type { CompletedResponse } from '../model/types.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { HostedItem, UrlCitation } from '../wire/items.ts';
import type { EmitEvent, Source } from './events.ts';

export class HostedItems {
  private readonly shown = new Set<string>();

  constructor(private readonly deps: { registry: ToolRegistry; emit: EmitEvent; workspaceRoot: string; now(): Date }) {}

  onItem(item: HostedItem, phase: 'added' | 'done'): void {
    const key = `${phase}:${item.id}`;
    if (this.shown.has(key)) return;
    this.shown.add(key);
    // An item first seen done (no `added` event) must not look as if it started later.
    if (phase === 'done') this.shown.add(`added:${item.id}`);
    this.deps.registry.observe(item, phase, { workspaceRoot: this.deps.workspaceRoot, progress: this.deps.emit, now: () => this.deps.now() });
  }

  /** The completed response: items the stream did not show, then the answer's sources. */
  finish(response: CompletedResponse): void {
    for (const item of response.hosted ?? []) this.onItem(item, 'done');
    const sources = numberedSources(response.citations ?? []);
    if (sources.length > 0) this.deps.emit({ type: 'sources', sources });
  }
}

/** Citations as a numbered list: one entry per URL, in order of first mention. */
export function numberedSources(citations: readonly UrlCitation[]): Source[] {
  const byUrl = new Map<string, Source>();
  for (const c of citations) {
    if (!byUrl.has(c.url)) byUrl.set(c.url, { index: byUrl.size + 1, url: c.url, title: c.title });
  }
  return [...byUrl.values()];
}
