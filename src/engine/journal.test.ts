import { describe, expect, it } from 'vitest';
import { emptyState, recordToolCalls, type ToolJournalEntry } from '../store/state.ts';
import type { ToolOutputItem } from '../wire/items.ts';
import { callItemOf, journalEntry, leftoverOutputs, markToolCall, needsPendingDecision, recordApproval, unfinishedCallOutput } from './journal.ts';

describe('journal transitions', () => {
  const shellCall = (id: string): ToolJournalEntry => ({ call_id: id, type: 'shell_call', action: { commands: ['ls'] }, status: 'pending' });
  const usage = { inputTokens: 1, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 };

  it('markToolCall journals started then completed with the exact output', () => {
    const output: ToolOutputItem = {
      type: 'shell_call_output',
      call_id: 'c1',
      output: [{ stdout: 'ok', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    };
    const base = recordToolCalls(emptyState(), { responseId: 'r', calls: [shellCall('c1'), shellCall('c2')], usage, userMessage: 'x' });
    const started = markToolCall(base, 'c1', 'started');
    expect(base.pending_tool_calls[0]?.status).toBe('pending');
    expect(started.pending_tool_calls[0]?.status).toBe('started');
    const done = markToolCall(started, 'c1', 'completed', output);
    expect(done.pending_tool_calls[0]).toMatchObject({ status: 'completed', output });
    expect(done.pending_tool_calls[1]?.status).toBe('pending');
    expect(() => markToolCall(done, 'c1', 'started')).toThrow(/already completed/);
    expect(() => markToolCall(done, 'nope', 'started')).toThrow(RangeError);
    expect(() => markToolCall(done, 'c2', 'completed')).toThrow(/without output/);
  });

  it('recordApproval journals how a call was approved, without touching its status', () => {
    const base = recordToolCalls(emptyState(), { responseId: 'r', calls: [shellCall('c1')], usage, userMessage: 'x' });
    const approved = recordApproval(base, 'c1', { scope: 'sandboxed', by: 'rule' });
    expect(approved.pending_tool_calls[0]).toMatchObject({ status: 'pending', approval: { scope: 'sandboxed', by: 'rule' } });
    expect(base.pending_tool_calls[0]?.approval).toBeUndefined();
    expect(() => recordApproval(base, 'nope', { scope: 'sandboxed', by: 'rule' })).toThrow(RangeError);
  });
});

describe('journal entries', () => {
  it('record the call item without its item id and give it back for a retry', () => {
    const item = { type: 'apply_patch_call' as const, id: 'apc_1', call_id: 'c', operation: { type: 'delete_file' as const, path: 'a.txt' } };
    const entry = journalEntry(item);
    expect(entry).toEqual({ type: 'apply_patch_call', call_id: 'c', operation: { type: 'delete_file', path: 'a.txt' }, status: 'pending' });
    expect(callItemOf({ ...entry, status: 'started' })).toEqual({ type: 'apply_patch_call', call_id: 'c', operation: { type: 'delete_file', path: 'a.txt' } });
  });
});

describe('unfinishedCallOutput', () => {
  it('says a started call may have partly run, and can ask the model to check with the user', () => {
    const started = unfinishedCallOutput({ call_id: 's', type: 'shell_call', action: { commands: ['make'] }, status: 'started' }, true);
    expect(started.type === 'shell_call_output' && started.output[0]?.stderr).toMatch(/may have run partly.*Do not run it again without asking/);
    const pending = unfinishedCallOutput({ call_id: 'p', type: 'function_call', name: 'shell', arguments: '{}', status: 'pending' }, false);
    expect(pending).toEqual({ type: 'function_call_output', call_id: 'p', output: 'error: not run: agentx stopped before this call started.' });
  });
});

describe('leftovers and the pending decision', () => {
  const completed: ToolJournalEntry = {
    call_id: 'a',
    type: 'function_call',
    name: 'shell',
    arguments: '{}',
    status: 'completed',
    output: { type: 'function_call_output', call_id: 'a', output: 'done' },
  };
  const started: ToolJournalEntry = { call_id: 'b', type: 'shell_call', action: { commands: ['rm x'] }, status: 'started' };

  it('resends recorded outputs and answers unfinished calls, asking first for started ones', () => {
    const outputs = leftoverOutputs({ ...emptyState(), pending_tool_calls: [completed, started] });
    expect(outputs[0]).toEqual(completed.output);
    expect(outputs[1]?.type === 'shell_call_output' && outputs[1].output[0]?.stderr).toMatch(/without asking/);
  });

  it('asks at start only when calls are left and the turn was not settled otherwise', () => {
    expect(needsPendingDecision(emptyState())).toBe(false);
    expect(needsPendingDecision({ ...emptyState(), pending_tool_calls: [started] })).toBe(true);
    const interrupted = { ...emptyState(), pending_tool_calls: [completed], interrupted_turn: { user_message: 'x', timestamp: '' } };
    expect(needsPendingDecision(interrupted)).toBe(false);
    expect(needsPendingDecision({ ...interrupted, pending_tool_calls: [started] })).toBe(true);
  });
});
