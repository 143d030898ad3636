// MCP over HTTP through a real forward proxy (fixtures/forward-proxy.ts): an http server reached
// with absolute-URI requests, an https one through a CONNECT tunnel with TLS verified against a
// private CA made here with openssl (AGENTX_CA_FILE), NO_PROXY going direct, and a dead proxy
// named in one line without its credentials. The fetch is the front-end's (frontends/mcp-fetch.ts).
// The same through a real SOCKS5 server (test/support/socks5-server.ts).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMcpFetch } from '../../src/frontends/mcp-fetch.ts';
import { McpManager } from '../../src/tools/mcp/manager.ts';
import { startSocks5Server } from '../support/socks5-server.ts';
import { makeLocalhostCa, tlsFront } from '../support/tls.ts';
import { startForwardProxy, type ForwardProxy } from './fixtures/forward-proxy.ts';
import { HTTP_SERVER, httpSpec, tempDir, waitUntil } from './helpers.ts';
import type { TempDir } from './helpers.ts';

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

let server: ChildProcess;
let port = 0;
let dir: TempDir;
let tlsServer: tls.Server;
let tlsPort = 0;
let proxy: ForwardProxy;
let manager: McpManager | undefined;

beforeAll(async () => {
  dir = tempDir('agentx-mcp-proxy-');
  const certificate = makeLocalhostCa(dir.path, 'agentx mcp test CA');
  server = spawn(process.execPath, [HTTP_SERVER, '--token', 'tok-123'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  server.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  port = Number(await waitUntil(() => /listening (\d+)/.exec(out)?.[1], 'the HTTP test server'));
  // TLS in front of the MCP server: the private CA's certificate for localhost, plaintext behind.
  ({ server: tlsServer, port: tlsPort } = await tlsFront(certificate, port));
});

afterAll(async () => {
  server.kill();
  await new Promise((r) => tlsServer.close(r));
  dir.cleanup();
});

const saved: Record<string, string | undefined> = {};
beforeEach(async () => {
  for (const v of PROXY_VARS) {
    saved[v] = process.env[v];
    delete process.env[v];
  }
  proxy = await startForwardProxy();
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  await proxy.close();
  for (const v of PROXY_VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

const headers = { Authorization: 'Bearer tok-123' };
const withCredentials = (url: string): string => url.replace('http://', 'http://alice:s%3Acret@');
const start = (url: string, transport: 'http' | 'sse' = 'http', caFile?: string): Promise<McpManager> =>
  McpManager.start({ specs: [httpSpec('web', url, { headers, transport })], env: process.env, projectDir: '/', fetch: createMcpFetch(caFile), images: false });
const caPem = (): string => join(dir.path, 'ca.pem');

async function echo(m: McpManager, text: string): Promise<string> {
  return (await m.call(m.describeCall('mcp__web__echo', JSON.stringify({ text }))!)).output;
}

describe('MCP over HTTP through a proxy', () => {
  it('http: Streamable HTTP via HTTP_PROXY with absolute-URI requests; the proxy alone gets its credentials', async () => {
    process.env.HTTP_PROXY = withCredentials(proxy.url);
    manager = await start(`http://127.0.0.1:${port}/mcp`);
    expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    expect(await echo(manager, 'via proxy')).toBe('via proxy');
    expect(proxy.forwarded).toContain(`POST http://127.0.0.1:${port}/mcp`);
    expect(proxy.auth.every((a) => a === `Basic ${Buffer.from('alice:s:cret').toString('base64')}`)).toBe(true);
    expect(JSON.stringify(manager.servers())).not.toContain('cret');
  });

  it('the older HTTP+SSE protocol streams through the proxy too', async () => {
    process.env.HTTP_PROXY = proxy.url;
    manager = await start(`http://127.0.0.1:${port}/sse`, 'sse');
    expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
    expect(await echo(manager, 'old protocol')).toBe('old protocol');
    expect(proxy.forwarded.some((f) => f.startsWith(`GET http://127.0.0.1:${port}/sse`))).toBe(true);
  });

  it('https: a CONNECT tunnel through HTTPS_PROXY, TLS verified against AGENTX_CA_FILE', async () => {
    process.env.HTTPS_PROXY = withCredentials(proxy.url);
    manager = await start(`https://localhost:${tlsPort}/mcp`, 'http', caPem());
    expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    expect(await echo(manager, 'tunnelled')).toBe('tunnelled');
    expect(proxy.tunnels).toContain(`localhost:${tlsPort}`);
    expect(proxy.forwarded).toEqual([]);
  });

  it('https with the private CA and no proxy: verified directly', async () => {
    manager = await start(`https://localhost:${tlsPort}/mcp`, 'http', caPem());
    expect(await echo(manager, 'direct tls')).toBe('direct tls');
    expect(proxy.tunnels).toEqual([]);
  });

  it('NO_PROXY sends a matching server directly', async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = 'example.com, 127.0.0.0/8';
    manager = await start(`http://127.0.0.1:${port}/mcp`);
    expect(await echo(manager, 'direct')).toBe('direct');
    expect(proxy.forwarded).toEqual([]);
  });

  it('a dead proxy: the server fails in one line naming the proxy, never its password', async () => {
    const dead = await startForwardProxy();
    const deadUrl = dead.url;
    await dead.close();
    process.env.HTTPS_PROXY = withCredentials(deadUrl);
    manager = await start(`https://localhost:${tlsPort}/mcp`, 'http', caPem());
    const [line = ''] = manager.startupReport();
    expect(line).toMatch(/^mcp: server web failed to start: .*proxy http:\/\/127\.0\.0\.1:\d+.*could not be reached/);
    expect(line).not.toContain('cret');
    expect(JSON.stringify(manager.servers())).not.toContain('cret');
  });

  it('http: a dead proxy and a proxy answering 407 each fail the server in one line naming the proxy', async () => {
    const dead = await startForwardProxy();
    const deadUrl = dead.url;
    await dead.close();
    process.env.HTTP_PROXY = withCredentials(deadUrl);
    manager = await start(`http://127.0.0.1:${port}/mcp`);
    const [unreachable = ''] = manager.startupReport();
    expect(unreachable).toMatch(new RegExp(`^mcp: server web failed to start: .*proxy ${deadUrl} could not be reached: ECONNREFUSED`));
    expect(unreachable).not.toContain('cret');
    await manager.close();
    const strict = await startForwardProxy({ requireAuth: true });
    try {
      process.env.HTTP_PROXY = withCredentials(strict.url);
      manager = await start(`http://127.0.0.1:${port}/mcp`);
      const [refused = ''] = manager.startupReport();
      expect(refused).toMatch(
        new RegExp(
          `^mcp: server web failed to start: .*proxy ${strict.url} refused the request to 127\\.0\\.0\\.1:${port} \\(407 Proxy Authentication Required\\)`,
        ),
      );
      expect(refused).not.toContain('\n');
      expect(refused).not.toContain('cret');
    } finally {
      await strict.close();
    }
  });
});

describe('MCP over HTTP through a SOCKS5 proxy', () => {
  it('http via ALL_PROXY=socks5://, username/password to the proxy alone; the older SSE protocol too', async () => {
    const socks = await startSocks5Server({ credentials: { username: 'alice', password: 's:cret' } });
    try {
      process.env.ALL_PROXY = socks.url.replace('socks5h://', 'socks5://alice:s%3Acret@');
      manager = await start(`http://127.0.0.1:${port}/mcp`);
      expect(manager.servers()[0]).toMatchObject({ state: 'ready', transport: 'http' });
      expect(await echo(manager, 'via socks')).toBe('via socks');
      expect(socks.connects.length).toBeGreaterThan(0);
      expect(socks.connects.every((c) => c.atyp === 'ipv4' && c.host === '127.0.0.1' && c.port === port)).toBe(true);
      expect(new Set(socks.usernames)).toEqual(new Set(['alice']));
      expect(JSON.stringify(manager.servers())).not.toContain('cret');
      await manager.close();
      manager = await start(`http://127.0.0.1:${port}/sse`, 'sse');
      expect(await echo(manager, 'old protocol')).toBe('old protocol');
      expect(proxy.forwarded).toEqual([]);
    } finally {
      await socks.close();
    }
  });

  it('https via HTTPS_PROXY=socks5h://: the name to the proxy, TLS verified against AGENTX_CA_FILE', async () => {
    const socks = await startSocks5Server();
    try {
      process.env.HTTPS_PROXY = socks.url;
      manager = await start(`https://localhost:${tlsPort}/mcp`, 'http', caPem());
      expect(await echo(manager, 'socks tls')).toBe('socks tls');
      expect(socks.connects.length).toBeGreaterThan(0);
      expect(socks.connects.every((c) => c.atyp === 'domain' && c.host === 'localhost' && c.port === tlsPort)).toBe(true);
    } finally {
      await socks.close();
    }
  });

  it('NO_PROXY goes direct; a dead SOCKS proxy fails the server in one line naming it, never its password', async () => {
    const socks = await startSocks5Server();
    try {
      process.env.ALL_PROXY = socks.url;
      process.env.NO_PROXY = '127.0.0.1';
      manager = await start(`http://127.0.0.1:${port}/mcp`);
      expect(await echo(manager, 'direct')).toBe('direct');
      expect(socks.methods).toEqual([]);
      await manager.close();
    } finally {
      await socks.close();
    }
    delete process.env.NO_PROXY;
    process.env.ALL_PROXY = socks.url.replace('//', '//alice:s%3Acret@');
    manager = await start(`http://127.0.0.1:${port}/mcp`);
    const [line = ''] = manager.startupReport();
    expect(line).toMatch(new RegExp(`^mcp: server web failed to start: .*proxy ${socks.url} could not be reached: ECONNREFUSED`));
    expect(line).not.toContain('\n');
    expect(line).not.toContain('cret');
  });
});
