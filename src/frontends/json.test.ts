// Pins the --json contract: every engine event type is listed here with its JSON form (or
// null: not part of the contract). A new event type fails this test until it is decided.
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventType } from '../engine/events.ts';
import { errorLine, jsonLine, sessionLine, toJsonLine, type JsonLine } from './json.ts';

const usage = { inputTokens: 10, cachedTokens: 2, outputTokens: 5, reasoningTokens: 1 };
const context = { usedTokens: 15, leftTokens: 7985, leftFraction: 7985 / 8000, windowTokens: 8000, windowSource: 'setting' as const };
const command = { callId: 'c1', command: 'ls', exitCode: 0, timedOut: false, interrupted: false, durationMs: 3, truncatedBytes: 0, stdout: 'a\n', stderr: '' };

const cases: { [T in AgentEventType]: [Extract<AgentEvent, { type: T }>, JsonLine | null] } = {
  request_start: [{ type: 'request_start', previousResponseId: null, attempt: 1 }, null],
  text_delta: [
    { type: 'text_delta', delta: 'hi' },
    { type: 'text_delta', delta: 'hi' },
  ],
  reasoning_delta: [
    { type: 'reasoning_delta', delta: 'hm' },
    { type: 'reasoning_delta', delta: 'hm' },
  ],
  reasoning_done: [{ type: 'reasoning_done' }, null],
  response_cut: [
    { type: 'response_cut', partialText: 'pa', reason: 'cut' },
    { type: 'response_cut', reason: 'cut' },
  ],
  response_incomplete: [
    { type: 'response_incomplete', responseId: 'r' },
    { type: 'response_incomplete', response_id: 'r' },
  ],
  tool_call: [
    { type: 'tool_call', callId: 'c1', kind: 'shell_call', tool: 'shell', title: 'ls', commands: ['ls'] },
    { type: 'tool_call', call_id: 'c1', kind: 'shell_call', tool: 'shell', title: 'ls', commands: ['ls'] },
  ],
  command_start: [{ type: 'command_start', callId: 'c1', command: 'ls' }, null],
  command_output: [{ type: 'command_output', callId: 'c1', chunk: 'a', stream: 'stdout' }, null],
  command_done: [
    { type: 'command_done', ...command },
    {
      type: 'tool_output',
      call_id: 'c1',
      command: 'ls',
      exit_code: 0,
      timed_out: false,
      interrupted: false,
      duration_ms: 3,
      truncated_bytes: 0,
      stdout: 'a\n',
      stderr: '',
    },
  ],
  files_changed: [
    {
      type: 'files_changed',
      callId: 'p1',
      tool: 'apply_patch',
      ok: true,
      message: 'Updated a.ts',
      changes: [{ path: 'a.ts', operation: 'update', added: 2, removed: 1, diff: '@@\n-a\n+b\n+c' }],
    },
    {
      type: 'files_changed',
      call_id: 'p1',
      tool: 'apply_patch',
      ok: true,
      message: 'Updated a.ts',
      files: [{ path: 'a.ts', moved_to: null, operation: 'update', added: 2, removed: 1 }],
    },
  ],
  mcp_call_done: [
    { type: 'mcp_call_done', callId: 'm', server: 'db', tool: 'query', status: 'tool_error', durationMs: 4, outputBytes: 10, truncatedBytes: 0 },
    { type: 'mcp_call', call_id: 'm', server: 'db', tool: 'query', status: 'tool_error', is_error: true, duration_ms: 4, output_bytes: 10, truncated_bytes: 0 },
  ],
  tool_error: [
    { type: 'tool_error', callId: 'c1', message: 'bad' },
    { type: 'tool_error', call_id: 'c1', message: 'bad' },
  ],
  plan_updated: [
    {
      type: 'plan_updated',
      callId: 'u1',
      plan: {
        explanation: 'two steps',
        steps: [
          { step: 'read', status: 'completed' },
          { step: 'fix', status: 'in_progress' },
        ],
      },
    },
    {
      type: 'plan',
      call_id: 'u1',
      explanation: 'two steps',
      plan: [
        { step: 'read', status: 'completed' },
        { step: 'fix', status: 'in_progress' },
      ],
    },
  ],
  web_search: [
    { type: 'web_search', id: 'ws', status: 'done', action: 'search', query: 'node 24' },
    { type: 'web_search', id: 'ws', status: 'done', action: 'search', query: 'node 24', url: null },
  ],
  sources: [
    { type: 'sources', sources: [{ index: 1, url: 'https://nodejs.org/', title: 'Node.js' }] },
    { type: 'sources', sources: [{ index: 1, url: 'https://nodejs.org/', title: 'Node.js' }] },
  ],
  hosted_mcp_tools: [
    { type: 'hosted_mcp_tools', id: 'l', server: 'docs', tools: ['search'] },
    { type: 'remote_mcp_tools', id: 'l', server: 'docs', tools: ['search'], error: null },
  ],
  hosted_mcp_call: [
    { type: 'hosted_mcp_call', id: 'm', server: 'docs', tool: 'search', arguments: '{}', ok: false, error: 'boom', outputBytes: 0 },
    { type: 'remote_mcp_call', id: 'm', server: 'docs', tool: 'search', arguments: '{}', ok: false, error: 'boom', output_bytes: 0 },
  ],
  approval_requested: [
    {
      type: 'approval_requested',
      question: {
        kind: 'command',
        callId: 'c1',
        tool: 'shell',
        title: 'npm install',
        commands: ['npm install'],
        preview: [],
        escalated: true,
        justification: 'Install the dependencies?',
        offerPrefix: { prefix: ['npm', 'install'], savedAs: '{"prefix":["npm","install"],"decision":"allow"}', file: '/h/rules.json' },
        reasons: ['"npm install" matches no rule'],
        choices: ['once', 'once-network', 'prefix', 'no', 'tell'],
      },
    },
    {
      type: 'approval_requested',
      call_id: 'c1',
      kind: 'command',
      tool: 'shell',
      commands: ['npm install'],
      escalated: true,
      justification: 'Install the dependencies?',
      offer_prefix: ['npm', 'install'],
      reasons: ['"npm install" matches no rule'],
      choices: ['once', 'once-network', 'prefix', 'no', 'tell'],
      remote: null,
    },
  ],
  approval_decided: [
    { type: 'approval_decided', callId: 'c1', kind: 'command', decision: 'no', decidedBy: 'policy', reason: 'nobody can answer here' },
    { type: 'approval_decided', call_id: 'c1', kind: 'command', decision: 'no', decided_by: 'policy', text: null, reason: 'nobody can answer here' },
  ],
  permission_applied: [
    { type: 'permission_applied', callId: 'c1', scope: 'sandboxed', why: 'allowed by a rule' },
    { type: 'permission_applied', call_id: 'c1', scope: 'sandboxed', why: 'allowed by a rule' },
  ],
  image_generation: [
    { type: 'image_generation', id: 'ig', status: 'saved', path: '/p/.agentx_images/a.png', bytes: 70 },
    { type: 'image_generation', id: 'ig', status: 'saved', path: '/p/.agentx_images/a.png', bytes: 70, error: null },
  ],
  image_attached: [
    { type: 'image_attached', callId: 'v', path: '/p/a.png', mime: 'image/png', bytes: 70, sha256: 'ab' },
    { type: 'image_attached', call_id: 'v', path: '/p/a.png', mime: 'image/png', bytes: 70, sha256: 'ab' },
  ],
  tool_progress: [
    { type: 'tool_progress', callId: 'w', tool: 'word_count', message: 'counted 2 files' },
    { type: 'tool_progress', call_id: 'w', tool: 'word_count', message: 'counted 2 files' },
  ],
  tool_reused: [
    { type: 'tool_reused', callId: 'c1', title: 'ls', commands: ['ls'] },
    { type: 'tool_reused', call_id: 'c1', title: 'ls' },
  ],
  retry: [
    { type: 'retry', attempt: 1, maxAttempts: 3, delayMs: 500, reason: '503' },
    { type: 'retry', attempt: 1, max_attempts: 3, delay_ms: 500, reason: '503' },
  ],
  chain_restarted: [
    { type: 'chain_restarted', reason: 'gone', exact: true },
    { type: 'chain_restarted', reason: 'gone', exact: true },
  ],
  save_failed: [
    { type: 'save_failed', message: 'ENOSPC', blocking: true },
    { type: 'save_failed', message: 'ENOSPC', blocking: true },
  ],
  context_compacted: [
    { type: 'context_compacted', mechanism: 'endpoint', tokensBefore: 7000, tokensAfter: 900 },
    { type: 'context_compacted', mechanism: 'endpoint', tokens_before: 7000, tokens_after: 900 },
  ],
  context_notice: [
    { type: 'context_notice', message: 'compacting' },
    { type: 'context_notice', message: 'compacting' },
  ],
  usage: [
    { type: 'usage', usage, context },
    {
      type: 'usage',
      input_tokens: 10,
      cached_tokens: 2,
      output_tokens: 5,
      reasoning_tokens: 1,
      context_used_tokens: 15,
      context_window_tokens: 8000,
      context_left: 0.998,
      context_window_source: 'setting',
    },
  ],
  turn_done: [
    { type: 'turn_done', responseId: 'r', text: 'ok', usage, context, durationMs: 9 },
    { type: 'final', response_id: 'r', text: 'ok', duration_ms: 9 },
  ],
  workspace_changed: [
    {
      type: 'workspace_changed',
      changes: [
        { status: 'A', path: 'new.txt' },
        { status: 'D', path: 'old.txt' },
      ],
    },
    {
      type: 'workspace_changed',
      changes: [
        { status: 'A', path: 'new.txt' },
        { status: 'D', path: 'old.txt' },
      ],
    },
  ],
  turn_interrupted: [{ type: 'turn_interrupted' }, null],
  turn_failed: [{ type: 'turn_failed', message: 'x' }, null],
};

