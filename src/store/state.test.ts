import { describe, expect, it } from 'vitest';
import type { InputItem } from '../wire/items.ts';
import {
  TRANSCRIPT_ENTRY_MAX_BYTES,
  TRANSCRIPT_MAX_BYTES,
  addCliTranscript,
  clearConversation,
  emptyState,
  parseState,
  preview,
  recordFailure,
  recordInterruption,
  recordToolCalls,
  recordTurn,
  rollbackTo,
  serializeState,
  undoRollback,
  withCompaction,
} from './state.ts';
import { markToolCall } from '../engine/journal.ts';
import type { CompactionCheckpoint, SessionState, ToolJournalEntry, TurnUsage } from './state.ts';
import { utf8Length } from '../lib/text.ts';

const T0 = new Date('2025-03-01T10:00:00.000Z');
const usage = (input: number, cached = 0, output = 0, reasoning = 0): TurnUsage => ({
  inputTokens: input,
  cachedTokens: cached,
  outputTokens: output,
  reasoningTokens: reasoning,
});

function turn(s: SessionState, n: number, extra: Partial<Parameters<typeof recordTurn>[1]> = {}): SessionState {
  return recordTurn(s, {
    responseId: `resp_${n}`,
    userMessage: `question ${n}`,
    assistantMessage: `answer ${n}`,
    usage: usage(100, 10, 20, 5),
    now: new Date(T0.getTime() + n * 1000),
    ...extra,
  });
}

function turns(count: number): SessionState {
  let s = emptyState();
  for (let n = 1; n <= count; n++) s = turn(s, n);
  return s;
}

const shellCall = (id: string): ToolJournalEntry => ({
  call_id: id,
  type: 'shell_call',
  action: { commands: ['ls -la'], timeout_ms: 1000 },
  status: 'pending',
});

describe('preview', () => {
  it('collapses whitespace and keeps 60 characters', () => {
    expect(preview('  hello \n\n\t world  ')).toBe('hello world');
    expect(preview('x'.repeat(100))).toHaveLength(60);
    expect(preview('😀'.repeat(70))).toBe('😀'.repeat(60));
  });
});

describe('recordTurn', () => {
  it('adds usage, counts the turn and writes a history entry with session totals', () => {
    const s = turns(2);
    expect(s.usage).toEqual({ inputTokens: 200, cachedTokens: 20, outputTokens: 40, reasoningTokens: 10, turns: 2 });
    expect(s.response_id).toBe('resp_2');
    expect(s.history).toHaveLength(2);
    expect(s.history[0]?.usage.turns).toBe(1);
    expect(s.history[1]).toMatchObject({
      response_id: 'resp_2',
      timestamp: '2025-03-01T10:00:02.000Z',
      user_preview: 'question 2',
      assistant_preview: 'answer 2',
      usage: s.usage,
    });
    expect(s.last_user_message).toBe('question 2');
    expect(s.last_assistant_message).toBe('answer 2');
  });

  it('caps history at 20, dropping the oldest', () => {
    const s = turns(25);
    expect(s.history).toHaveLength(20);
    expect(s.history[0]?.response_id).toBe('resp_6');
    expect(s.history.at(-1)?.response_id).toBe('resp_25');
  });

  it('never keeps two entries for the same response', () => {
    let s = turns(3);
    s = turn(s, 2);
    expect(s.history.map((h) => h.response_id)).toEqual(['resp_1', 'resp_3', 'resp_2']);
  });

  it('settles everything pending and does not mutate its input', () => {
    let s = recordToolCalls(turns(1), { responseId: 'resp_t', calls: [shellCall('c1')], usage: usage(1), userMessage: 'q' });
    s = addCliTranscript(s, { command: 'pwd', cwd: '/x', exit_code: 0, output: '/x\n', truncated: false });
    s = recordFailure(s, { error: 'boom', input: [], previousResponseId: 'resp_t', userMessage: 'q', now: T0 });
    s = recordInterruption(s, { userMessage: 'q', now: T0 });
    const frozen = JSON.stringify(s);
    const next = turn(s, 9, { userMessage: 'q', toolSummaries: ['$ ls -la (exit 0)'] });
    expect(JSON.stringify(s)).toBe(frozen);
    expect(next.pending_tool_calls).toEqual([]);
    expect(next.pending_cli_transcript).toEqual([]);
    expect(next.failed_response).toBeNull();
    expect(next.pending_transaction).toBeNull();
    expect(next.interrupted_turn).toBeNull();
    const texts = next.transcript.filter((e) => e.response_id === 'resp_9').map((e) => e.text);
    expect(texts).toEqual(['! pwd (exit 0)\n/x\n', 'q', '$ ls -la (exit 0)', 'answer 9']);
  });
});

