// The terminal renderer: what goes to stdout (the answer only) and stderr (everything else).
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../engine/events.ts';
import { Renderer, type RenderOptions } from './render.ts';
import { PLAIN_THEME } from './theme.ts';

class Sink {
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

const usage = { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0 };
const context = { usedTokens: 100_000, leftTokens: 172_000, leftFraction: 172_000 / 272_000, windowTokens: 272_000, windowSource: 'table' as const };
const options: RenderOptions = { quiet: false, showUsage: true, showTimers: false, showReasoning: true, showShellCalls: true, streamText: true, maxCommandLines: 2 };

function render(events: AgentEvent[], opts: Partial<RenderOptions> = {}): { out: string; err: string } {
  const out = new Sink();
  const err = new Sink();
  const r = new Renderer(out, err, PLAIN_THEME, { ...options, ...opts });
  for (const ev of events) r.handle(ev);
  return { out: out.text, err: err.text };
}

describe('Renderer', () => {
  it('keeps stdout for the answer; commands, output and usage go to stderr', () => {
    const { out, err } = render([
      { type: 'text_delta', delta: 'Let me look.' },
      { type: 'tool_call', callId: 'c', kind: 'shell_call', tool: 'shell', title: 'ls', commands: ['ls'] },
      { type: 'command_start', callId: 'c', command: 'ls' },
      { type: 'command_output', callId: 'c', chunk: 'a\nb\nc\nd\n', stream: 'stdout' },
      { type: 'command_done', callId: 'c', command: 'ls', exitCode: 2, timedOut: false, interrupted: false, durationMs: 1, truncatedBytes: 0, stdout: '', stderr: '' },
      { type: 'text_delta', delta: 'Done.' },
      { type: 'turn_done', responseId: 'r', text: 'Done.', usage, context, durationMs: 5 },
    ]);
    expect(out).toBe('Let me look.\nDone.\n');
    expect(err).toBe('$ ls\n  a\n  b\n  … 2 more lines\n  ✗ exit 2\ntokens: 10 in · 5 out · ctx 63% left\n');
  });

  it('shows each changed file with +N -M, its diff folded, and only the summary with --no-shell-calls', () => {
    const diff = Array.from({ length: 50 }, (_, i) => `+line ${i}`).join('\n');
    const ev: AgentEvent = { type: 'files_changed', callId: 'p', tool: 'apply_patch', ok: true, message: '', changes: [{ path: 'a.ts', operation: 'update', added: 50, removed: 0, diff }] };
    const full = render([ev]).err;
    expect(full.split('\n')[0]).toBe('M a.ts +50 -0');
    expect(full).toContain('  +line 39\n  … 10 more diff lines\n');
    expect(render([ev], { showShellCalls: false }).err).toBe('M a.ts +50 -0\n');
  });

  it('writes a buffered answer once when not streaming, and says when a response was cut', () => {
    const { out, err } = render([
      { type: 'text_delta', delta: 'part' },
      { type: 'response_cut', partialText: 'part', reason: 'stream cut' },
      { type: 'text_delta', delta: 'whole answer' },
      { type: 'turn_done', responseId: 'r', text: 'whole answer', usage, context, durationMs: 1 },
    ], { streamText: false, showUsage: false });
    expect(out).toBe('whole answer\n');
    expect(err).toContain('response cut off (stream cut)');
  });

  it('quiet shows nothing but the answer', () => {
    const { out, err } = render([
      { type: 'retry', attempt: 1, maxAttempts: 2, delayMs: 10, reason: '503' },
      { type: 'text_delta', delta: 'ok' },
      { type: 'turn_done', responseId: 'r', text: 'ok', usage, context, durationMs: 1 },
    ], { quiet: true });
    expect({ out, err }).toEqual({ out: 'ok\n', err: '' });
  });

  it('announces compactions and context notices on stderr, between answers', () => {
    const { out, err } = render([
      { type: 'text_delta', delta: 'before' },
      { type: 'context_notice', message: 'Context 87% full: compacting the conversation…' },
      { type: 'context_compacted', mechanism: 'summary', tokensBefore: 7200, tokensAfter: 900 },
      { type: 'turn_done', responseId: 'r', text: 'before', usage, context: { ...context, windowSource: 'default' }, durationMs: 1 },
    ]);
    expect(out).toBe('before\n');
    expect(err).toBe([
      '⟳ Context 87% full: compacting the conversation…',
      '✓ conversation compacted into a summary by the model: ~7,200 → ~900 tokens',
      'tokens: 10 in · 5 out · ctx 63% left (window assumed)',
      '',
    ].join('\n'));
  });
});
