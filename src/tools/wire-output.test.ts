import { describe, expect, it } from 'vitest';
import { notRunOutput, notRunReply, outputForCall, toolOutputItem } from './wire-output.ts';

describe('toolOutputItem: one reply, the output form of each call type', () => {
  it('answers each form with its own output type', () => {
    const reply = { ok: false, text: 'no' };
    expect(toolOutputItem({ type: 'function_call', call_id: 'c' }, reply)).toEqual({ type: 'function_call_output', call_id: 'c', output: 'no' });
    expect(toolOutputItem({ type: 'custom_tool_call', call_id: 'c' }, reply)).toEqual({ type: 'custom_tool_call_output', call_id: 'c', output: 'no' });
    expect(toolOutputItem({ type: 'apply_patch_call', call_id: 'c' }, reply)).toEqual({
      type: 'apply_patch_call_output',
      call_id: 'c',
      status: 'failed',
      output: 'no',
    });
    expect(toolOutputItem({ type: 'apply_patch_call', call_id: 'c' }, { ok: true, text: 'done' })).toMatchObject({ status: 'completed' });
    expect(toolOutputItem({ type: 'mcp_approval_request', call_id: 'r' }, reply)).toEqual({
      type: 'mcp_approval_response',
      approval_request_id: 'r',
      approve: false,
      reason: 'no',
    });
  });

  it('gives every command of a shell call an answer when the call did not run', () => {
    const call = { type: 'shell_call', call_id: 's', commandCount: 2 } as const;
    expect(toolOutputItem(call, notRunReply(call, 'declined'))).toEqual({
      type: 'shell_call_output',
      call_id: 's',
      output: [1, 2].map(() => ({ stdout: '', stderr: 'declined', outcome: { type: 'exit', exit_code: 1 } })),
    });
  });

  it('marks a not-run answer with "error: " only where the form has no status', () => {
    expect(notRunReply({ type: 'function_call', call_id: 'c' }, 'x').text).toBe('error: x');
    expect(notRunReply({ type: 'custom_tool_call', call_id: 'c' }, 'x').text).toBe('error: x');
    expect(notRunReply({ type: 'apply_patch_call', call_id: 'c' }, 'x').text).toBe('x');
  });
});

describe('notRunOutput and outputForCall: the form read off the call item', () => {
  it('answers each call type with its own output item', () => {
    expect(notRunOutput({ type: 'function_call', call_id: 'x', name: 'f', arguments: '{}' }, 'declined')).toEqual({
      type: 'function_call_output',
      call_id: 'x',
      output: 'error: declined',
    });
    expect(notRunOutput({ type: 'custom_tool_call', call_id: 'y', name: 'apply_patch', input: '' }, 'no')).toEqual({
      type: 'custom_tool_call_output',
      call_id: 'y',
      output: 'error: no',
    });
    expect(notRunOutput({ type: 'apply_patch_call', call_id: 'z', operation: { type: 'delete_file', path: 'a' } }, 'no')).toEqual({
      type: 'apply_patch_call_output',
      call_id: 'z',
      status: 'failed',
      output: 'no',
    });
    const shellOut = notRunOutput({ type: 'shell_call', call_id: 's', action: { commands: ['a', 'b'] } }, 'not run');
    expect(shellOut.type === 'shell_call_output' && shellOut.output).toHaveLength(2);
  });

  it('a remote MCP approval refused without a reason carries none', () => {
    const request = { type: 'mcp_approval_request', call_id: 'r', id: 'r', server_label: 's', name: 't', arguments: '{}' } as const;
    expect(outputForCall(request, { ok: false, text: '' })).toEqual({ type: 'mcp_approval_response', approval_request_id: 'r', approve: false });
    expect(outputForCall(request, { ok: true, text: '' })).toEqual({ type: 'mcp_approval_response', approval_request_id: 'r', approve: true });
  });
});
