// How hosted tools look in the terminal: the search progress line, the numbered sources (with
// OSC 8 links only where asked for and only for http(s)), remote MCP and image lines.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../engine/events.ts';
import { hyperlink, supportsHyperlinks } from './hyperlink.ts';
import { Renderer, type RenderOptions } from './render.ts';
import { PLAIN_THEME } from './theme.ts';

class Sink {
  text = '';
  constructor(readonly isTTY = false) {}
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

const options: RenderOptions = {
  quiet: false,
  showUsage: false,
  showTimers: false,
  showReasoning: true,
  showShellCalls: true,
  streamText: false,
  maxCommandLines: 2,
};
const usage = { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 };
const context = { usedTokens: 2, leftTokens: 271_998, leftFraction: 271_998 / 272_000, windowTokens: 272_000, windowSource: 'table' as const };
const sources: AgentEvent = {
  type: 'sources',
  sources: [
    { index: 1, url: 'https://a.example/x', title: 'A \x1b]8;;evil\x07page' },
    { index: 2, url: 'javascript:alert(1)', title: 'B' },
  ],
};

function render(events: AgentEvent[], opts: Partial<RenderOptions> = {}, tty = false): { out: string; err: string } {
  const out = new Sink(tty);
  const err = new Sink(tty);
  const r = new Renderer(out, err, PLAIN_THEME, { ...options, ...opts });
  for (const ev of events) r.handle(ev);
  return { out: out.text, err: err.text };
}

describe('hosted tools in the terminal', () => {
  it('off a terminal: one line per finished search, sources under the answer on stdout, plain', () => {
    const { out, err } = render([
      { type: 'web_search', id: 'w', status: 'searching', action: 'search' },
      { type: 'web_search', id: 'w', status: 'done', action: 'search', query: 'node 24' },
      { type: 'text_delta', delta: 'Node 24 is out.' },
      sources,
      { type: 'turn_done', responseId: 'r', text: 'Node 24 is out.', usage, context, durationMs: 1 },
    ]);
    expect(err).toBe('🔎 searched "node 24"\n');
    // Control characters from the server never reach the terminal; a non-http URL is never a link.
    expect(out).toBe('Node 24 is out.\nSources:\n  [1] A  ]8;;evil page — https://a.example/x\n  [2] B — javascript:alert(1)\n');
  });

  it('on a terminal: "searching" is replaced in place by the finished line; links where enabled', () => {
    const { out, err } = render(
      [
        { type: 'web_search', id: 'w', status: 'searching', action: 'search' },
        { type: 'web_search', id: 'w', status: 'done', action: 'open_page', url: 'https://a.example/x' },
        { type: 'text_delta', delta: 'Done.' },
        sources,
      ],
      { streamText: true, hyperlinks: true },
      true,
    );
    expect(err).toBe('🔎 searching the web…\r\x1b[2K🔎 opened https://a.example/x\n');
    expect(out).toContain(`[1] ${hyperlink('A  ]8;;evil page', 'https://a.example/x')} — https://a.example/x`);
    expect(out).toContain('[2] B — javascript:alert(1)');
  });

  it('a search line that other output interrupts is ended first', () => {
    const { err } = render(
      [
        { type: 'web_search', id: 'w', status: 'searching', action: 'search' },
        { type: 'image_generation', id: 'i', status: 'saved', path: '/p/.agentx_images/a.png', bytes: 70 },
      ],
      {},
      true,
    );
    expect(err).toBe('🔎 searching the web…\n🖼  image saved: /p/.agentx_images/a.png\n');
  });

  it('remote MCP lists and calls, attached images', () => {
    const { err } = render([
      { type: 'hosted_mcp_tools', id: 'l', server: 'docs', tools: ['search', 'fetch'] },
      { type: 'hosted_mcp_call', id: 'm', server: 'docs', tool: 'search', arguments: '{}', ok: true, outputBytes: 3 },
      { type: 'hosted_mcp_call', id: 'n', server: 'docs', tool: 'fetch', arguments: '{}', ok: false, error: 'timeout', outputBytes: 0 },
      { type: 'image_attached', callId: 'v', path: '/p/shot.png', mime: 'image/png', bytes: 70, sha256: 'ab' },
    ]);
    expect(err).toBe(
      '⚙ remote MCP docs: 2 tools (search, fetch)\n⚙ docs.search ✓\n⚙ docs.fetch ✗ timeout\n📎 showing the model /p/shot.png (image/png, 70 bytes)\n',
    );
  });

  it("a server's names and errors cannot reorder or hide the line: controls become spaces, bidi and zero-width characters escapes", () => {
    const { err } = render([
      { type: 'hosted_mcp_call', id: 'm', server: 'do\u202ecs', tool: 'se\u200barch', arguments: '{}', ok: false, error: 'bad\x1b[2J', outputBytes: 0 },
    ]);
    expect(err).toBe('⚙ do\\u202ecs.se\\u200barch ✗ bad [2J\n');
  });

  it('hyperlinks: only terminals known to show them, FORCE_HYPERLINK decides first', () => {
    const tty = { isTTY: true };
    expect(supportsHyperlinks(tty, { TERM: 'xterm-256color' })).toBe(false);
    expect(supportsHyperlinks(tty, { TERM_PROGRAM: 'WezTerm' })).toBe(true);
    expect(supportsHyperlinks(tty, { VTE_VERSION: '7600' })).toBe(true);
    expect(supportsHyperlinks(tty, { VTE_VERSION: '7600', TMUX: '/tmp/t' })).toBe(false);
    expect(supportsHyperlinks({ isTTY: false }, { TERM_PROGRAM: 'WezTerm' })).toBe(false);
    expect(supportsHyperlinks({ isTTY: false }, { FORCE_HYPERLINK: '1' })).toBe(true);
    expect(supportsHyperlinks(tty, { TERM_PROGRAM: 'WezTerm', FORCE_HYPERLINK: '0' })).toBe(false);
    expect(hyperlink('t', 'https://x.example/a b')).toBe('t');
  });
});
