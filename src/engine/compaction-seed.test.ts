import { describe, expect, it } from 'vitest';
import {
  chainStart, inputForNewChain, localSummary, readCheckpoint, recentUserMessages, summarySeed, withCompaction,
  type ChainState, type CompactionCheckpoint,
} from './compaction-seed.ts';
import { capToolOutputItem, capToolOutputs, trimToolOutputs } from './output-budget.ts';
import type { ContextWindow } from './context.ts';

const state = (over: Partial<ChainState> = {}): ChainState => ({ response_id: 'resp_head', transcript: [], ...over });
const checkpoint = (over: Partial<CompactionCheckpoint> = {}): CompactionCheckpoint => ({
  mechanism: 'endpoint', from_response_id: 'resp_old', seed: [{ type: 'compaction', encrypted_content: 'e' }], at: '2026-01-01T00:00:00.000Z', tokens_before: 9000, ...over,
});
const shellOutput = { type: 'shell_call_output', call_id: 'call_1', output: [{ stdout: 'out', stderr: 'warn', outcome: { type: 'exit', exit_code: 2 } }] };
const outputOf = (v: unknown): string => (typeof v === 'object' && v !== null && 'output' in v && typeof v.output === 'string' ? v.output : '');
const userMsg = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'next' }] };

describe('the checkpoint in the state', () => {
  it('withCompaction moves the head to the seed; server-side keeps the chain', () => {
    const after = withCompaction(state({ other: 1 }), checkpoint());
    expect(after).toMatchObject({ response_id: null, other: 1, compaction: checkpoint() });
    expect(withCompaction(state(), checkpoint({ mechanism: 'server', seed: [] })).response_id).toBe('resp_head');
    expect(readCheckpoint(after)).toEqual(checkpoint());
    expect(readCheckpoint(state({ compaction: { mechanism: 'weird', seed: [], at: 'x' } }))).toBeNull();
  });

  it('chainStart: the head when there is one, else the seed then the input (tool outputs as text)', () => {
    expect(chainStart(state(), [userMsg])).toEqual({ previousResponseId: 'resp_head', input: [userMsg] });
    const compacted = withCompaction(state(), checkpoint());
    const start = chainStart(compacted, [shellOutput, userMsg]);
    expect(start.previousResponseId).toBeNull();
    expect(start.input[0]).toEqual({ type: 'compaction', encrypted_content: 'e' });
    expect(JSON.stringify(start.input[1])).toContain('Result of tool call call_1');
    expect(JSON.stringify(start.input[1])).toContain('[exit 2]');
    expect(JSON.stringify(start.input[1])).toContain('[stderr] warn');
    expect(start.input[2]).toEqual(userMsg);
    // Once the new chain has a response, the seed is history.
    expect(chainStart({ ...compacted, response_id: 'resp_new' }, [userMsg]).previousResponseId).toBe('resp_new');
  });
});

describe('seeds and summaries', () => {
  it('a summary seed carries the summary and the newest messages verbatim', () => {
    const s = state({ transcript: [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'x' }, { role: 'user', text: 'b\nline2' }, { role: 'user', text: 'c' }, { role: 'user', text: 'd' }] });
    expect(recentUserMessages(s)).toEqual(['b\nline2', 'c', 'd']);
    const seed = JSON.stringify(summarySeed('Goal: tests', recentUserMessages(s)));
    expect(seed).toContain('Goal: tests');
    expect(seed).toContain('> b\\n> line2');
  });

  it('a local summary keeps the previous summary and prefers the person\'s words, within bounds', () => {
    const transcript = Array.from({ length: 50 }, (_, i) => [
      { role: 'user', text: `message ${i} ${'u'.repeat(100)}` },
      { role: 'assistant', text: `answer ${i} ${'a'.repeat(300)}` },
    ]).flat();
    const text = localSummary(state({ transcript }), checkpoint({ summary: 'remember K=1' }), 4000);
    expect(text).toContain('remember K=1');
    expect(text).toContain('message 49');
    expect(text.length).toBeLessThan(4300);
    expect(text.split('message ').length).toBeGreaterThan(text.split('answer ').length);
    const long = localSummary(state({ transcript }), checkpoint({ summary: 's'.repeat(10_000) }), 4000);
    expect(long.length).toBeLessThan(4300);
  });

  it('inputForNewChain leaves input without tool outputs alone', () => {
    expect(inputForNewChain([userMsg])).toEqual([userMsg]);
  });
});

describe('tool output caps by tokens', () => {
  const w: ContextWindow = { tokens: 8_000, source: 'setting', note: '' };
  it('caps a function output and shell chunks to a quarter of the window, head and tail kept', () => {
    const fn = { type: 'function_call_output', call_id: 'c', output: `HEAD${'x'.repeat(100_000)}TAIL` };
    const capped = capToolOutputs([fn, userMsg], w);
    const out = outputOf(capped[0]);
    expect(Buffer.byteLength(out)).toBeLessThan(2_000 * 4 + 100);
    expect(out.startsWith('HEAD')).toBe(true);
    expect(out.endsWith('TAIL')).toBe(true);
    expect(out).toMatch(/bytes truncated/);
    expect(capped[1]).toBe(userMsg);
    const shell = { ...shellOutput, output: [{ stdout: 'o'.repeat(30_000), stderr: 'e'.repeat(10_000), outcome: { type: 'exit', exit_code: 0 } }] };
    const cappedShell = JSON.stringify(capToolOutputItem(shell, 1000));
    expect(cappedShell.length).toBeLessThan(4_400);
    expect(cappedShell).toContain('"outcome":{"type":"exit","exit_code":0}');
  });

  it('small outputs are returned as they are; trimming cuts hard', () => {
    const small = { type: 'function_call_output', call_id: 'c', output: 'fine' };
    expect(capToolOutputItem(small, 10)).toBe(small);
    const trimmed = outputOf(trimToolOutputs([{ type: 'function_call_output', call_id: 'c', output: 'y'.repeat(20_000) }], w)[0]);
    expect(trimmed.length).toBeLessThan(256 * 4 + 100);
    expect(trimmed.length).toBeGreaterThan(0);
  });
});
