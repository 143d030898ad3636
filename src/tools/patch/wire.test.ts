import { describe, expect, it } from 'vitest';
import { FUNCTION_PARAMETERS, LARK_GRAMMAR, parsePatchCall, patchCallForm, patchToolDefinition } from './index.ts';

const ENVELOPE = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';

describe('patchCallForm / parsePatchCall', () => {
  it('recognises the three forms and nothing else', () => {
    expect(patchCallForm({ type: 'apply_patch_call', call_id: 'c', operation: {} })).toBe('builtin');
    expect(patchCallForm({ type: 'function_call', name: 'apply_patch', call_id: 'c', arguments: '{}' })).toBe('function');
    expect(patchCallForm({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'c', input: '' })).toBe('custom');
    expect(patchCallForm({ type: 'function_call', name: 'shell', call_id: 'c', arguments: '{}' })).toBeNull();
    expect(patchCallForm({ type: 'apply_patch_call' })).toBeNull();
    expect(patchCallForm('apply_patch')).toBeNull();
  });

  it('parses a built-in call into its one operation', () => {
    const parsed = parsePatchCall({
      type: 'apply_patch_call',
      id: 'apc_1',
      call_id: 'call_1',
      status: 'completed',
      operation: { type: 'create_file', path: 'a.txt', diff: '+hi\n' },
    });
    expect(parsed).toEqual({ ok: true, call: { form: 'builtin', callId: 'call_1', operations: [{ type: 'add', path: 'a.txt', lines: ['hi'] }] } });
  });

  it('parses the function and custom forms from the envelope', () => {
    const fn = parsePatchCall({ type: 'function_call', name: 'apply_patch', call_id: 'f1', arguments: JSON.stringify({ input: ENVELOPE }) });
    const custom = parsePatchCall({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'c1', input: ENVELOPE });
    expect(fn.ok && fn.call.operations).toEqual([{ type: 'add', path: 'a.txt', lines: ['hi'] }]);
    expect(custom.ok && custom.call).toMatchObject({ form: 'custom', callId: 'c1' });
  });

  it.each([
    [{ type: 'function_call', name: 'apply_patch', call_id: 'f', arguments: '{"input": ' }, 'the arguments are not valid JSON'],
    [{ type: 'function_call', name: 'apply_patch', call_id: 'f', arguments: '{"patch": "x"}' }, 'the arguments need a string "input"'],
    [{ type: 'custom_tool_call', name: 'apply_patch', call_id: 'c', input: 'not a patch' }, "line 1: the patch must start with '*** Begin Patch'"],
    [{ type: 'apply_patch_call', call_id: 'b', operation: { type: 'rename_file', path: 'x' } }, 'has no valid operation'],
    [{ type: 'message' }, 'not an apply_patch call'],
  ])('answers a malformed call with an error instead of throwing: %j', (item, message) => {
    const parsed = parsePatchCall(item);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toContain(message);
  });
});

describe('patchToolDefinition', () => {
  it('offers the built-in tool, a JSON function with one string and a Lark-grammar custom tool', () => {
    expect(patchToolDefinition('builtin')).toEqual({ type: 'apply_patch' });
    const fn = patchToolDefinition('function');
    expect(fn).toMatchObject({ type: 'function', name: 'apply_patch', parameters: FUNCTION_PARAMETERS });
    expect(fn.type === 'function' && fn.description).toContain('*** Begin Patch');
    const custom = patchToolDefinition('custom');
    expect(custom).toMatchObject({ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: LARK_GRAMMAR } });
    expect(custom.type === 'custom' && custom.description).toContain('freeform');
    for (const marker of [
      '*** Begin Patch',
      '*** Add File: ',
      '*** Delete File: ',
      '*** Update File: ',
      '*** Move to: ',
      '*** End of File',
      '*** End Patch',
      '%import common.LF',
    ]) {
      expect(LARK_GRAMMAR).toContain(marker);
    }
  });
});
