// `agentx mcp list` through the built CLI (run `npm run build` first): the SDK comes from its own
// lazily loaded chunk, servers are started and listed, unapproved project servers are not started.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.ts';
import { runCli, sandbox } from '../e2e/harness.ts';
import { STDIO_SERVER } from './helpers.ts';

describe('agentx mcp list', () => {
  it('parses only the exact words `mcp list` as the command', () => {
    expect(parseArgs(['mcp', 'list']).command).toBe('mcp-list');
    expect(parseArgs(['mcp', 'list', 'please']).command).toBe('run');
    expect(parseArgs(['mcp']).command).toBe('run');
  });

  it('shows user servers with state and tool count, failures in one line, and unapproved project servers as such', async () => {
    const box = sandbox();
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(join(box.home, '.config', 'agentx', 'mcp.json'), JSON.stringify({ mcpServers: {
      tools: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'tools', 'echo,add'] },
      broken: { command: process.execPath, args: [STDIO_SERVER, 'crash'] },
      hosted: { type: 'remote', url: 'https://example.com/mcp' },
    } }));
    writeFileSync(join(box.cwd, '.mcp.json'), JSON.stringify({ mcpServers: { proj: { command: 'touch', args: ['started'] } } }));
    const r = await runCli(['mcp', 'list'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('MCP servers (4):');
    const cells = lines.slice(1, 5).map((l) => l.trim().split(/ {2,}/));
    expect(cells[0]).toEqual(['tools', 'ready', 'stdio', '2 tools', 'user: ~/.config/agentx/mcp.json']);
    expect(cells[1]).toEqual(['broken', 'failed', 'stdio', '-', 'exited with code 1 before it was ready: fatal: cannot open the database']);
    expect(cells[2]).toEqual(['hosted', 'via the API', 'remote', '-', 'user: ~/.config/agentx/mcp.json']);
    expect(cells[3]).toEqual(['proj', 'not approved', 'stdio', '-', `project: ${join(box.cwd, '.mcp.json')} (review it in an interactive agentx session)`]);
    // Columns line up: each row's state and transport start where the others' do.
    const starts = (col: number) => new Set(lines.slice(1, 5).map((l, i) => l.indexOf(`  ${cells[i]?.[col] ?? ''}`)));
    expect(starts(1).size).toBe(1);
    expect(starts(2).size).toBe(1);
    expect(existsSync(join(box.cwd, 'started'))).toBe(false);
    expect(lines).toHaveLength(5);
  });

  it('says how to configure servers when there are none, and exits 0', async () => {
    const box = sandbox();
    const r = await runCli(['mcp', 'list'], { cwd: box.cwd, env: box.env });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('No MCP servers configured: add them to ~/.config/agentx/mcp.json or to .mcp.json in the project.\n');
  });
});
