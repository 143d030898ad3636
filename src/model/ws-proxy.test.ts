// wss:// through a real forward proxy (CONNECT) with TLS verified against a private CA made here
// with openssl, in front of the emulator's WebSocket mode; and a dead proxy named in one line.
// The same through a real SOCKS5 server (test/support/socks5-server.ts), with the built CLI's
// one-shots over HTTP and WebSocket through it.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { runCli, sandbox } from '../../test/e2e/harness.ts';
import { startSilentServer } from '../../test/support/silent-server.ts';
import { startSocks5Server } from '../../test/support/socks5-server.ts';
import { makeLocalhostCa, tlsFront } from '../../test/support/tls.ts';
import { createOpenAIClient } from './client.ts';
import type { ModelClient, ModelRequest } from './types.ts';

const VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

let dir = '';
let emu: Emulator;
let tlsServer: tls.Server;
let tlsPort = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'agentx-ws-proxy-'));
  const certificate = makeLocalhostCa(dir, 'agentx ws test CA');
  emu = await startEmulator();
  // TLS in front of the emulator (the private CA's certificate for localhost), plaintext behind.
  ({ server: tlsServer, port: tlsPort } = await tlsFront(certificate, emu.port));
});

afterAll(async () => {
  await emu.close();
  await new Promise((r) => tlsServer.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const saved: Record<string, string | undefined> = {};
beforeEach(() => {
  for (const v of VARS) {
    saved[v] = process.env[v];
    delete process.env[v];
  }
});
afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

/** A CONNECT-only forward proxy recording the tunnels and the Proxy-Authorization it got. */
async function startProxy(): Promise<{ url: string; tunnels: string[]; auth: (string | undefined)[]; close(): Promise<void> }> {
  const tunnels: string[] = [];
  const auth: (string | undefined)[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
    sockets.add(client);
    tunnels.push(req.url ?? '');
    auth.push(req.headers['proxy-authorization']);
    const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
    const up = net.connect(Number(port), host === 'localhost' ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    auth,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const REQUEST: ModelRequest = {
  model: 'gpt-5',
  instructions: 'sys',
  store: true,
  stream: true,
  tools: [],
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'over wss' }] }],
};

async function text(client: ModelClient): Promise<string> {
  for await (const ev of client.stream(REQUEST, new AbortController().signal)) if (ev.type === 'completed') return ev.response.text;
  throw new Error('no completed response');
}

const wsClient = (caFile?: string): Promise<ModelClient> =>
  createOpenAIClient({ apiKey: 'sk-test', baseUrl: `https://localhost:${tlsPort}/v1`, idleTimeoutMs: 5000, transport: 'websocket', caFile });

describe('wss through a proxy', () => {
  it('tunnels with CONNECT, verifies TLS against AGENTX_CA_FILE, sends credentials only to the proxy', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url.replace('http://', 'http://alice:s%3Acret@');
      const before = emu.requests.length;
      expect(await text(await wsClient(path.join(dir, 'ca.pem')))).toBe('You said: over wss');
      expect(proxy.tunnels).toEqual([`localhost:${tlsPort}`]);
      expect(proxy.auth).toEqual([`Basic ${Buffer.from('alice:s:cret').toString('base64')}`]);
      const reqs = emu.requests.slice(before);
      expect(reqs.map((q) => q.transport)).toEqual(['websocket']);
      expect(reqs[0]?.headers['proxy-authorization']).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('the built CLI: a one-shot over wss through the proxy answers and exits (the idle socket holds nothing open)', async () => {
    const proxy = await startProxy();
    try {
      const box = sandbox(`https://localhost:${tlsPort}/v1`, {
        AGENTX_TRANSPORT: 'websocket',
        HTTPS_PROXY: proxy.url,
        AGENTX_CA_FILE: path.join(dir, 'ca.pem'),
      });
      const before = emu.requests.length;
      const r = await runCli(['run: echo hi'], { ...box, timeoutMs: 15_000 });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Ran it/);
      expect(proxy.tunnels).toEqual([`localhost:${tlsPort}`]);
      expect(emu.requests.slice(before).map((q) => q.transport)).toEqual(['websocket', 'websocket']);
    } finally {
      await proxy.close();
    }
  });

  it('without the private CA the certificate is refused: one retryable line, no fallback to plaintext', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      await expect(text(await wsClient())).rejects.toMatchObject({
        kind: 'retryable',
        message: expect.stringMatching(/^connection failed: .*(certificate|self-signed|issuer)/i) as unknown,
      });
    } finally {
      await proxy.close();
    }
  });

  it('NO_PROXY sends the socket directly: the proxy sees nothing', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      process.env.NO_PROXY = 'example.com, localhost';
      const before = emu.requests.length;
      expect(await text(await wsClient(path.join(dir, 'ca.pem')))).toBe('You said: over wss');
      expect(proxy.tunnels).toEqual([]);
      expect(emu.requests.slice(before).map((q) => q.transport)).toEqual(['websocket']);
    } finally {
      await proxy.close();
    }
  });

  it('a dead proxy is named, its password never', async () => {
    const dead = await startProxy();
    await dead.close();
    process.env.HTTPS_PROXY = dead.url.replace('http://', 'http://bob:hunter2@');
    const failure = await text(await wsClient()).catch((e: unknown) => e as Error);
    expect(failure).toMatchObject({ message: `connection failed: proxy ${dead.url} could not be reached: ECONNREFUSED (https://localhost:${tlsPort}/v1)` });
  });
});

