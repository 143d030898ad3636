import { describe, expect, it } from 'vitest';
import { notRunOutput, ToolRegistry } from './registry.ts';
import { createShellTool } from './shell-tool.ts';

const shell = createShellTool({
  form: 'builtin', defaultTimeoutMs: 1000, defaultMaxOutputBytes: 1000,
  runCommand: () => Promise.reject(new Error('not used')),
});
const registry = new ToolRegistry([shell]);

describe('ToolRegistry', () => {
  it('routes a call to the tool that accepts it', () => {
    const r = registry.resolve({ type: 'shell_call', call_id: 'a', action: { commands: ['ls'] } });
    expect(r.ok && r.tool.name).toBe('shell');
  });

  it('answers unknown tools and bad arguments in one place, naming the available tools', () => {
    const unknown = registry.resolve({ type: 'function_call', call_id: 'b', name: 'deploy', arguments: '{}' });
    expect(unknown).toMatchObject({ ok: false, error: 'unknown tool "deploy": the available tools are "shell"' });
    const bad = registry.resolve({ type: 'shell_call', call_id: 'c', action: { commands: [] } });
    expect(bad).toMatchObject({ ok: false, error: 'the shell call has no commands' });
  });

  it('offers every tool definition', () => {
    expect(registry.definitions()).toEqual([{ type: 'shell', environment: { type: 'local' } }]);
  });
});

describe('notRunOutput', () => {
  it('answers each call type with its own output item', () => {
    expect(notRunOutput({ type: 'function_call', call_id: 'x', name: 'f', arguments: '{}' }, 'declined')).toEqual({ type: 'function_call_output', call_id: 'x', output: 'error: declined' });
    expect(notRunOutput({ type: 'custom_tool_call', call_id: 'y', name: 'apply_patch', input: '' }, 'no')).toEqual({ type: 'custom_tool_call_output', call_id: 'y', output: 'error: no' });
    expect(notRunOutput({ type: 'apply_patch_call', call_id: 'z', operation: { type: 'delete_file', path: 'a' } }, 'no')).toEqual({ type: 'apply_patch_call_output', call_id: 'z', status: 'failed', output: 'no' });
    const shellOut = notRunOutput({ type: 'shell_call', call_id: 's', action: { commands: ['a', 'b'] } }, 'not run');
    expect(shellOut.type === 'shell_call_output' && shellOut.output).toHaveLength(2);
  });
});
