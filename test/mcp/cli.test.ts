// `agentx mcp list` through the built CLI (run `npm run build` first): the SDK comes from its own
// lazily loaded chunk, servers are started and listed, unapproved project servers are not started.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bwrapPath } from '../support/sandbox.ts';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.ts';
import { startEmulator } from '../emulator/server.ts';
import { runCli, sandbox } from '../e2e/harness.ts';
import { STDIO_SERVER } from './helpers.ts';

describe('agentx mcp list', () => {
  it('parses only the exact words `mcp list` as the command; other `mcp …` words are unknown commands (issue 26)', () => {
    expect(parseArgs(['mcp', 'list']).command).toBe('mcp-list');
    expect(() => parseArgs(['mcp', 'list', 'please'])).toThrow(/^'mcp list' takes no arguments, got "please"/);
    expect(() => parseArgs(['mcp'])).toThrow(/^'mcp' needs a subcommand: list, add, get, remove, login, logout/);
    expect(parseArgs(['--', 'mcp']).command).toBe('run');
  });

  it('shows user servers with state and tool count, failures in one line, and unapproved project servers as such', async () => {
    const box = sandbox();
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(
      join(box.home, '.config', 'agentx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          tools: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'tools', 'echo,add'] },
          broken: { command: process.execPath, args: [STDIO_SERVER, 'crash'] },
          hosted: { type: 'remote', url: 'https://example.com/mcp' },
        },
      }),
    );
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

  it("a stdio server whose sandbox fails while being set up (bwrap's own error) is started again", async () => {
    const box = sandbox();
    const root = dirname(box.home);
    // The wrapper must live where the model cannot write (detect.ts): not the project, not $TMPDIR.
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const calls = join(root, 'bwrap-calls');
    const wrapper = join(root, 'bin', 'bwrap');
    mkdirSync(dirname(wrapper), { recursive: true });
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `echo x >> '${calls}'`,
        // The probe (detect.ts) and the first server start fail like bwrap does in the rename race.
        `if [ "$(wc -l < '${calls}')" -eq 2 ]; then echo "bwrap: Can't bind mount /oldroot/x on /newroot/x: Invalid argument" >&2; exit 1; fi`,
        `exec '${bwrapPath()}' "$@"`,
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(
      join(box.home, '.config', 'agentx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          tools: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'tools', 'echo,add'] },
        },
      }),
    );
    // A one-shot starts its servers in the sandbox (`mcp list` runs them as the person's own programs).
    const emu = await startEmulator();
    try {
      const env = { ...box.env, AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'sk-test-mcp-retry', AGENTX_BWRAP: wrapper, TMPDIR: tmp };
      const r = await runCli(['hello'], { cwd: box.cwd, env, timeoutMs: 30_000 });
      expect(r.stderr).not.toContain('failed');
      expect(r.code).toBe(0);
      const tools = JSON.stringify((emu.requests.at(-1)?.body as { tools?: unknown }).tools);
      expect(tools).toContain('mcp__tools__echo');
    } finally {
      await emu.close();
    }
    // Probe, the failed setup, the start that worked.
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('says how to configure servers when there are none, and exits 0', async () => {
    const box = sandbox();
    const r = await runCli(['mcp', 'list'], { cwd: box.cwd, env: box.env });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('No MCP servers configured: add them to ~/.config/agentx/mcp.json or to .mcp.json in the project.\n');
  });
});