describe('a proxy that accepts and goes silent', () => {
  // ws's handshakeTimeout fails the connection but cannot reach the tunnel still being opened
  // under it: without a bound of its own that socket stayed open (and referenced) for good.
  it.each(['http', 'socks5h'])('%s: the handshake timeout fails the connection and closes the tunnel socket', async (scheme) => {
    const silent = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = `${scheme}://127.0.0.1:${silent.port}`;
      const client = await createOpenAIClient({
        apiKey: 'sk-test',
        baseUrl: `https://localhost:${tlsPort}/v1`,
        idleTimeoutMs: 5000,
        headersTimeoutMs: 300,
        transport: 'websocket',
      });
      await expect(text(client)).rejects.toMatchObject({
        kind: 'retryable',
        message: `connection failed: proxy ${scheme}://127.0.0.1:${silent.port} did not open a tunnel within 300 ms (https://localhost:${tlsPort}/v1)`,
      });
      expect(silent.closed).toHaveLength(1);
      // The proxy sees the client's end of the socket: nothing is left to keep the process alive.
      await silent.closed[0];
    } finally {
      await silent.close();
    }
  });

  it.each(['http', 'socks5h'])('%s: cancelling the request while the tunnel opens closes the tunnel socket', async (scheme) => {
    const silent = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = `${scheme}://127.0.0.1:${silent.port}`;
      const client = await createOpenAIClient({ apiKey: 'sk-test', baseUrl: `https://localhost:${tlsPort}/v1`, idleTimeoutMs: 60_000, transport: 'websocket' });
      const controller = new AbortController();
      // Cancelled once the tunnel is being opened (the proxy holds the connection).
      void silent.accepted.then(() => controller.abort());
      const run = async (): Promise<void> => {
        for await (const _ of client.stream(REQUEST, controller.signal));
      };
      await expect(run()).rejects.toMatchObject({ kind: 'aborted' });
      expect(silent.closed).toHaveLength(1);
      await silent.closed[0];
    } finally {
      await silent.close();
    }
  });

  it('a tunnel opened in time outlives the handshake timeout: the next request reuses it', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      const client = await createOpenAIClient({
        apiKey: 'sk-test',
        baseUrl: `https://localhost:${tlsPort}/v1`,
        idleTimeoutMs: 5000,
        headersTimeoutMs: 300,
        caFile: path.join(dir, 'ca.pem'),
        transport: 'websocket',
      });
      expect(await text(client)).toBe('You said: over wss');
      await new Promise((r) => setTimeout(r, 600));
      expect(await text(client)).toBe('You said: over wss');
      expect(proxy.tunnels).toEqual([`localhost:${tlsPort}`]);
    } finally {
      await proxy.close();
    }
  });

  it('a tunnel to a server that never answers TLS: the handshake timeout closes it', async () => {
    const proxy = await startProxy();
    const silentServer = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      const client = await createOpenAIClient({
        apiKey: 'sk-test',
        baseUrl: `https://localhost:${silentServer.port}/v1`,
        idleTimeoutMs: 5000,
        headersTimeoutMs: 300,
        transport: 'websocket',
      });
      await expect(text(client)).rejects.toMatchObject({
        kind: 'retryable',
        message: `connection failed: proxy ${proxy.url} opened a tunnel to localhost:${silentServer.port}, but the TLS handshake inside it did not finish within 300 ms (https://localhost:${silentServer.port}/v1)`,
      });
      expect(proxy.tunnels).toEqual([`localhost:${silentServer.port}`]);
      await silentServer.closed[0];
    } finally {
      await proxy.close();
      await silentServer.close();
    }
  });
});

