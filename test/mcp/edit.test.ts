// `agentx mcp add|remove|get` through the built CLI (run `npm run build` first): the person's
// file gets the JSON sessions read (a server added here is started by `agentx mcp list`), 0600,
// other entries kept; bad input is one line and changes nothing; a project's .mcp.json is
// never touched; `get` hides values that are not ${VAR} references.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMcpCommand } from '../../src/cli/mcp-command.ts';
import { runCli, sandbox } from '../e2e/harness.ts';
import { STDIO_SERVER } from './helpers.ts';

const userFile = (home: string): string => join(home, '.config', 'agentx', 'mcp.json');

describe('agentx mcp add|remove|get', () => {
  it('parses add with a command, --env, --url, --header and --sse; refuses mixtures in one line', () => {
    expect(parseMcpCommand(['add', 'fs', '--env', 'A=1', '-e', 'B=x=y', '--', 'npx', '-y', 'server', '--flag'])).toEqual({
      action: 'add',
      name: 'fs',
      entry: { command: 'npx', args: ['-y', 'server', '--flag'], env: { A: '1', B: 'x=y' } },
    });
    expect(parseMcpCommand(['add', 'docs', '--url', 'https://x/mcp', '--header', 'Authorization: Bearer ${T}', '--sse'])).toEqual({
      action: 'add',
      name: 'docs',
      entry: { type: 'sse', url: 'https://x/mcp', headers: { Authorization: 'Bearer ${T}' } },
    });
    expect(() => parseMcpCommand(['add'])).toThrow(/^mcp add: needs a server NAME/);
    expect(() => parseMcpCommand(['add', 'x'])).toThrow(/needs a command after -- or --url/);
    expect(() => parseMcpCommand(['add', 'x', '--url', 'https://x', '--', 'cmd'])).toThrow(/either --url or a command/);
    expect(() => parseMcpCommand(['add', 'x', '--header', 'Auth: y', '--', 'cmd'])).toThrow(/--header and --sse only apply with --url/);
    expect(() => parseMcpCommand(['add', 'x', '--env', 'NOEQUALS', '--', 'cmd'])).toThrow(/--env expects KEY=VALUE/);
    expect(() => parseMcpCommand(['add', 'x', 'cmd'])).toThrow(/unexpected "cmd" \(put the server's command after --/);
    expect(() => parseMcpCommand(['add', 'x\u001b[2J', '--', 'cmd'])).toThrow(/control characters/);
    expect(() => parseMcpCommand(['remove', 'a', 'b'])).toThrow(/takes one NAME/);
    // --json is the one-shots' (args.ts jsonNotFor); after -- it is the server's own argument.
    expect(() => parseMcpCommand(['get', 'a', '--json'])).toThrow(/^--json is only accepted by one-shots .*not by `agentx mcp get`/);
    expect(() => parseMcpCommand(['add', 'x', '--json', '--', 'cmd'])).toThrow(/not by `agentx mcp add`/);
    expect(parseMcpCommand(['add', 'x', '--', 'cmd', '--json'])).toMatchObject({ entry: { command: 'cmd', args: ['--json'] } });
  });

  it('add writes the JSON a session starts, 0600; get hides secrets; remove takes it out; others are kept', async () => {
    const box = sandbox();
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(userFile(box.home), JSON.stringify({ mcpServers: { keep: { type: 'remote', url: 'https://example.com/mcp' } }, other: 1 }));
    writeFileSync(join(box.cwd, '.mcp.json'), '{"mcpServers": {}}');
    const run = (args: string[]) => runCli(args, { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });

    const added = await run(['mcp', 'add', 'kit', '--env', 'KIT_TOKEN=s3cret', '--', process.execPath, STDIO_SERVER, 'serve', 'kit', 'echo,add']);
    expect(added).toMatchObject({ code: 0, stderr: '', stdout: `mcp: added kit to ${userFile(box.home)}\n` });
    expect(statSync(userFile(box.home)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(userFile(box.home), 'utf8'))).toEqual({
      mcpServers: {
        keep: { type: 'remote', url: 'https://example.com/mcp' },
        kit: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'kit', 'echo,add'], env: { KIT_TOKEN: 's3cret' } },
      },
      other: 1,
    });
    const list = await run(['mcp', 'list']);
    expect(list.stdout).toMatch(/kit +ready +stdio +2 tools/);

    const web = await run([
      'mcp',
      'add',
      'web',
      '--url',
      'https://example.com/web',
      '--header',
      'Authorization: Bearer ${WEB_TOKEN}',
      '--header',
      'X-Key: raw-key',
    ]);
    expect(web.code).toBe(0);
    const got = await run(['mcp', 'get', 'web']);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('"Authorization": "Bearer ${WEB_TOKEN}"');
    expect(got.stdout).toContain('"X-Key": "<hidden>"');
    expect(got.stdout).not.toContain('raw-key');
    expect((await run(['mcp', 'get', 'kit'])).stdout).not.toContain('s3cret');

    const again = await run(['mcp', 'add', 'kit', '--', 'true']);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(`agentx: mcp add: server "kit" already exists in ${userFile(box.home)} (agentx mcp remove kit first)\n`);

    expect((await run(['mcp', 'remove', 'kit'])).stdout).toBe(`mcp: removed kit from ${userFile(box.home)}\n`);
    expect(Object.keys((JSON.parse(readFileSync(userFile(box.home), 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['keep', 'web']);
    const gone = await run(['mcp', 'remove', 'kit']);
    expect(gone).toMatchObject({ code: 1, stderr: `agentx: mcp remove: no server "kit" in ${userFile(box.home)}\n` });
    expect(readFileSync(join(box.cwd, '.mcp.json'), 'utf8')).toBe('{"mcpServers": {}}');
  });

  it('creates the file when there is none; a broken file or a bad entry is refused in one line and left as it was', async () => {
    const box = sandbox();
    const run = (args: string[]) => runCli(args, { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(existsSync(userFile(box.home))).toBe(false);
    expect((await run(['mcp', 'add', 'a', '--', 'srv'])).code).toBe(0);
    expect(JSON.parse(readFileSync(userFile(box.home), 'utf8'))).toEqual({ mcpServers: { a: { command: 'srv', args: [] } } });

    const bad = await run(['mcp', 'add', 'b', '--url', 'ftp://example.com']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^agentx: mcp add: .*server "b": "url" must be http\(s\), got ftp:\n$/);

    writeFileSync(userFile(box.home), '{"mcpServers": {');
    const broken = await run(['mcp', 'remove', 'a']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /^agentx: mcp remove: .*mcp\.json is not valid JSON at line 1, column 17: the text ends too early \(near '\{"mcpServers": \{'\); fix it by hand first\n$/,
    );
    expect(readFileSync(userFile(box.home), 'utf8')).toBe('{"mcpServers": {');
    const usage = await run(['mcp', 'get']);
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toMatch(/^agentx: mcp get: needs a server NAME/);
  });
});
