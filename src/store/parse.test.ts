import { describe, expect, it } from 'vitest';
import { emptyState, parseState, recordTurn, serializeState, withCompaction } from './state.ts';
import type { CompactionCheckpoint, SessionState } from './state.ts';
import { checkpointFromState, parseCheckpoint, serializeCheckpoint, stateFromCheckpoint } from './checkpoint.ts';
import { userMessage } from '../wire/items.ts';

function ok(text: string): { state: SessionState; migrated: boolean; warnings: string[] } {
  const r = parseState(text);
  if (!r.ok) throw new Error(`expected ok, got: ${r.reason}`);
  return r;
}

function reason(text: string): string {
  const r = parseState(text);
  if (r.ok) throw new Error('expected failure');
  return r.reason;
}

/** Shaped like a file written by the public AgentX CLI (eliware/agentx-cli). */
const CLI_FILE = {
  response_id: 'resp_68a1c0ffee',
  usage: { inputTokens: 1200, cachedTokens: 800, outputTokens: 300, turns: 2 },
  last_user_message: 'run the tests',
  last_assistant_message: '',
  pending_cli_transcript: '! git status\nOn branch main\nnothing to commit\n\n! ls\nREADME.md\nsrc',
  pending_tool_calls: [
    { type: 'shell_call', id: 'sh_1', call_id: 'call_a', status: 'completed', action: { commands: ['npm test'], timeout_ms: 60000, max_output_length: 4096 } },
    { type: 'function_call', id: 'fc_1', call_id: 'call_b', name: 'view_image', arguments: '{"path":"x.png"}', status: 'completed' },
    { type: 'web_search_call', id: 'ws_1', status: 'completed' },
  ],
  execution_journal: [{ identity: 'id:call_a', status: 'completed', response_id: 'resp_68a1c0ffee', updated_at: '2025-02-01T10:00:05.000Z' }],
  history: [
    {
      response_id: 'resp_first',
      timestamp: '2025-02-01T09:00:00.000Z',
      user_preview: 'hello there, can you',
      assistant_preview: 'Sure, here is what I',
      usage: { inputTokens: 500, cachedTokens: 100, outputTokens: 100, turns: 1 },
      last_user_message: 'hello there, can you look at this repository for me please',
      last_assistant_message: 'Sure, here is what I found in the repository: three packages.',
    },
  ],
  rollback_backup: [],
  failed_response: true,
  pending_retry_request: {
    model: 'gpt-5',
    instructions: 'You are AgentX...',
    tools: [{ type: 'shell', environment: { type: 'local' } }],
    previous_response_id: 'resp_68a1c0ffee',
    input: [{ type: 'shell_call_output', call_id: 'call_a', output: [{ stdout: 'ok', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] }],
  },
  pending_transaction: { base_response_id: 'resp_68a1c0ffee', calls: [], request: null, attempt_count: 1 },
  goal: { text: 'ship it', status: 'active' },
};

describe('parseState: legacy and foreign formats', () => {
  it('reads a plain-text response id', () => {
    const r = ok('resp_abc123\n');
    expect(r.migrated).toBe(true);
    expect(r.state).toEqual({ ...emptyState(), response_id: 'resp_abc123' });
    expect(ok('"resp_abc123"').state.response_id).toBe('resp_abc123');
  });

  it('migrates an AgentX CLI file', () => {
    const { state, migrated } = ok(JSON.stringify(CLI_FILE, null, 2));
    expect(migrated).toBe(true);
    expect(state.version).toBe(1);
    expect(state.response_id).toBe('resp_68a1c0ffee');
    expect(state.usage).toEqual({ inputTokens: 2000, cachedTokens: 800, outputTokens: 300, reasoningTokens: 0, turns: 2 });
    expect(state.last_assistant_message).toBeNull();
    expect(state.pending_cli_transcript).toEqual([
      { command: 'git status', cwd: '', exit_code: null, output: 'On branch main\nnothing to commit', truncated: false },
      { command: 'ls', cwd: '', exit_code: null, output: 'README.md\nsrc', truncated: false },
    ]);
    // The CLI journal saw call_a run but kept no output: it may be re-run only by an explicit Retry.
    expect(state.pending_tool_calls).toEqual([
      { call_id: 'call_a', type: 'shell_call', status: 'started', action: { commands: ['npm test'], timeout_ms: 60000, max_output_length: 4096 } },
      { call_id: 'call_b', type: 'function_call', status: 'pending', name: 'view_image', arguments: '{"path":"x.png"}' },
    ]);
    expect(state.unmapped_tool_calls).toEqual(CLI_FILE.pending_tool_calls);
    expect(state.execution_journal).toEqual(CLI_FILE.execution_journal);
    expect(state.history[0]).toMatchObject({
      response_id: 'resp_first',
      user_preview: 'hello there, can you look at this repository for me please',
      usage: { inputTokens: 600, cachedTokens: 100, outputTokens: 100, reasoningTokens: 0, turns: 1 },
    });
    expect(state.rollback_backup).toBeNull();
    expect(state.failed_response?.error).toMatch(/failed/);
    expect(state.pending_transaction).toEqual({
      input: CLI_FILE.pending_retry_request.input,
      previous_response_id: 'resp_68a1c0ffee',
      user_message: 'run the tests',
      timestamp: '',
    });
    expect(state.transcript.map((e) => e.role)).toEqual(['user', 'assistant']);
    expect(state.goal).toEqual(CLI_FILE.goal);
    const written = serializeState(state);
    expect(written).not.toContain('You are AgentX');
    expect(written).not.toContain('pending_retry_request');
    expect(ok(written)).toMatchObject({ migrated: false, state });
  });

  it('rebuilds a CLI rollback backup and resumes a failure without a saved request from the last checkpoint', () => {
    const entry = (id: string, turns: number): object => ({
      response_id: id,
      timestamp: '',
      user_preview: '',
      assistant_preview: '',
      usage: { inputTokens: 10 * turns, cachedTokens: 1, outputTokens: 1, turns },
      last_user_message: `u${turns}`,
      last_assistant_message: `a${turns}`,
    });
    const { state } = ok(
      JSON.stringify({
        response_id: 'resp_broken',
        usage: { inputTokens: 10, cachedTokens: 1, outputTokens: 1, turns: 1 },
        pending_tool_calls: [{ type: 'function_call', call_id: 'c9', name: 'shell', arguments: '{}' }],
        history: [entry('resp_1', 1)],
        rollback_backup: [entry('resp_2', 2), entry('resp_3', 3)],
        failed_response: true,
      }),
    );
    expect(state.response_id).toBe('resp_1');
    expect(state.pending_tool_calls).toEqual([]);
    expect(state.rollback_backup).toMatchObject({ response_id: 'resp_3', last_user_message: 'u3', usage: { inputTokens: 31, turns: 3 } });
    expect(state.rollback_backup?.history.map((h) => h.response_id)).toEqual(['resp_1', 'resp_2', 'resp_3']);
  });
});

describe('parseState: version 1', () => {
  it('round-trips unknown fields, in stable order', () => {
    const base = recordTurn(emptyState(), {
      responseId: 'resp_1',
      userMessage: 'hi',
      assistantMessage: 'hello',
      usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      now: new Date(0),
    });
    const text = serializeState({ ...base, zeta: { nested: [1, 2] }, alpha: 'kept' });
    const again = serializeState(ok(text).state);
    expect(again).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text) as object).slice(0, 3)).toEqual(['version', 'response_id', 'usage']);
    expect(Object.keys(JSON.parse(text) as object).slice(-2)).toEqual(['alpha', 'zeta']);
  });

  it('defaults missing fields', () => {
    expect(ok('{"version":1}').state).toEqual(emptyState());
    expect(ok('{"version":1,"response_id":"resp_x"}').state.response_id).toBe('resp_x');
  });

  it('accepts a BOM before valid JSON', () => {
    expect(ok('\ufeff{"version":1,"response_id":"resp_bom"}\n').state.response_id).toBe('resp_bom');
  });

  it('resets a bad optional field and keeps its raw value', () => {
    const r = ok(JSON.stringify({ version: 1, response_id: 'resp_1', history: 'oops', usage: [1], last_user_message: 7, transcript: [{ role: 'x' }] }));
    expect(r.warnings.sort()).toEqual(['history', 'last_user_message', 'transcript', 'usage']);
    expect(r.state.history).toEqual([]);
    expect(r.state.response_id).toBe('resp_1');
    expect(r.state.invalid_fields).toEqual({ history: 'oops', usage: [1], last_user_message: 7, transcript: [{ role: 'x' }] });
  });

  it('keeps out-of-range numbers of kept values as a save writes them (1e400 reads as Infinity, saves as null)', () => {
    const r = ok('{"version":1,"extra":[1e400],"usage":{"turns":-1e400},"pending_transaction":{"input":[[1e400]]}}');
    const again = ok(serializeState(r.state));
    expect(again.state).toEqual(r.state);
    expect(again.warnings).toEqual([]);
    expect(r.state.extra).toEqual([null]);
  });

  it("a failed turn's call lines (pending_transaction.tool_summaries): kept as strings, others dropped; absent stays absent", () => {
    const failed = (extra: object): string =>
      JSON.stringify({ version: 1, pending_transaction: { input: [], previous_response_id: 'resp_1', user_message: 'go', timestamp: 't', ...extra } });
    expect(ok(failed({ tool_summaries: ['$ ls → exit 0', 7, null, 'echo x'] })).state.pending_transaction?.tool_summaries).toEqual(['$ ls → exit 0', 'echo x']);
    expect(ok(failed({ tool_summaries: 'oops' })).state.pending_transaction).not.toHaveProperty('tool_summaries');
    const before = ok(failed({})).state;
    expect(before.pending_transaction).not.toHaveProperty('tool_summaries');
    expect(serializeState(before)).not.toContain('tool_summaries');
  });

  it('treats unknown or output-less completed journal statuses as started', () => {
    const calls = [
      { call_id: 'a', type: 'shell_call', action: { commands: ['x'] }, status: 'weird' },
      { call_id: 'b', type: 'function_call', name: 'shell', arguments: '{}', status: 'completed' },
      {
        call_id: 'c',
        type: 'function_call',
        name: 'shell',
        arguments: '{}',
        status: 'completed',
        output: { type: 'function_call_output', call_id: 'c', output: 'ok' },
      },
    ];
    const { state } = ok(JSON.stringify({ version: 1, pending_tool_calls: calls }));
    expect(state.pending_tool_calls.map((c) => c.status)).toEqual(['started', 'started', 'completed']);
  });
});

