import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../engine/events.ts';
import { createMarkdownStream } from './markdown/stream.ts';
import { Renderer, type RenderOptions } from './render.ts';
import { COLOR_THEME, PLAIN_THEME, type Theme } from './theme.ts';

const USAGE = { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 };
const BASE: RenderOptions = {
  quiet: false,
  showUsage: false,
  showTimers: false,
  showReasoning: true,
  showShellCalls: true,
  streamText: true,
  maxCommandLines: 5,
};

/** A terminal (or pipe) that keeps what was written. */
function sink(isTTY: boolean) {
  let text = '';
  return {
    isTTY,
    write: (s: string) => {
      text += s;
    },
    text: () => text,
  };
}

function render(events: AgentEvent[], opts: Partial<RenderOptions> = {}, { tty = true, theme = PLAIN_THEME }: { tty?: boolean; theme?: Theme } = {}) {
  const out = sink(tty);
  const err = sink(true);
  const r = new Renderer(out, err, theme, { ...BASE, ...opts });
  for (const ev of events) r.handle(ev);
  return { out: out.text(), err: err.text() };
}

const text = (...deltas: string[]): AgentEvent[] => deltas.map((delta) => ({ type: 'text_delta', delta }));
const CONTEXT = { usedTokens: 100_000, leftTokens: 172_000, leftFraction: 172_000 / 272_000, windowTokens: 272_000, windowSource: 'table' as const };
const done: AgentEvent = { type: 'turn_done', responseId: 'r', text: '', usage: USAGE, context: CONTEXT, durationMs: 1 };
const command = (cmd: string, ...chunks: string[]): AgentEvent[] => [
  { type: 'command_start', callId: 'c', command: cmd },
  ...chunks.map((chunk): AgentEvent => ({ type: 'command_output', callId: 'c', chunk, stream: 'stdout' })),
  {
    type: 'command_done',
    callId: 'c',
    command: cmd,
    exitCode: 0,
    timedOut: false,
    interrupted: false,
    durationMs: 1,
    truncatedBytes: 0,
    stdout: '',
    stderr: '',
  },
];

describe('Renderer: nothing from the model or a command reaches the terminal raw', () => {
  it('removes escape sequences from the answer, even split across deltas', () => {
    const { out } = render([...text('hi \x1b]0;pwn', 'ed\x07there \x1b[?10', '49h\x1b[2Jok'), done]);
    expect(out).toBe('hi there ok\n');
  });

  it('keeps the answer byte for byte when stdout is a pipe (not streamed)', () => {
    const { out } = render([...text('a\x1b[31mb'), done], { streamText: false }, { tty: false });
    expect(out).toBe('a\x1b[31mb\n');
  });

  it('sanitises reasoning summaries', () => {
    const { err } = render([{ type: 'reasoning_delta', delta: 'think\x1b]2;x\x07ing\x1b' }, { type: 'reasoning_done' }]);
    expect(err).toBe('thinking: thinking\\x1b\n');
  });

  it('shows a command line with its control characters visible', () => {
    const { err } = render(command('echo hi\r\x1b[2Kls # harmless'));
    expect(err).toContain('$ echo hi\\x0d\\x1b[2Kls # harmless');
    expect(err).not.toContain('\x1b');
  });

  it('removes escapes from command output and keeps colours only on a colour terminal', () => {
    const plain = render(command('x', 'a\x1b[31mred\x1b[0m\x1b[?1000h\n'));
    expect(plain.err).toContain('  ared\n');
    const colour = render(command('x', 'a\x1b[31mred\x1b[0m\x1b[?1000h\n'), {}, { theme: COLOR_THEME });
    expect(colour.err).toContain('\x1b[31mred');
    expect(colour.err).not.toContain('?1000h');
  });

  it('folds a long line without newlines into rows and elides the rest', () => {
    const { err } = render(command('yes', ...Array.from({ length: 100 }, () => 'x'.repeat(1000))), { columns: () => 43 });
    const rows = err.split('\n').filter((l) => l.startsWith('  x'));
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.length === 42)).toBe(true);
    expect(err).toMatch(/… \d+ more lines/);
  });

  it('sanitises error messages that carry server text', () => {
    const { err } = render([{ type: 'tool_error', callId: 'c', message: 'bad\x1b[2J\nthing' }]);
    expect(err).toContain('✗ tool call not run: bad thing');
  });
});