describe('--json contract', () => {
  it.each(Object.entries(cases))('%s', (_type, [event, expected]) => {
    expect(toJsonLine(event)).toEqual(expected);
  });

  it('a remote MCP approval request names the server, its tool and the arguments (what the older mcp_approval line carried)', () => {
    const remote = { server: 'docs', tool: 'search', arguments: '{"q":"a"}' };
    const line = toJsonLine({
      type: 'approval_requested',
      question: {
        kind: 'remote_mcp',
        callId: 'mcpr_1',
        tool: 'docs',
        title: 'docs.search',
        commands: [],
        preview: ['{"q":"a"}'],
        escalated: false,
        justification: undefined,
        offerPrefix: undefined,
        reasons: ['remote MCP server docs asks before it runs search'],
        remote,
        choices: ['once', 'no'],
      },
    });
    expect(line).toMatchObject({ type: 'approval_requested', call_id: 'mcpr_1', kind: 'remote_mcp', tool: 'docs', choices: ['once', 'no'], remote });
  });

  it('session and error lines, one object per line', () => {
    const text = jsonLine(sessionLine({ cwd: '/p', model: 'm', previousResponseId: null, stateFile: '/p/s' })) + jsonLine(errorLine('fatal', 'no', 1));
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { type: 'session', mode: 'oneshot', cwd: '/p', model: 'm', previous_response_id: null, state_file: '/p/s' },
      { type: 'error', kind: 'fatal', message: 'no', exit_code: 1 },
    ]);
  });
});