describe('parseState: malformed input never throws', () => {
  const cases: [string, string, RegExp][] = [
    ['truncated JSON', '{"version":1,"response_id":"resp_1","usa', /invalid JSON/],
    ['binary garbage', '\u0000\u0001\u0002\ufffd\ufffdPK\u0003\u0004', /binary/],
    ['a JSON array', '[1,2,3]', /array/],
    ['a number', '42', /found a number/],
    ['JSON null', 'null', /null/],
    ['an empty file', '', /empty/],
    ['whitespace only', '  \n\t', /empty/],
    ['a sentence', 'hello world', /not JSON/],
    ['a bad response_id', '{"version":1,"response_id":{"id":1}}', /response_id/],
    ['an id with spaces', '{"version":1,"response_id":"resp 1"}', /response_id/],
    ['a newer version', '{"version":2}', /newer agentx/],
    ['a string version', '{"version":"1"}', /unknown format version/],
    ['a huge file', `{"version":1,"pad":"${'x'.repeat(21 * 1024 * 1024)}"}`, /too large/],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    expect(reason(text)).toMatch(expected);
  });
});

describe('checkpoint', () => {
  it('round-trips and is built from state', () => {
    const s = {
      ...emptyState(),
      response_id: 'resp_9',
      usage: { inputTokens: 5, cachedTokens: 1, outputTokens: 2, reasoningTokens: 0, turns: 1 },
      context_tokens: 7,
    };
    const cp = checkpointFromState(s, 'rollback', new Date(0));
    expect(cp).toEqual({ version: 1, response_id: 'resp_9', timestamp: '1970-01-01T00:00:00.000Z', usage: s.usage, source: 'rollback', context_tokens: 7 });
    if (cp === null) throw new Error('unreachable');
    const parsed = parseCheckpoint(serializeCheckpoint(cp));
    expect(parsed).toEqual({ ok: true, checkpoint: cp });
    expect(checkpointFromState(emptyState(), 'turn', new Date(0))).toBeNull();
  });

  it('reads an AgentX CLI checkpoint and a plain id, rejects garbage', () => {
    const cli = parseCheckpoint(
      JSON.stringify({ response_id: 'resp_c', usage: { inputTokens: 10, cachedTokens: 5, outputTokens: 1, turns: 1 }, history: [{ timestamp: 'T' }] }),
    );
    expect(cli).toMatchObject({ ok: true, checkpoint: { response_id: 'resp_c', timestamp: 'T', source: 'turn', usage: { inputTokens: 15 } } });
    expect(parseCheckpoint('resp_plain\n')).toMatchObject({ ok: true, checkpoint: { response_id: 'resp_plain' } });
    for (const bad of ['', '{"response_id":""}', '{', '[]', '\u0000\u0001', '{"version":3,"response_id":"resp_1"}']) {
      expect(parseCheckpoint(bad).ok).toBe(false);
    }
  });

  it('right after a compaction (no response on the new chain yet) carries the compaction, and a one-shot starts from it', () => {
    const compaction: CompactionCheckpoint = {
      mechanism: 'summary',
      from_response_id: 'resp_old',
      seed: [userMessage(['summary: remember K=1'], '')],
      summary: 'remember K=1',
      at: '2026-01-01T00:00:00.000Z',
      tokens_before: 7000,
      tokens_after: 20,
    };
    const s = withCompaction({ ...emptyState(), response_id: 'resp_old', context_tokens: 7000 }, compaction);
    const cp = checkpointFromState(s, 'compaction', new Date(0));
    expect(cp).toMatchObject({ response_id: null, compaction, context_tokens: 20, source: 'compaction' });
    if (cp === null) throw new Error('unreachable');
    const parsed = parseCheckpoint(serializeCheckpoint(cp));
    expect(parsed).toEqual({ ok: true, checkpoint: cp });
    expect(stateFromCheckpoint(cp, emptyState())).toMatchObject({ response_id: null, compaction, context_tokens: 20 });
    expect(stateFromCheckpoint(null, emptyState())).toEqual(emptyState());
    // Without a response and without a seed there is nothing to branch from.
    expect(parseCheckpoint(JSON.stringify({ version: 1, response_id: null, compaction: { ...compaction, seed: [] } })).ok).toBe(false);
    expect(parseCheckpoint(JSON.stringify({ version: 1, response_id: null })).ok).toBe(false);
  });
});