describe('tool calls', () => {
  it('recordToolCalls moves the chain head without counting a turn', () => {
    const s = recordToolCalls(recordInterruption(turns(1), { userMessage: 'old', now: T0 }), {
      responseId: 'resp_tools',
      calls: [shellCall('c1'), { call_id: 'c2', type: 'function_call', name: 'shell', arguments: '{}', status: 'pending' }],
      usage: usage(50, 5, 7, 1),
      userMessage: 'do it',
      assistantText: 'Let me look.',
    });
    expect(s.response_id).toBe('resp_tools');
    expect(s.usage).toEqual({ inputTokens: 150, cachedTokens: 15, outputTokens: 27, reasoningTokens: 6, turns: 1 });
    expect(s.pending_tool_calls.map((c) => c.call_id)).toEqual(['c1', 'c2']);
    expect(s.last_user_message).toBe('do it');
    expect(s.interrupted_turn).toBeNull();
    expect(s.history).toHaveLength(1);
    expect(s.transcript.slice(-2).map((e) => e.text)).toEqual(['do it', 'Let me look.']);
  });

  it('a completed turn adopts the in-progress transcript once', () => {
    let s = recordToolCalls(emptyState(), { responseId: 'r_a', calls: [shellCall('c1')], usage: usage(1), userMessage: 'fix' });
    s = recordToolCalls(s, { responseId: 'r_b', calls: [shellCall('c2')], usage: usage(1), userMessage: null, assistantText: 'more' });
    s = recordTurn(s, { responseId: 'r_done', userMessage: 'fix', assistantMessage: 'fixed', usage: usage(1), now: T0 });
    expect(s.transcript).toEqual([
      { role: 'user', text: 'fix', response_id: 'r_done' },
      { role: 'assistant', text: 'more', response_id: 'r_done' },
      { role: 'assistant', text: 'fixed', response_id: 'r_done' },
    ]);
    expect(s.usage.turns).toBe(1);
  });
});

describe('failures and interruptions', () => {
  it('recordFailure keeps the exact input and never touches history or the chain head', () => {
    const s = turns(2);
    const input: InputItem[] = [{ type: 'function_call_output', call_id: 'c1', output: 'x' }];
    const f = recordFailure(s, { error: 'HTTP 500', status: 500, input, previousResponseId: 'resp_2', userMessage: 'hi', now: T0 });
    input.push({ type: 'function_call_output', call_id: 'mutated', output: '' });
    expect(f.response_id).toBe('resp_2');
    expect(f.history).toBe(s.history);
    expect(f.usage).toBe(s.usage);
    expect(f.failed_response).toEqual({ timestamp: T0.toISOString(), error: 'HTTP 500', status: 500 });
    expect(f.pending_transaction).toEqual({
      input: [{ type: 'function_call_output', call_id: 'c1', output: 'x' }],
      previous_response_id: 'resp_2',
      user_message: 'hi',
      timestamp: T0.toISOString(),
    });
  });

  it('recordInterruption remembers the interrupted message', () => {
    const s = recordInterruption(turns(1), { userMessage: 'long task', now: T0 });
    expect(s.interrupted_turn).toEqual({ user_message: 'long task', timestamp: T0.toISOString() });
    expect(s.history).toHaveLength(1);
  });
});

describe('bounded buffers', () => {
  it('caps the transcript in bytes, oldest first, truncating a single huge entry', () => {
    let s = emptyState();
    for (let n = 0; n < 40; n++) s = turn(s, n, { assistantMessage: `${n}:${'é'.repeat(2000)}` });
    const bytes = s.transcript.reduce((a, e) => a + utf8Length(e.text), 0);
    expect(bytes).toBeLessThanOrEqual(TRANSCRIPT_MAX_BYTES);
    expect(s.transcript.at(-1)?.text.startsWith('39:')).toBe(true);
    expect(s.transcript.some((e) => e.text.startsWith('0:'))).toBe(false);
    const huge = turn(emptyState(), 1, { userMessage: `start ${'x'.repeat(200_000)} end` });
    const user = huge.transcript.find((e) => e.role === 'user');
    expect(utf8Length(user?.text ?? '')).toBeLessThanOrEqual(TRANSCRIPT_ENTRY_MAX_BYTES);
    expect(user?.text).toMatch(/^start x+\n\[\.\.\. \d+ bytes omitted \.\.\.\]\nx+ end$/);
  });

  it('caps CLI output and marks it truncated', () => {
    const s = addCliTranscript(emptyState(), { command: 'cat big', cwd: '/', exit_code: 0, output: 'y'.repeat(100_000), truncated: false });
    expect(s.pending_cli_transcript[0]?.truncated).toBe(true);
    expect(utf8Length(s.pending_cli_transcript[0]?.output ?? '')).toBeLessThanOrEqual(16 * 1024);
    let many = emptyState();
    for (let n = 0; n < 10; n++) many = addCliTranscript(many, { command: `c${n}`, cwd: '/', exit_code: 0, output: 'z'.repeat(15_000), truncated: false });
    expect(many.pending_cli_transcript.length).toBeLessThan(10);
    expect(many.pending_cli_transcript.at(-1)?.command).toBe('c9');
  });
});

