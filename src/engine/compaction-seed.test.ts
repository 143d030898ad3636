// Compaction checkpoints and seeds: where the next request starts, summaries, tool output caps.
import { describe, expect, it } from 'vitest';
import { emptyState, withCompaction, type CompactionCheckpoint, type SessionState, type TranscriptEntry } from '../store/state.ts';
import { functionOutputText, userMessage, type FunctionCallOutputItem, type InputItem, type ShellCallOutputItem } from '../wire/items.ts';
import { chainStart, inputForNewChain, localSummary, recentUserMessages, seedCarries, seedWithEnvironment, summarySeed } from './compaction-seed.ts';
import { capToolOutputItem, capToolOutputs, trimToolOutputs } from './tool-output-caps.ts';
import type { ContextWindow } from './context.ts';

const state = (over: Partial<SessionState> = {}): SessionState => ({ ...emptyState(), response_id: 'resp_head', ...over });
const checkpoint = (over: Partial<CompactionCheckpoint> = {}): CompactionCheckpoint => ({
  mechanism: 'endpoint',
  from_response_id: 'resp_old',
  seed: [{ type: 'compaction', encrypted_content: 'e' }],
  at: '2026-01-01T00:00:00.000Z',
  tokens_before: 9000,
  tokens_after: 10,
  ...over,
});
const shellOutput: ShellCallOutputItem = {
  type: 'shell_call_output',
  call_id: 'call_1',
  output: [{ stdout: 'out', stderr: 'warn', outcome: { type: 'exit', exit_code: 2 } }],
};
const fnOutput = (output: string): FunctionCallOutputItem => ({ type: 'function_call_output', call_id: 'c', output });
const outputOf = (v: InputItem | undefined): string => (v?.type === 'function_call_output' ? functionOutputText(v.output) : '');
const userMsg = userMessage([], 'next');
const said = (role: TranscriptEntry['role'], text: string): TranscriptEntry => ({ role, text });

describe('where the next request starts', () => {
  it('chainStart: the head when there is one, else the seed then the input', () => {
    expect(chainStart(state(), [userMsg])).toEqual({ previousResponseId: 'resp_head', input: [userMsg] });
    const compacted = withCompaction(state(), checkpoint());
    const start = chainStart(compacted, [shellOutput, userMsg]);
    expect(start).toEqual({ previousResponseId: null, input: [{ type: 'compaction', encrypted_content: 'e' }, shellOutput, userMsg] });
    // On the new chain the tool outputs (whose calls stay on the old chain) are sent as text.
    const sent = inputForNewChain(start.input);
    expect(sent[0]).toEqual({ type: 'compaction', encrypted_content: 'e' });
    expect(JSON.stringify(sent[1])).toContain('Result of shell call call_1');
    expect(JSON.stringify(sent[1])).toContain('[exit 2]');
    expect(JSON.stringify(sent[1])).toContain('[stderr] warn');
    expect(sent[2]).toEqual(userMsg);
    // Once the new chain has a response, the seed is history.
    expect(chainStart({ ...compacted, response_id: 'resp_new' }, [userMsg]).previousResponseId).toBe('resp_new');
  });
});

describe('seeds and summaries', () => {
  it('a summary seed carries the summary and the newest messages verbatim', () => {
    const s = state({ transcript: [said('user', 'a'), said('assistant', 'x'), said('user', 'b\nline2'), said('user', 'c'), said('user', 'd')] });
    expect(recentUserMessages(s)).toEqual(['b\nline2', 'c', 'd']);
    const seed = JSON.stringify(summarySeed('Goal: tests', recentUserMessages(s)));
    expect(seed).toContain('Goal: tests');
    expect(seed).toContain('> b\\n> line2');
  });

  it("a local summary keeps the previous summary and prefers the person's words, within bounds", () => {
    const transcript = Array.from({ length: 50 }, (_, i) => [
      said('user', `message ${i} ${'u'.repeat(100)}`),
      said('assistant', `answer ${i} ${'a'.repeat(300)}`),
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
    const fn = fnOutput(`HEAD${'x'.repeat(100_000)}TAIL`);
    const capped = capToolOutputs([fn, userMsg], w);
    const out = outputOf(capped[0]);
    expect(Buffer.byteLength(out)).toBeLessThan(2_000 * 4 + 100);
    expect(out.startsWith('HEAD')).toBe(true);
    expect(out.endsWith('TAIL')).toBe(true);
    expect(out).toMatch(/bytes omitted: one tool output may take at most a quarter of the context window/);
    expect(capped[1]).toBe(userMsg);
    const shell: ShellCallOutputItem = {
      ...shellOutput,
      output: [{ stdout: 'o'.repeat(30_000), stderr: 'e'.repeat(10_000), outcome: { type: 'exit', exit_code: 0 } }],
    };
    const cappedShell = JSON.stringify(capToolOutputItem(shell, 1000, 'test'));
    expect(cappedShell.length).toBeLessThan(4_400);
    expect(cappedShell).toContain('"outcome":{"type":"exit","exit_code":0}');
  });

  it('small outputs are returned as they are; trimming cuts hard', () => {
    const small = fnOutput('fine');
    expect(capToolOutputItem(small, 10, 'test')).toBe(small);
    const trimmed = outputOf(trimToolOutputs([fnOutput('y'.repeat(20_000))], w)[0]);
    expect(trimmed.length).toBeLessThan(256 * 4 + 150);
    expect(trimmed).toContain('trimmed to fit the context window');
    expect(trimmed.length).toBeGreaterThan(0);
  });
});

describe('seedWithEnvironment', () => {
  const env = '<environment_context>\n  <cwd>/p</cwd>\n</environment_context>';
  const envMessage: InputItem = { type: 'message', role: 'developer', content: [{ type: 'input_text', text: env }] };
  it('puts the environment context in the seed once, dropping the copy the pending message carried', () => {
    const seed = summarySeed('sum', []);
    const out = seedWithEnvironment(seed, [envMessage, userMessage([], 'go')], env);
    expect(out.seed).toEqual([...seed, envMessage]);
    expect(out.input).toEqual([...seed, envMessage, userMessage([], 'go')]);
    expect(seedCarries(out.seed, env)).toBe(true);
    expect(seedCarries(out.seed, env.replace('/p', '/q'))).toBe(false);
  });
  it('without an environment, the seed and the pending input pass unchanged', () => {
    const seed = summarySeed('sum', []);
    expect(seedWithEnvironment(seed, [userMessage([], 'go')], null)).toEqual({ seed, input: [...seed, userMessage([], 'go')] });
  });
});
