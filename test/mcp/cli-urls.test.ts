// `agentx mcp …` through the built CLI (run `npm run build` first): credentials in a server URL
// are refused (at `mcp add`, and when a file holds them) and never printed; query values are
// hidden wherever a URL is shown; the timeout flags of `mcp add`; the hints and argument
// messages of the mcp commands, and the `agentx -- mcp` those hints give working as a message.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMcpCommand, timeoutFlagMs } from '../../src/cli/mcp-command.ts';
import { startEmulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from '../e2e/harness.ts';

const userFile = (home: string): string => join(home, '.config', 'agentx', 'mcp.json');

function writeUser(box: Sandbox, servers: Record<string, unknown>): void {
  mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
  writeFileSync(userFile(box.home), JSON.stringify({ mcpServers: servers }));
}

const runIn = (box: Sandbox) => (args: string[]) => runCli(args, { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });

/** An HTTP "server" that answers everything 404, quoting the request's path and query, as many do. */
async function echoingNotFound(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`no route for ${req.url ?? ''} (http://127.0.0.1${req.url ?? ''})`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('MCP server URLs are never shown with credentials or query values', () => {
  it('mcp add refuses user:password@ in --url: exit 2, one line that repeats neither and names --header and mcp login', async () => {
    const box = sandbox();
    const run = runIn(box);
    const r = await run(['mcp', 'add', 'leak', '--url', 'https://user:hunter2@mcp.example.com/mcp?api_key=SECRET']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      "agentx: mcp add: --url must not hold a user name or password (user:password@); send the credential in a header (--header 'Authorization: Bearer ${TOKEN}') or sign in with OAuth (agentx mcp login leak) (see agentx mcp --help)\n",
    );
    expect(existsSync(userFile(box.home))).toBe(false);
    // The same URL's key in a header is fine, and a key in the query is accepted (some servers want it), but not shown.
    const ok = await run([
      'mcp',
      'add',
      'ok',
      '--url',
      'https://mcp.example.com/mcp?api_key=SECRET&region=${REGION}',
      '--header',
      'Authorization: Bearer ${T}',
    ]);
    expect(ok.code).toBe(0);
    const got = await run(['mcp', 'get', 'ok']);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('"url": "https://mcp.example.com/mcp?api_key=***&region=${REGION}"');
    expect(got.stdout).not.toContain('SECRET');
    expect(readFileSync(userFile(box.home), 'utf8')).toContain('api_key=SECRET');
  });

  it('a file with credentials in a URL: the server is skipped with one line that does not show them; get and list never print them', async () => {
    const box = sandbox();
    const run = runIn(box);
    writeUser(box, {
      leak: { url: 'https://user:hunter2@127.0.0.1:1/mcp?api_key=SECRET' },
      hosted: { type: 'remote', url: 'https://tok3n-abc@mcp.example.com/mcp' },
    });
    const list = await run(['mcp', 'list']);
    expect(list.code).toBe(1);
    expect(list.stderr).toBe('');
    expect(list.stdout).not.toMatch(/hunter2|SECRET|tok3n/);
    const file = userFile(box.home);
    expect(list.stdout.trimEnd().split('\n')).toEqual([
      'No MCP servers configured: add them to ~/.config/agentx/mcp.json or to .mcp.json in the project.',
      `mcp: ${file}: server "leak": "url" must not hold a user name or password (user:password@); send the credential in "headers" ("Authorization": "Bearer \${TOKEN}"), or sign in with OAuth (agentx mcp login NAME)`,
      `mcp: ${file}: server "hosted": "url" must not hold a user name or password (user:password@); send the credential in "headers" ("Authorization": "Bearer \${TOKEN}")`,
    ]);
    const got = await run(['mcp', 'get', 'leak']);
    expect(got.code).toBe(0);
    expect(got.stdout).not.toMatch(/hunter2|SECRET|user:h/);
    expect(got.stdout).toContain('"url": "https://127.0.0.1:1/mcp?api_key=***"');
    expect(got.stdout).toContain('a session does not start it: "url" must not hold a user name or password');
    expect((await run(['mcp', 'get', 'hosted'])).stdout).not.toContain('tok3n');
  });

  it("a server's failure that quotes its URL or path shows the query values hidden", async () => {
    const { url, server } = await echoingNotFound();
    try {
      const box = sandbox();
      writeUser(box, { docs: { url: `${url}/mcp?api_key=SECRET123&plain=${'${NOPE:-x}'}` } });
      const list = await runIn(box)(['mcp', 'list']);
      expect(list.code).toBe(1);
      const row = list.stdout.split('\n').find((l) => l.includes('docs')) ?? '';
      expect(row).toMatch(
        /docs +failed +http +- +Streamable HTTP: HTTP 404: .*no route for \/mcp\?api_key=\*\*\*&plain=x \(http:\/\/127\.0\.0\.1\/mcp\?api_key=\*\*\*&plain=\*\*\*\)/,
      );
      expect(list.stdout).not.toContain('SECRET123');
    } finally {
      server.close();
    }
  });
});

describe('mcp add timeouts', () => {
  it('parses seconds into the file’s millisecond keys; refuses non-numbers, 0 and more than setTimeout keeps', () => {
    expect(parseMcpCommand(['add', 's', '--tool-total-timeout', '3600', '--startup-timeout=2.5', '--tool-timeout', '300', '--', 'srv'])).toEqual({
      action: 'add',
      name: 's',
      entry: { command: 'srv', args: [], startupTimeoutMs: 2500, toolTimeoutMs: 300_000, toolTotalTimeoutMs: 3_600_000 },
    });
    expect(parseMcpCommand(['add', 'h', '--url', 'https://x/mcp', '--tool-timeout', '.5'])).toEqual({
      action: 'add',
      name: 'h',
      entry: { type: 'http', url: 'https://x/mcp', toolTimeoutMs: 500 },
    });
    expect(timeoutFlagMs('--tool-timeout', '2147483.647')).toBe(2 ** 31 - 1);
    for (const bad of ['abc', '', '-5', '1e3', 'Infinity', '10s', '0x10']) {
      expect(() => timeoutFlagMs('--tool-timeout', bad)).toThrow(/^mcp add: --tool-timeout expects a number of seconds, got /);
    }
    expect(() => timeoutFlagMs('--startup-timeout', '0')).toThrow('mcp add: --startup-timeout must be more than 0 seconds (at least 0.001), got "0"');
    expect(() => timeoutFlagMs('--startup-timeout', '0.0001')).toThrow(/must be more than 0 seconds/);
    expect(() => timeoutFlagMs('--tool-total-timeout', '2147483.648')).toThrow(
      'mcp add: --tool-total-timeout must be at most 2147483.647 seconds (about 24.8 days; Node would fire a longer timer at once)',
    );
    expect(() => parseMcpCommand(['add', 's', '--tool-timeout'])).toThrow('mcp add: --tool-timeout needs a value');
  });

  it('writes the timeouts, mcp get shows them (defaults named), bad values exit 2; a file with a too-long one is skipped in one line', async () => {
    const box = sandbox();
    const run = runIn(box);
    const added = await run(['mcp', 'add', 'slow', '--startup-timeout', '30', '--tool-timeout', '600', '--', 'srv', '--flag']);
    expect(added.code).toBe(0);
    expect(JSON.parse(readFileSync(userFile(box.home), 'utf8'))).toEqual({
      mcpServers: { slow: { command: 'srv', args: ['--flag'], startupTimeoutMs: 30_000, toolTimeoutMs: 600_000 } },
    });
    const got = await run(['mcp', 'get', 'slow']);
    expect(got.stdout.trimEnd().split('\n').at(-1)).toBe('timeouts: start 30 s, call without an answer or progress 600 s, call in all 1800 s (default)');

    for (const [value, why] of [
      ['soon', 'expects a number of seconds, got "soon"'],
      ['0', 'must be more than 0 seconds'],
      ['9999999', 'must be at most 2147483.647 seconds'],
    ] as const) {
      const r = await run(['mcp', 'add', 'x', '--tool-total-timeout', value, '--', 'srv']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(`agentx: mcp add: --tool-total-timeout ${why}`);
    }
    expect(Object.keys((JSON.parse(readFileSync(userFile(box.home), 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['slow']);

    writeUser(box, { forever: { command: 'srv', toolTotalTimeoutMs: 2 ** 31 } });
    const list = await run(['mcp', 'list']);
    expect(list.code).toBe(1);
    expect(list.stdout.trimEnd().split('\n').at(-1)).toBe(
      `mcp: ${userFile(box.home)}: server "forever": "toolTotalTimeoutMs" must be at most 2147483647 (about 24.8 days; Node would fire a longer timer at once)`,
    );
  });
});

describe('mcp command hints and arguments', () => {
  it('mcp alone and mcp list with arguments: one line, exit 2, each saying what works', async () => {
    const box = sandbox();
    const run = runIn(box);
    expect(await run(['mcp'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "agentx: 'mcp' needs a subcommand: list, add, get, remove, login, logout (to send it as a message: agentx -- mcp) (see agentx mcp --help)\n",
    });
    expect(await run(['mcp', 'list', 'extra'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `agentx: 'mcp list' takes no arguments, got "extra" (to send it as a message, quote it: agentx "mcp list extra") (see agentx mcp --help)\n`,
    });
    const cases: [string[], string][] = [
      [['mcp', 'get'], 'mcp get: needs a server NAME (usage: agentx mcp get NAME)'],
      [['mcp', 'remove', 'a', 'b'], 'mcp remove: takes one NAME, got 2 arguments (usage: agentx mcp remove NAME)'],
      [['mcp', 'login', '--url'], 'mcp login: the server NAME comes first, got the option "--url" (usage: agentx mcp login NAME)'],
      [['mcp', 'logout'], 'mcp logout: needs a server NAME (usage: agentx mcp logout NAME)'],
      [['mcp', 'add'], 'mcp add: needs a server NAME (usage: agentx mcp add NAME [OPTIONS] -- COMMAND [ARGS…] | agentx mcp add NAME --url URL [OPTIONS])'],
      [
        ['mcp', 'add', 'x'],
        'mcp add: needs a command after -- or --url (usage: agentx mcp add NAME [OPTIONS] -- COMMAND [ARGS…] | agentx mcp add NAME --url URL [OPTIONS])',
      ],
    ];
    for (const [args, line] of cases) {
      expect(await run(args)).toMatchObject({ code: 2, stdout: '', stderr: `agentx: ${line} (see agentx mcp --help)\n` });
    }
  });

  it('agentx -- mcp, as the hint says, sends the word to the model', async () => {
    const emu = await startEmulator();
    try {
      const box = sandbox(emu.baseUrl);
      const r = await runCli(['--', 'mcp'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('You said: mcp\n');
    } finally {
      await emu.close();
    }
  });

  it('mcp --help, mcp help, mcp add --help and mcp list -h print the mcp help with every flag of add; after -- it is the server’s', async () => {
    const box = sandbox();
    const run = runIn(box);
    const help = await run(['mcp', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const flag of [
      '--env KEY=VALUE',
      '--url URL',
      '--header "Name: value"',
      '--sse',
      '--startup-timeout SECONDS',
      '--tool-timeout SECONDS',
      '--tool-total-timeout SECONDS',
    ]) {
      expect(help.stdout).toContain(flag);
    }
    expect(help.stdout).toContain('agentx -- mcp');
    for (const args of [
      ['mcp', 'help'],
      ['mcp', 'add', '--help'],
      ['mcp', 'add', 'x', '--url', 'https://x', '-h'],
      ['mcp', 'list', '-h'],
      ['mcp', 'get', '--help'],
    ]) {
      expect(await run(args)).toMatchObject({ code: 0, stdout: help.stdout });
    }
    // After --, --help is the server's own argument: the server is added.
    const added = await run(['mcp', 'add', 'srv', '--', 'srv', '--help']);
    expect(added.code).toBe(0);
    expect(JSON.parse(readFileSync(userFile(box.home), 'utf8'))).toEqual({ mcpServers: { srv: { command: 'srv', args: ['--help'] } } });
  });
});