describe('malformed proxy credentials', () => {
  it.each(['http', 'socks5h'])('%s: a malformed percent-escape in the URL is one line naming the proxy, never the credentials', async (scheme) => {
    const proxy = await startProxy();
    const port = new URL(proxy.url).port;
    try {
      process.env.HTTPS_PROXY = `${scheme}://al%zz:hunter2@127.0.0.1:${port}`;
      await expect(text(await wsClient())).rejects.toMatchObject({
        message: `connection failed: proxy ${scheme}://127.0.0.1:${port} has a malformed %-escape in its username or password (https://localhost:${tlsPort}/v1)`,
      });
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('wss settings errors', () => {
  it('an unreadable AGENTX_CA_FILE is one fatal line naming it', async () => {
    await expect(text(await wsClient(path.join(dir, 'missing.pem')))).rejects.toMatchObject({
      kind: 'fatal',
      message: `connection failed: AGENTX_CA_FILE: cannot read ${path.join(dir, 'missing.pem')} (ENOENT) (https://localhost:${tlsPort}/v1)`,
    });
  });
});

describe('ws and wss through a SOCKS5 proxy', () => {
  it('wss via ALL_PROXY=socks5h:// with username/password: TLS verified against AGENTX_CA_FILE, the name sent to the proxy', async () => {
    const socks = await startSocks5Server({ credentials: { username: 'alice', password: 's:cret' } });
    try {
      process.env.ALL_PROXY = socks.url.replace('//', '//alice:s%3Acret@');
      const before = emu.requests.length;
      expect(await text(await wsClient(path.join(dir, 'ca.pem')))).toBe('You said: over wss');
      expect(socks.connects).toEqual([{ atyp: 'domain', host: 'localhost', port: tlsPort }]);
      expect(socks.usernames).toEqual(['alice']);
      expect(emu.requests.slice(before).map((q) => q.transport)).toEqual(['websocket']);
    } finally {
      await socks.close();
    }
  });

  it('plain ws via socks5:// (the address resolved here)', async () => {
    const socks = await startSocks5Server();
    try {
      process.env.ALL_PROXY = socks.url.replace('socks5h:', 'socks5:');
      const client = await createOpenAIClient({ apiKey: 'sk-test', baseUrl: `http://127.0.0.1:${emu.port}/v1`, idleTimeoutMs: 5000, transport: 'websocket' });
      const before = emu.requests.length;
      expect(await text(client)).toBe('You said: over wss');
      expect(socks.connects).toEqual([{ atyp: 'ipv4', host: '127.0.0.1', port: emu.port }]);
      expect(emu.requests.slice(before).map((q) => q.transport)).toEqual(['websocket']);
    } finally {
      await socks.close();
    }
  });

  it('a dead SOCKS proxy is named, its password never', async () => {
    const dead = await startSocks5Server();
    await dead.close();
    process.env.ALL_PROXY = dead.url.replace('//', '//bob:hunter2@');
    const failure = await text(await wsClient()).catch((e: unknown) => e as Error);
    expect(failure).toMatchObject({ message: `connection failed: proxy ${dead.url} could not be reached: ECONNREFUSED (https://localhost:${tlsPort}/v1)` });
  });

  it.each(['http', 'websocket'])(
    'the built CLI: a one-shot over %s through ALL_PROXY=socks5h:// with credentials, TLS with the private CA',
    async (transport) => {
      const socks = await startSocks5Server({ credentials: { username: 'alice', password: 'pw' } });
      try {
        const box = sandbox(`https://localhost:${tlsPort}/v1`, {
          AGENTX_TRANSPORT: transport,
          ALL_PROXY: socks.url.replace('//', '//alice:pw@'),
          AGENTX_CA_FILE: path.join(dir, 'ca.pem'),
        });
        const before = emu.requests.length;
        const r = await runCli(['run: echo hi'], { ...box, timeoutMs: 15_000 });
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/Ran it/);
        expect(socks.connects.length).toBeGreaterThan(0);
        expect(socks.connects.every((c) => c.atyp === 'domain' && c.host === 'localhost' && c.port === tlsPort)).toBe(true);
        expect(emu.requests.slice(before).map((q) => q.transport)).toEqual([transport, transport]);
        expect(`${r.stdout}${r.stderr}`).not.toContain('pw@');
      } finally {
        await socks.close();
      }
    },
  );
});
