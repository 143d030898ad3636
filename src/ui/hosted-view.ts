// How the renderer shows hosted tools' events (web search, remote MCP, generated and attached
// images) and the numbered source list under an answer. Pure: events in, lines out.
import type { AgentEvent, Source } from '../engine/events.ts';
import { clipChars } from '../lib/text.ts';
import { hyperlink, plainText } from './hyperlink.ts';
import type { Theme } from './theme.ts';

type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

function quoted(s: string, max = 120): string {
  const clean = plainText(s);
  return `"${clipChars(clean, max)}"`;
}

/** "searched: …", "opened: …" or "searched in page …", for the one progress line of a search. */
export function webSearchLine(ev: Ev<'web_search'>, t: Theme): string {
  if (ev.status === 'searching') return t.dim('🔎 searching the web…');
  const what =
    ev.action === 'open_page'
      ? `opened ${plainText(ev.url ?? 'a page')}`
      : ev.action === 'find_in_page'
        ? `searched in ${plainText(ev.url ?? 'a page')}${ev.query ? ` for ${quoted(ev.query)}` : ''}`
        : `searched${ev.query ? ` ${quoted(ev.query)}` : ' the web'}`;
  return ev.status === 'failed' ? t.yellow(`🔎 web search failed (${what})`) : t.dim(`🔎 ${what}`);
}

/** The numbered list under the answer: `[1] Title — https://…` (the title a hyperlink where supported). */
export function sourceLines(sources: readonly Source[], t: Theme, links: boolean): string[] {
  const lines = [t.bold('Sources:')];
  for (const s of sources) {
    const url = plainText(s.url);
    const title = plainText(s.title).trim() || url;
    lines.push(`  [${s.index}] ${links ? hyperlink(title, s.url) : title} ${t.dim(`— ${url}`)}`);
  }
  return lines;
}

export function remoteMcpToolsLine(ev: Ev<'hosted_mcp_tools'>, t: Theme): string {
  const server = plainText(ev.server);
  if (ev.error) return t.yellow(`⚙ remote MCP ${server}: cannot list its tools (${plainText(ev.error)})`);
  const names = ev.tools.slice(0, 6).map(plainText).join(', ') + (ev.tools.length > 6 ? ', …' : '');
  return t.dim(`⚙ remote MCP ${server}: ${ev.tools.length} tool${ev.tools.length === 1 ? '' : 's'}${names ? ` (${names})` : ''}`);
}

export function remoteMcpCallLine(ev: Ev<'hosted_mcp_call'>, t: Theme): string {
  const title = t.cyan(`⚙ ${plainText(ev.server)}.${plainText(ev.tool)}`);
  return ev.ok ? `${title} ${t.green('✓')}` : `${title} ${t.red(`✗ ${plainText(ev.error ?? 'failed')}`)}`;
}

export function imageGenerationLine(ev: Ev<'image_generation'>, t: Theme): string {
  if (ev.status === 'generating') return t.dim('🎨 generating an image…');
  if (ev.status === 'failed') return t.red(`✗ image not saved: ${plainText(ev.error ?? 'unknown error')}`);
  return t.green(`🖼  image saved: ${plainText(ev.path ?? '')}`);
}

export function imageAttachedLine(ev: Ev<'image_attached'>, t: Theme): string {
  return t.dim(`📎 showing the model ${plainText(ev.path)} (${ev.mime}, ${ev.bytes} bytes)`);
}
