// The manager against a real HTTP MCP server (test/mcp/servers/http-server.mjs): Streamable
// HTTP, the fallback to the older HTTP+SSE protocol, headers with ${VAR}, cancellation over
// HTTP, and a stdio and an HTTP server used together in one manager.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpManager } from '../../src/tools/mcp/manager.ts';
import { HTTP_SERVER, httpSpec, readMarks, stdioSpec, tempDir, waitUntil } from './helpers.ts';
import type { TempDir } from './helpers.ts';

let server: ChildProcess;
let base = '';
let marks: TempDir;
let manager: McpManager | undefined;

beforeAll(async () => {
  marks = tempDir();
  server = spawn(process.execPath, [HTTP_SERVER, '--token', 'tok-123'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, MCP_TEST_MARK_DIR: marks.path },
  });
  let out = '';
  server.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  const port = await waitUntil(() => /listening (\d+)/.exec(out)?.[1], 'the HTTP test server');
  base = `http://127.0.0.1:${port}`;
});

afterAll(() => {
  server.kill();
  marks.cleanup();
});

afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

const env = { ...process.env, MCP_TOKEN: 'tok-123' };
const auth = { Authorization: 'Bearer ${MCP_TOKEN}' };

describe('HTTP servers', () => {
  it('calls tools over Streamable HTTP, with ${VAR} in headers', async () => {
    manager = await McpManager.start({ specs: [httpSpec('web', `${base}/mcp`, { headers: auth })], env, projectDir: '/' });
    expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    const rec = manager.describeCall('mcp__web__echo', '{"text":"over http"}');
    expect(rec).toEqual({ kind: 'mcp', server: 'web', tool: 'echo', arguments: '{"text":"over http"}' });
    expect(await manager.call(rec!)).toMatchObject({ status: 'ok', output: 'over http' });
  });

  it('falls back to HTTP+SSE when the server does not speak Streamable HTTP', async () => {
    manager = await McpManager.start({ specs: [httpSpec('old', `${base}/sse`, { headers: auth })], env, projectDir: '/' });
    expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
    expect(await manager.call(manager.describeCall('mcp__old__add', '{"a":1,"b":2}')!)).toMatchObject({ status: 'ok', output: '3' });
  });

  it('reports a refused token in one line, naming both attempts', async () => {
    manager = await McpManager.start({ specs: [httpSpec('web', `${base}/mcp`, { headers: { Authorization: 'Bearer wrong' } })], env, projectDir: '/' });
    const [line] = manager.startupReport();
    expect(line).toMatch(/^mcp: server web failed to start: Streamable HTTP: .*401.*; HTTP\+SSE: .*401.*$/);
  });

  it('aborting an HTTP call cancels it on the server', async () => {
    manager = await McpManager.start({ specs: [httpSpec('web', `${base}/mcp`, { headers: auth })], env, projectDir: '/' });
    const abort = new AbortController();
    const before = readMarks(marks.path).filter((l) => l.startsWith('slow-aborted')).length;
    const pending = manager.call(manager.describeCall('mcp__web__slow', '{}')!, { signal: abort.signal });
    await waitUntil(() => (readMarks(marks.path).some((l) => l.startsWith('slow-started')) ? true : undefined), 'the slow tool to start');
    abort.abort();
    expect((await pending).status).toBe('interrupted');
    await waitUntil(
      () => (readMarks(marks.path).filter((l) => l.startsWith('slow-aborted')).length > before ? true : undefined),
      'the server to see the cancellation',
    );
  });

  it('offers the tools of a stdio and an HTTP server together, with colliding and long names resolved', async () => {
    const dir = tempDir();
    try {
      manager = await McpManager.start({
        specs: [httpSpec('a.b', `${base}/mcp`, { headers: auth }), stdioSpec('a_b', ['serve', 'a_b'])],
        env,
        projectDir: dir.path,
      });
      const names = manager.toolDefinitions().map((d) => d.name);
      expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
      // "a_b" is the exact name of the stdio server, so its tools keep the plain names.
      expect(manager.resolveName('mcp__a_b__echo')).toEqual({ server: 'a_b', tool: 'echo' });
      const httpEcho = names.find((n) => manager!.resolveName(n)?.server === 'a.b' && manager!.resolveName(n)?.tool === 'echo');
      expect(httpEcho).toMatch(/^mcp__a_b__echo_[0-9a-f]{8}$/);
      // Both "dotted.name" tools needed sanitising, so neither keeps the plain name.
      const dotted = names.filter((n) => manager!.resolveName(n)?.tool === 'dotted.name');
      expect(dotted).toHaveLength(2);
      for (const n of dotted) expect(n).toMatch(/^mcp__a_b__dotted_name_[0-9a-f]{8}$/);
      const long = names.filter((n) => manager!.resolveName(n)?.tool.startsWith('a_tool_name_that_goes_on'));
      expect(long).toHaveLength(2);
      for (const n of long) expect(n).toHaveLength(64);
      expect(await manager.call(manager.describeCall(httpEcho!, '{"text":"from http"}')!)).toMatchObject({ output: 'from http' });
      expect(await manager.call(manager.describeCall('mcp__a_b__echo', '{"text":"from stdio"}')!)).toMatchObject({ output: 'from stdio' });
    } finally {
      dir.cleanup();
    }
  });
});