/** The screen text: a row erased by CR + erase-line (the live preview) is gone. */
function settled(s: string): string {
  let prev;
  let cur = s;
  do {
    prev = cur;
    cur = cur.replace(/[^\n]*\r\x1b\[K/, '');
  } while (cur !== prev);
  return cur;
}

describe('Renderer with Markdown', () => {
  it('renders the answer as Markdown on a terminal, flushing the tail at the end', () => {
    const { out: live } = render(
      [...text('Some **bold', '** and `code`\n\n```ts\nconst', ' x = 1;\n```\nlast line'), done],
      { markdown: createMarkdownStream },
      { theme: COLOR_THEME },
    );
    const out = settled(live);
    // While a line is unfinished it shows as a dim preview, replaced when the line completes.
    expect(live).toContain('\x1b[2mSome **bold\x1b[22m');
    expect(out).toContain('\x1b[1mbold\x1b[22m');
    expect(out).not.toContain('**');
    expect(out).toContain('\x1b[35mconst\x1b[39m');
    expect(out).not.toContain('```');
    expect(out.endsWith('last line\n')).toBe(true);
  });

  it('flushes the rendered answer before a tool call shows', () => {
    const events: AgentEvent[] = [
      ...text('# Plan\nrunning it'),
      { type: 'tool_call', callId: 'c', kind: 'shell_call', tool: 'shell', title: 'ls', commands: ['ls'] },
      ...command('ls'),
    ];
    const out = sink(true);
    const r = new Renderer(out, out, COLOR_THEME, { ...BASE, markdown: createMarkdownStream });
    for (const ev of events) r.handle(ev);
    expect(out.text().indexOf('running it')).toBeLessThan(out.text().indexOf('$ ls'));
  });

  it('shows what arrived when the turn is interrupted', () => {
    const { out } = render([...text('- one\n- two\n- thr'), { type: 'turn_interrupted' }], { markdown: createMarkdownStream }, { theme: COLOR_THEME });
    expect(settled(out).replace(/\x1b\[[0-9;]*m/g, '')).toBe('• one\n• two\n• thr\n');
  });
});

describe('Renderer: file edits', () => {
  it('shows each changed file with +N -M, its diff folded, and only the summary with --no-shell-calls', () => {
    const diff = Array.from({ length: 50 }, (_, i) => `+line ${i}`).join('\n');
    const ev: AgentEvent = {
      type: 'files_changed',
      callId: 'p',
      tool: 'apply_patch',
      ok: true,
      message: '',
      changes: [{ path: 'a.ts', operation: 'update', added: 50, removed: 0, diff }],
    };
    const full = render([ev]).err;
    expect(full.split('\n')[0]).toBe('M a.ts +50 -0');
    expect(full).toContain('  +line 39\n  … 10 more diff lines\n');
    expect(render([ev], { showShellCalls: false }).err).toBe('M a.ts +50 -0\n');
  });

  it('a diff cannot smuggle escape sequences to the terminal', () => {
    const ev: AgentEvent = {
      type: 'files_changed',
      callId: 'p',
      tool: 'apply_patch',
      ok: true,
      message: '',
      changes: [{ path: 'x\x1b]0;t\x07.ts', operation: 'create', added: 1, removed: 0, diff: '+\x1b[2Jboom' }],
    };
    expect(render([ev]).err).not.toMatch(/\x1b\]|\x1b\[2J/);
  });
});

describe('Renderer: the context window', () => {
  it('the usage line says how much of the window is left, and when the window is assumed', () => {
    expect(render([done], { showUsage: true }).err).toBe('tokens: 1 in · 1 out · ctx 63% left\n');
    const assumed: AgentEvent = { ...done, context: { ...CONTEXT, windowSource: 'default' } };
    expect(render([assumed], { showUsage: true }).err).toBe('tokens: 1 in · 1 out · ctx 63% left (window assumed)\n');
  });

  it('announces compactions and context notices on stderr, between answers', () => {
    const { out, err } = render([
      ...text('before'),
      { type: 'context_notice', message: 'Context 87% full: compacting the conversation…' },
      { type: 'context_compacted', mechanism: 'summary', tokensBefore: 7200, tokensAfter: 900 },
      done,
    ]);
    expect(out).toBe('before\n');
    expect(err).toBe('⟳ Context 87% full: compacting the conversation…\n✓ conversation compacted into a summary by the model: ~7,200 → ~900 tokens\n');
  });
});

describe('Renderer: the plan checklist', () => {
  const plan = (done: number): AgentEvent => ({
    type: 'plan_updated',
    callId: `u${done}`,
    plan: {
      steps: [
        { step: 'read', status: done > 0 ? 'completed' : 'in_progress' },
        { step: 'fix \x1b[2Jit', status: done > 0 ? 'in_progress' : 'pending' },
      ],
    },
  });
  /** A terminal that counts writes, as the REPL's writer does. */
  function counting() {
    let text = '';
    const w = {
      isTTY: true,
      writes: 0,
      write: (s: string) => {
        text += s;
        w.writes++;
      },
      text: () => text,
    };
    return w;
  }
  const run = (events: AgentEvent[]): string => {
    const w = counting();
    const r = new Renderer(w, w, PLAIN_THEME, BASE);
    for (const ev of events) r.handle(ev);
    return w.text();
  };

  it('is redrawn in place when nothing came between two updates, and printed anew otherwise', () => {
    const inPlace = run([
      plan(0),
      { type: 'tool_call', callId: 'u1', kind: 'function_call', tool: 'update_plan', title: 'update_plan', commands: [] },
      plan(1),
    ]);
    expect(inPlace).toContain('\x1b[3A\r\x1b[J');
    expect(inPlace.split('☰ plan')).toHaveLength(3);
    const apart = run([plan(0), ...text('checking'), plan(1)]);
    expect(apart).not.toContain('\x1b[3A');
    // The model's text never carries an escape through.
    expect(apart).not.toContain('\x1b[2J');
  });

  it('is never redrawn where writes are not counted (a one-shot on a pipe or a plain stream)', () => {
    const { err } = render([plan(0), plan(1)]);
    expect(err).not.toContain('\x1b[3A');
    expect(err).toContain('✓ read');
  });
});

describe('Renderer: progress lines', () => {
  const progress = (callId: string, message: string): AgentEvent => ({ type: 'tool_progress', callId, tool: 'kit.index', message });
  function counting() {
    let text = '';
    const w = {
      isTTY: true,
      writes: 0,
      write: (s: string) => {
        text += s;
        w.writes++;
      },
      text: () => text,
    };
    return w;
  }
  const run = (events: AgentEvent[], columns = 80): string => {
    const w = counting();
    const r = new Renderer(w, w, PLAIN_THEME, { ...BASE, columns: () => columns });
    for (const ev of events) r.handle(ev);
    return w.text();
  };

  it("on a terminal a call's new state replaces its previous line when nothing came between", () => {
    const shown = run([progress('c1', '1/10 — a'), progress('c1', '2/10 — b'), progress('c1', '3/10 — c')]);
    expect(shown.match(/\x1b\[1A\r\x1b\[J/g)).toHaveLength(2);
    expect(shown.endsWith('  kit.index: 3/10 — c\n')).toBe(true);
    // A line that wraps (63 characters on 30 columns: 3 rows) is cleared whole.
    expect(run([progress('c1', 'x'.repeat(50)), progress('c1', 'y')], 30)).toContain('\x1b[3A\r\x1b[J');
  });

  it('stays when something else was written in between, or for another call, and where writes are not counted', () => {
    expect(run([progress('c1', '1/10'), ...text('note'), progress('c1', '2/10')])).not.toContain('\x1b[1A');
    expect(run([progress('c1', '1/10'), progress('c2', '1/5')])).not.toContain('\x1b[1A');
    const { err } = render([progress('c1', '1/10'), progress('c1', '2/10 \x1b]0;x\x07')]);
    expect(err).toBe('  kit.index: 1/10\n  kit.index: 2/10 \n');
  });
});
