import { describe, expect, it } from 'vitest';
import { ToolRegistry } from './registry.ts';
import { createShellTool } from './shell-tool.ts';

const shell = createShellTool({
  form: 'builtin',
  defaultTimeoutMs: 1000,
  defaultMaxOutputBytes: 1000,
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