describe('rollback', () => {
  it('checkpoints keep previews, not copies of whole messages (the log has them); older checkpoints with copies still restore them', () => {
    const long = `${'why does the build fail on CI but not locally? '.repeat(40)}end`;
    let s = turn(emptyState(), 1, { userMessage: long, assistantMessage: `${long} answered` });
    s = turn(s, 2);
    expect(s.history[0]).not.toHaveProperty('last_user_message');
    expect(s.history[0]).not.toHaveProperty('last_assistant_message');
    const rolled = rollbackTo(s, 2, T0);
    expect(rolled.last_user_message).toBe(preview(long));
    expect(rolled.last_assistant_message).toBe(s.history[0]?.assistant_preview);
    // A checkpoint an earlier agentx wrote, with the whole messages: they come back.
    const older = { ...s, history: [{ ...s.history[0]!, last_user_message: long, last_assistant_message: 'the whole answer' }, s.history[1]!] };
    expect(rollbackTo(older, 2, T0)).toMatchObject({ last_user_message: long, last_assistant_message: 'the whole answer' });
  });

  it('restores a checkpoint, keeps history, and undo round-trips', () => {
    let s = recordToolCalls(turns(5), { responseId: 'resp_t', calls: [shellCall('c1')], usage: usage(1), userMessage: 'x' });
    s = addCliTranscript(s, { command: 'ls', cwd: '/', exit_code: 0, output: '', truncated: false });
    const rolled = rollbackTo(s, 3, T0);
    expect(rolled.response_id).toBe('resp_3');
    expect(rolled.usage).toEqual(s.history[2]?.usage);
    expect(rolled.usage.turns).toBe(3);
    expect(rolled.last_user_message).toBe('question 3');
    expect(rolled.last_assistant_message).toBe('answer 3');
    expect(rolled.history).toEqual(s.history);
    expect(rolled.pending_tool_calls).toEqual([]);
    expect(rolled.pending_cli_transcript).toEqual([]);
    expect(rolled.transcript.map((e) => e.response_id)).toEqual(['resp_1', 'resp_1', 'resp_2', 'resp_2', 'resp_3', 'resp_3']);
    expect(rolled.rollback_backup?.response_id).toBe('resp_t');
    expect(rolled.rollback_backup).not.toHaveProperty('rollback_backup');

    const undone = undoRollback(rolled);
    const { rollback_backup: _a, ...undoneRest } = undone;
    const { rollback_backup: _b, ...originalRest } = s;
    expect(undoneRest).toEqual(originalRest);
    expect(undone.rollback_backup?.response_id).toBe('resp_3');
    expect(undoRollback(undone).response_id).toBe('resp_3');
  });

  it('index 1 is the newest; bad indexes throw RangeError', () => {
    const s = turns(3);
    expect(rollbackTo(s, 1).response_id).toBe('resp_3');
    for (const bad of [0, 4, -1, 1.5, Number.NaN]) expect(() => rollbackTo(s, bad)).toThrow(RangeError);
    expect(() => rollbackTo(emptyState(), 1)).toThrow(RangeError);
    expect(() => undoRollback(s)).toThrow(/Nothing to undo/);
  });

  it('survives a serialize/parse round trip with its backup', () => {
    const rolled = rollbackTo(turns(4), 2);
    const parsed = parseState(serializeState(rolled));
    expect(parsed.ok && parsed.state).toEqual(rolled);
  });
});

describe('clear', () => {
  it('clearConversation starts fresh and keeps the old conversation as the rollback backup', () => {
    const s = turns(2);
    const cleared = clearConversation(s);
    expect({ ...cleared, rollback_backup: null }).toEqual(emptyState());
    expect(undoRollback(cleared).history).toEqual(s.history);
    expect(undoRollback(cleared).response_id).toBe(s.response_id);
  });
});

