import { describe, expect, it } from 'vitest';
import type { CommandResultInfo } from './events.ts';
import { buildNotRunOutput, buildOutputItem, parseToolCall, unfinishedCallOutput } from './tool-calls.ts';

const result = (over: Partial<CommandResultInfo> = {}): CommandResultInfo => ({
  callId: 'c1', command: 'echo hi', exitCode: 0, timedOut: false, interrupted: false, durationMs: 5, truncatedBytes: 0, stdout: 'hi\n', stderr: '', ...over,
});

describe('parseToolCall', () => {
  it('reads a built-in shell call with its limits', () => {
    const p = parseToolCall({ type: 'shell_call', call_id: 'c1', action: { commands: ['ls', 'pwd'], timeout_ms: 500, max_output_length: 1000 } });
    expect(p).toMatchObject({ kind: 'shell_call', commands: ['ls', 'pwd'], timeoutMs: 500, maxOutput: 1000 });
    expect(p.error).toBeUndefined();
  });

  it('reads the shell function and its workdir', () => {
    const p = parseToolCall({ type: 'function_call', call_id: 'c2', name: 'shell', arguments: '{"commands":["ls"],"timeout_ms":null,"workdir":"src"}' });
    expect(p).toMatchObject({ kind: 'function_call', commands: ['ls'], workdir: 'src', timeoutMs: undefined });
  });

  it('turns every unrunnable call into an error instead of throwing', () => {
    const cases = [
      parseToolCall({ type: 'function_call', call_id: 'a', name: 'shell', arguments: '{"commands": [' }),
      parseToolCall({ type: 'function_call', call_id: 'b', name: 'apply_patch', arguments: '{}' }),
      parseToolCall({ type: 'function_call', call_id: 'c', name: 'shell', arguments: '{"commands":"ls"}' }),
      parseToolCall({ type: 'function_call', call_id: 'd', name: 'shell', arguments: 'null' }),
      parseToolCall({ type: 'shell_call', call_id: 'e', action: { commands: [] } }),
    ];
    expect(cases.map((c) => c.error)).toEqual([
      expect.stringMatching(/invalid JSON/), expect.stringMatching(/unknown tool "apply_patch"/),
      expect.stringMatching(/non-empty array/), expect.stringMatching(/non-empty array/), expect.stringMatching(/no commands/),
    ]);
  });
});

describe('output items', () => {
  it('answers a shell call with one output per command and the right outcome', () => {
    const call = parseToolCall({ type: 'shell_call', call_id: 'c1', action: { commands: ['a', 'b'] } });
    const item = buildOutputItem(call, [result(), result({ exitCode: null, timedOut: true, stdout: '' })]);
    expect(item).toEqual({
      type: 'shell_call_output', call_id: 'c1',
      output: [
        { stdout: 'hi\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '', stderr: '', outcome: { type: 'timeout' } },
      ],
    });
  });

  it('marks an interrupted command for the model', () => {
    const call = parseToolCall({ type: 'shell_call', call_id: 'c1', action: { commands: ['sleep 9'] } });
    const item = buildOutputItem(call, [result({ exitCode: null, interrupted: true, stdout: '' })]) as { output: { stderr: string; outcome: { exit_code: number } }[] };
    expect(item.output[0]?.stderr).toMatch(/interrupted by the user/);
    expect(item.output[0]?.outcome.exit_code).toBe(130);
  });

  it('answers the shell function with readable text', () => {
    const call = parseToolCall({ type: 'function_call', call_id: 'f1', name: 'shell', arguments: '{"commands":["echo hi"]}' });
    const item = buildOutputItem(call, [result({ stderr: 'warn\n', exitCode: 3 })]) as { type: string; output: string };
    expect(item.type).toBe('function_call_output');
    expect(item.output).toBe('$ echo hi\n[exit 3, 5 ms]\nhi\n[stderr]\nwarn');
  });

  it('answers a call that did not run, for both kinds', () => {
    expect(buildNotRunOutput({ callId: 'x', kind: 'function_call', commands: [] }, 'declined')).toEqual({ type: 'function_call_output', call_id: 'x', output: 'error: declined' });
    const shell = buildNotRunOutput({ callId: 'y', kind: 'shell_call', commands: ['a', 'b'] }, 'not run') as { output: unknown[] };
    expect(shell.output).toHaveLength(2);
  });
});

describe('unfinishedCallOutput', () => {
  it('says a started call may have partly run, and can ask the model to check with the user', () => {
    const started = unfinishedCallOutput({ call_id: 's', type: 'shell_call', action: { commands: ['make'] }, status: 'started' }, true) as { output: { stderr: string }[] };
    expect(started.output[0]?.stderr).toMatch(/may have run partly.*Do not run it again without asking/);
    const pending = unfinishedCallOutput({ call_id: 'p', type: 'function_call', name: 'shell', arguments: '{}', status: 'pending' }, false);
    expect(pending).toEqual({ type: 'function_call_output', call_id: 'p', output: 'error: not run: agentx stopped before this command started.' });
  });
});
