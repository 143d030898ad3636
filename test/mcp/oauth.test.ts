// OAuth 2.1 sign-in to a remote MCP server, end to end: the built CLI's `agentx mcp login`
// against a local authorization server (servers/oauth.mjs: metadata discovery, dynamic
// registration, PKCE, code exchange, refresh), the test playing the browser (it fetches the
// printed URL and follows the redirect to the local callback); then a session's manager calls a
// tool with the token, refreshes it when the server stops accepting it, and `agentx mcp logout`
// deletes it. Tokens are kept 0600 and never printed.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpManager } from '../../src/tools/mcp/manager.ts';
import { CLI, runCli, sandbox } from '../e2e/harness.ts';
import { HTTP_SERVER, readMarks, tempDir, waitUntil } from './helpers.ts';
import type { TempDir } from './helpers.ts';

let server: ChildProcess;
let base = '';
let marks: TempDir;

beforeAll(async () => {
  marks = tempDir();
  server = spawn(process.execPath, [HTTP_SERVER, '--oauth'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MCP_TEST_MARK_DIR: marks.path } });
  let out = '';
  server.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  base = `http://127.0.0.1:${await waitUntil(() => /listening (\d+)/.exec(out)?.[1], 'the OAuth test server')}`;
});

afterAll(() => {
  server.kill();
  marks.cleanup();
});

/** `agentx mcp login NAME`, with the test as the browser: open the printed URL, follow the redirect. */
async function login(env: NodeJS.ProcessEnv, cwd: string, name: string): Promise<{ code: number | null; stdout: string; stderr: string; browser: string }> {
  const child = spawn(process.execPath, [CLI, 'mcp', 'login', name], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const url = await waitUntil(
    () => /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stdout)?.[1],
    `the authorization URL (stdout: ${stdout}, stderr: ${stderr})`,
    20_000,
  );
  const page = await fetch(url, { redirect: 'follow' });
  const browser = await page.text();
  return { code: await exited, stdout, stderr, browser };
}

describe('agentx mcp login / logout (OAuth 2.1)', () => {
  it('signs in with PKCE through a local callback, calls a tool with the token, refreshes it, and logs out', async () => {
    const box = sandbox();
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(join(box.home, '.config', 'agentx', 'mcp.json'), JSON.stringify({ mcpServers: { web: { url: `${base}/mcp` } } }));
    const store = join(box.home, '.local', 'state', 'agentx', 'mcp-oauth.json');

    // Before signing in: refused, with the way out in the line.
    let manager = await McpManager.start({
      specs: [{ name: 'web', file: 'f', scope: 'user', transport: 'http', url: `${base}/mcp`, headers: {} }],
      env: box.env,
      projectDir: box.cwd,
    });
    expect(manager.startupReport()[0]).toMatch(/401.*\(if it needs sign-in: agentx mcp login web\)$/);
    await manager.close();

    const r = await login(box.env, box.cwd, 'web');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.browser).toBe('agentx: signed in. You can close this tab.\n');
    expect(r.stdout).toMatch(
      /^Open this address in a browser to sign in to web:\nhttp:\/\/127\.0\.0\.1:\d+\/authorize\?.*code_challenge_method=S256.*\nmcp: signed in to web; the tokens are kept in .*mcp-oauth\.json\n$/,
    );
    expect(readMarks(marks.path)).toEqual(expect.arrayContaining(['registered agentx none', `authorize resource=${base}/mcp`, 'token authorization_code']));
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(store, 'utf8')) as { servers: Record<string, { tokens: { access_token: string; refresh_token: string } }> };
    const first = saved.servers[`web ${base}/mcp`]?.tokens;
    expect(first?.access_token).toMatch(/^at-/);
    expect(r.stdout).not.toContain(first?.access_token ?? 'x');

    manager = await McpManager.start({
      specs: [{ name: 'web', file: 'f', scope: 'user', transport: 'http', url: `${base}/mcp`, headers: {} }],
      env: box.env,
      projectDir: box.cwd,
    });
    try {
      expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'http' });
      expect(await manager.call(manager.describeCall('mcp__web__echo', '{"text":"signed in"}')!)).toMatchObject({ status: 'ok', output: 'signed in' });
      // The server stops accepting the access token: the client refreshes and the call goes through.
      await fetch(`${base}/__expire`, { method: 'POST' });
      expect(await manager.call(manager.describeCall('mcp__web__echo', '{"text":"refreshed"}')!)).toMatchObject({ status: 'ok', output: 'refreshed' });
      expect(readMarks(marks.path)).toContain('token refresh_token');
      const after = (JSON.parse(readFileSync(store, 'utf8')) as typeof saved).servers[`web ${base}/mcp`]?.tokens;
      expect(after?.access_token).not.toBe(first?.access_token);
      expect(JSON.stringify(manager.servers())).not.toContain('at-');
    } finally {
      await manager.close();
    }

    const out = await runCli(['mcp', 'logout', 'web'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toMatch(/^mcp: signed out of web; its tokens were deleted from .*mcp-oauth\.json\n$/);
    expect(readFileSync(store, 'utf8')).not.toContain('at-');
    manager = await McpManager.start({
      specs: [{ name: 'web', file: 'f', scope: 'user', transport: 'http', url: `${base}/mcp`, headers: {} }],
      env: box.env,
      projectDir: box.cwd,
    });
    expect(manager.startupReport()[0]).toMatch(/agentx mcp login web/);
    await manager.close();
  });

  it('login refuses a server that is not configured or is local, in one line', async () => {
    const box = sandbox();
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(join(box.home, '.config', 'agentx', 'mcp.json'), JSON.stringify({ mcpServers: { local: { command: 'true' } } }));
    const missing = await runCli(['mcp', 'login', 'nope'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(missing).toMatchObject({ code: 1, stderr: 'agentx: mcp: no server "nope" is configured (agentx mcp list shows them)\n' });
    const local = await runCli(['mcp', 'login', 'local'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(local).toMatchObject({ code: 1, stderr: 'agentx: mcp: local is a local (stdio) server; only servers with a "url" sign in\n' });
  });
});