describe('pending !command transcript', () => {
  it('is delivered with the first request of a turn, even when that response asks for tools', () => {
    const withCli = addCliTranscript(emptyState(), { command: 'make test', cwd: '/p', exit_code: 2, output: 'FAIL x', truncated: false });
    const s = recordToolCalls(withCli, { responseId: 'r_1', calls: [shellCall('c1')], usage: usage(1), userMessage: 'why does it fail?' });
    expect(s.pending_cli_transcript).toEqual([]);
    expect(s.transcript.map((e) => e.text)).toEqual(['! make test (exit 2)\nFAIL x', 'why does it fail?']);
    const done = recordTurn(markToolCall(s, 'c1', 'completed', { type: 'shell_call_output', call_id: 'c1', output: [] }), {
      responseId: 'r_2',
      userMessage: 'why does it fail?',
      assistantMessage: 'x is broken',
      usage: usage(1),
      now: T0,
    });
    expect(done.transcript.filter((e) => e.text.startsWith('! make test'))).toHaveLength(1);
  });
});

describe('context size and compaction', () => {
  const compaction = (over: Partial<CompactionCheckpoint> = {}): CompactionCheckpoint => ({
    mechanism: 'endpoint',
    from_response_id: 'resp_2',
    seed: [{ type: 'compaction', encrypted_content: 'opaque' }],
    at: T0.toISOString(),
    tokens_before: 5000,
    tokens_after: 40,
    ...over,
  });

  it('each response records how full the context is, and each checkpoint remembers it', () => {
    const s = turn(turn(emptyState(), 1, { contextTokens: 1200 }), 2, { contextTokens: 2400 });
    expect(s.context_tokens).toBe(2400);
    expect(s.history.map((h) => h.context_tokens)).toEqual([1200, 2400]);
    const calls = recordToolCalls(s, { responseId: 'resp_3', calls: [], usage: usage(1), userMessage: 'q', contextTokens: 3000 });
    expect(calls.context_tokens).toBe(3000);
  });

  it('withCompaction moves the chain head to the seed; server-side compaction keeps the chain', () => {
    const s = turn(emptyState(), 2, { contextTokens: 5000 });
    const moved = withCompaction(s, compaction());
    expect(moved).toMatchObject({ response_id: null, compaction: compaction(), context_tokens: 40 });
    const kept = withCompaction(s, compaction({ mechanism: 'server', seed: [], tokens_after: 900 }));
    expect(kept).toMatchObject({ response_id: 'resp_2', context_tokens: 5000 });
  });

  it("rollback drops the compaction and restores the checkpoint's context; undo and /clear undo bring it back", () => {
    const s = withCompaction(turn(turn(emptyState(), 1, { contextTokens: 1200 }), 2, { contextTokens: 5000 }), compaction());
    const back = rollbackTo(s, 2);
    expect(back).toMatchObject({ response_id: 'resp_1', compaction: null, context_tokens: 1200 });
    expect(undoRollback(back)).toMatchObject({ response_id: null, compaction: compaction(), context_tokens: 40 });
    const cleared = clearConversation(s);
    expect(cleared).toMatchObject({ response_id: null, compaction: null, context_tokens: 0 });
    expect(undoRollback(cleared).compaction).toEqual(compaction());
  });

  it('survives a round trip; a malformed record is reset and parked', () => {
    const s = withCompaction(turn(emptyState(), 2, { contextTokens: 5000 }), compaction({ summary: 'remember K=1' }));
    const parsed = parseState(serializeState(s));
    expect(parsed).toMatchObject({ ok: true, state: { compaction: s.compaction, context_tokens: 40 } });
    const bad = parseState(JSON.stringify({ version: 1, response_id: 'resp_1', compaction: { mechanism: 'magic', seed: [], at: 'x' } }));
    expect(bad).toMatchObject({ ok: true, warnings: ['compaction'], state: { compaction: null, invalid_fields: { compaction: { mechanism: 'magic' } } } });
  });
});

describe('the plan at each checkpoint', () => {
  it('is kept with the checkpoint, restored by a rollback, survives a save and a load, and /clear drops it', () => {
    const planA = { plan: [{ step: 'read', status: 'in_progress' }] };
    const planB = {
      plan: [
        { step: 'read', status: 'completed' },
        { step: 'fix', status: 'in_progress' },
      ],
    };
    let s: SessionState = { ...emptyState(), plan: planA };
    s = recordTurn(s, { responseId: 'r1', userMessage: 'one', assistantMessage: 'a', usage: usage(1), now: T0 });
    s = recordTurn({ ...s, plan: planB }, { responseId: 'r2', userMessage: 'two', assistantMessage: 'b', usage: usage(1), now: T0 });
    const parsed = parseState(serializeState(s));
    if (!parsed.ok) throw new Error('the state did not parse');
    const loaded = parsed.state;
    expect(loaded.history.map((h) => h.plan)).toEqual([planA, planB]);
    expect(loaded.plan).toEqual(planB);
    expect(rollbackTo(loaded, 2).plan).toEqual(planA);
    expect(undoRollback(rollbackTo(loaded, 2)).plan).toEqual(planB);
    expect(clearConversation(loaded).plan).toBeUndefined();
  });
});
