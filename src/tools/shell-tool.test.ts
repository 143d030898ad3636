import { describe, expect, it } from 'vitest';
import type { ShellCallOutputItem, ToolCallItem } from '../wire/items.ts';
import { parseShellCall, shellDefinitions, shellReply, type ShellCall } from './shell-tool.ts';
import type { CommandResultInfo } from './tool.ts';
import { outputForCall } from './wire-output.ts';

const result = (over: Partial<CommandResultInfo> = {}): CommandResultInfo => ({
  callId: 'c1',
  command: 'echo hi',
  exitCode: 0,
  timedOut: false,
  interrupted: false,
  durationMs: 5,
  truncatedBytes: 0,
  stdout: 'hi\n',
  stderr: '',
  ...over,
});

function parsed(item: Parameters<typeof parseShellCall>[0]): ShellCall {
  const p = parseShellCall(item);
  if (!p.ok) throw new Error(p.error);
  return p.call;
}

describe('parseShellCall', () => {
  it('reads a built-in shell call with its limits', () => {
    const call = parsed({ type: 'shell_call', call_id: 'c1', action: { commands: ['ls', 'pwd'], timeout_ms: 500, max_output_length: 1000 } });
    expect(call).toMatchObject({ form: 'builtin', commands: ['ls', 'pwd'], title: 'ls && pwd', timeoutMs: 500, maxOutput: 1000 });
  });

  it('reads the shell function and its workdir', () => {
    const call = parsed({ type: 'function_call', call_id: 'c2', name: 'shell', arguments: '{"commands":["ls"],"timeout_ms":null,"workdir":"src"}' });
    expect(call).toMatchObject({ form: 'function', commands: ['ls'], workdir: 'src', timeoutMs: undefined });
  });

  it('turns every unrunnable call into a model-facing error instead of throwing', () => {
    const errors = [
      parseShellCall({ type: 'function_call', call_id: 'a', name: 'shell', arguments: '{"commands": [' }),
      parseShellCall({ type: 'function_call', call_id: 'c', name: 'shell', arguments: '{"commands":"ls"}' }),
      parseShellCall({ type: 'function_call', call_id: 'd', name: 'shell', arguments: 'null' }),
      parseShellCall({ type: 'shell_call', call_id: 'e', action: { commands: [] } }),
    ].map((p) => (p.ok ? 'ok' : p.error));
    expect(errors).toEqual([
      expect.stringMatching(/invalid JSON/),
      expect.stringMatching(/non-empty array/),
      expect.stringMatching(/non-empty array/),
      expect.stringMatching(/no commands/),
    ]);
  });
});

/** The output item the turn loop sends for this call item when its commands said `results`. */
const outputOf = (item: ToolCallItem, results: CommandResultInfo[]) => outputForCall(item, shellReply(parsed(item), results));

describe('output items', () => {
  it('answers a shell call with one output per command and the right outcome', () => {
    const item: ToolCallItem = { type: 'shell_call', call_id: 'c1', action: { commands: ['a', 'b'] } };
    expect(outputOf(item, [result(), result({ exitCode: null, timedOut: true, stdout: '' })])).toEqual({
      type: 'shell_call_output',
      call_id: 'c1',
      output: [
        { stdout: 'hi\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '', stderr: '', outcome: { type: 'timeout' } },
      ],
    });
  });

  it('marks an interrupted command for the model', () => {
    const output = outputOf({ type: 'shell_call', call_id: 'c1', action: { commands: ['sleep 9'] } }, [
      result({ exitCode: null, interrupted: true, stdout: '' }),
    ]);
    expect(output.type).toBe('shell_call_output');
    const chunk = (output as ShellCallOutputItem).output[0];
    expect(chunk?.stderr).toMatch(/interrupted by the user/);
    expect(chunk?.outcome).toEqual({ type: 'exit', exit_code: 130 });
  });

  it('answers the shell function with readable text', () => {
    const item: ToolCallItem = { type: 'function_call', call_id: 'f1', name: 'shell', arguments: '{"commands":["echo hi"]}' };
    expect(outputOf(item, [result({ stderr: 'warn\n', exitCode: 3 })])).toEqual({
      type: 'function_call_output',
      call_id: 'f1',
      output: '$ echo hi\n[exit 3, 5 ms]\nhi\n[stderr]\nwarn',
    });
  });
});

describe('definitions', () => {
  it('offers the built-in shell tool or a strict function named shell', () => {
    expect(shellDefinitions('builtin')).toEqual([{ type: 'shell', environment: { type: 'local' } }]);
    const [fn] = shellDefinitions('function');
    expect(fn).toMatchObject({
      type: 'function',
      name: 'shell',
      strict: true,
      parameters: { required: ['commands', 'timeout_ms', 'workdir', 'sandbox_permissions', 'justification', 'prefix_rule'] },
    });
  });
});
