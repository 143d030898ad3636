// The node:http transport through a real forward proxy written here (CONNECT for https,
// absolute-URI requests for http), with TLS terminated by a throwaway CA made with openssl.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { startSilentServer } from '../../test/support/silent-server.ts';
import { makeLocalhostCa, tlsFront } from '../../test/support/tls.ts';
import { createOpenAIClient } from './client.ts';
import { classifyFailure } from './errors.ts';
import { createNodeFetch } from './node-fetch.ts';

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

interface Proxy {
  url: string;
  tunnels: string[];
  forwarded: string[];
  auth: (string | undefined)[];
  close(): Promise<void>;
}

/** A minimal forward proxy: CONNECT tunnels and absolute-URI forwarding, recording what it did. */
async function startProxy(opts: { refuse?: number; requireAuth?: boolean } = {}): Promise<Proxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const auth: (string | undefined)[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    auth.push(req.headers['proxy-authorization']);
    forwarded.push(req.url ?? '');
    if (opts.requireAuth === true) {
      req.resume();
      res.writeHead(407, 'Proxy Authentication Required', { 'proxy-authenticate': 'Basic realm="corp"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
    sockets.add(client);
    auth.push(req.headers['proxy-authorization']);
    tunnels.push(req.url ?? '');
    if (opts.refuse !== undefined) {
      client.end(`HTTP/1.1 ${opts.refuse} Forbidden\r\n\r\n`);
      return;
    }
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
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    forwarded,
    auth,
    close: () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

let dir = '';
let caFile = '';
let tlsServer: tls.Server;
let tlsPort = 0;
let emu: Emulator;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'agentx-proxy-'));
  const certificate = makeLocalhostCa(dir, 'agentx test CA');
  caFile = certificate.caFile;
  emu = await startEmulator();
  // TLS in front of the emulator: the private CA's certificate for localhost, plaintext behind.
  ({ server: tlsServer, port: tlsPort } = await tlsFront(certificate, emu.port));
});

afterAll(async () => {
  await new Promise((r) => tlsServer.close(r));
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

const saved: Record<string, string | undefined> = {};
beforeEach(() => {
  for (const v of PROXY_VARS) {
    saved[v] = process.env[v];
    delete process.env[v];
  }
});
afterEach(() => {
  for (const v of PROXY_VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

const client = (baseURL: string, caFile?: string): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, fetch: createNodeFetch({ caFile }) });

async function oneTurn(c: OpenAI): Promise<string> {
  const stream = await c.responses.create({ model: 'gpt-5', input: 'say hi', stream: true });
  let text = '';
  for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
  return text;
}

describe('proxies and a private CA', () => {
  it('https through HTTPS_PROXY: a CONNECT tunnel, TLS verified against AGENTX_CA_FILE, credentials only to the proxy', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url.replace('http://', 'http://alice:s%3Acret@');
      const before = emu.requests.length;
      const text = await oneTurn(client(`https://localhost:${tlsPort}/v1`, caFile));
      expect(text.length).toBeGreaterThan(0);
      expect(proxy.tunnels).toEqual([`localhost:${tlsPort}`]);
      expect(proxy.auth).toEqual([`Basic ${Buffer.from('alice:s:cret').toString('base64')}`]);
      expect(emu.requests.length).toBe(before + 1);
      expect(emu.requests.at(-1)?.hasAuth).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('without the private CA the certificate is refused (the tunnel itself worked)', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      const err = await client(`https://localhost:${tlsPort}/v1`)
        .models.list()
        .catch((e: unknown) => e);
      expect(classifyFailure(err, 'connection').message).toMatch(
        /^connection failed: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)/,
      );
      expect(proxy.tunnels).toEqual([`localhost:${tlsPort}`]);
    } finally {
      await proxy.close();
    }
  });

  it('http through HTTP_PROXY: an absolute-URI request, the API key passed on to the server', async () => {
    const proxy = await startProxy();
    try {
      process.env.http_proxy = proxy.url;
      const text = await oneTurn(client(emu.baseUrl));
      expect(text.length).toBeGreaterThan(0);
      expect(proxy.forwarded).toEqual([`${emu.baseUrl}/responses`]);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('NO_PROXY bypasses the proxy (here by CIDR and port)', async () => {
    const proxy = await startProxy();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      process.env.HTTP_PROXY = proxy.url;
      process.env.no_proxy = `127.0.0.0/8:${emu.port}`;
      expect((await oneTurn(client(emu.baseUrl))).length).toBeGreaterThan(0);
      expect(proxy.forwarded).toEqual([]);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that refuses the tunnel, and a dead proxy, give one line naming the proxy (never its password)', async () => {
    const proxy = await startProxy({ refuse: 403 });
    try {
      process.env.HTTPS_PROXY = proxy.url.replace('http://', 'http://bob:hunter2@');
      const refused = classifyFailure(
        await client(`https://localhost:${tlsPort}/v1`, caFile)
          .models.list()
          .catch((e: unknown) => e),
        'connection',
      ).message;
      expect(refused).toBe(`connection failed: proxy ${proxy.url} refused the tunnel to localhost:${tlsPort} (403 Forbidden)`);
    } finally {
      await proxy.close();
    }
    const dead = await startProxy();
    const deadUrl = dead.url;
    await dead.close();
    process.env.HTTPS_PROXY = deadUrl.replace('http://', 'http://bob:hunter2@');
    const unreachable = classifyFailure(
      await client(`https://localhost:${tlsPort}/v1`)
        .models.list()
        .catch((e: unknown) => e),
      'connection',
    ).message;
    expect(unreachable).toBe(`connection failed: proxy ${deadUrl} could not be reached: ECONNREFUSED`);
    expect(unreachable).not.toContain('hunter2');
  });

  it('http targets (absolute-URI requests): a dead proxy and a 407 from the proxy give one line naming the proxy', async () => {
    const dead = await startProxy();
    const deadUrl = dead.url;
    await dead.close();
    process.env.HTTP_PROXY = deadUrl.replace('http://', 'http://bob:hunter2@');
    const unreachable = classifyFailure(
      await client(emu.baseUrl)
        .models.list()
        .catch((e: unknown) => e),
      'connection',
    ).message;
    expect(unreachable).toBe(`connection failed: proxy ${deadUrl} could not be reached: ECONNREFUSED`);
    const strict = await startProxy({ requireAuth: true });
    try {
      process.env.HTTP_PROXY = strict.url.replace('http://', 'http://bob:hunter2@');
      const refused = classifyFailure(
        await client(emu.baseUrl)
          .models.list()
          .catch((e: unknown) => e),
        'connection',
      ).message;
      expect(refused).toBe(`connection failed: proxy ${strict.url} refused the request to 127.0.0.1:${emu.port} (407 Proxy Authentication Required)`);
      expect(strict.forwarded).toEqual([`${emu.baseUrl}/models`]);
    } finally {
      await strict.close();
    }
  });

  it('an unsupported proxy scheme and an unreadable CA file are one-line errors', async () => {
    process.env.ALL_PROXY = 'socks4://127.0.0.1:1080';
    const socks = classifyFailure(
      await client(`https://localhost:${tlsPort}/v1`)
        .models.list()
        .catch((e: unknown) => e),
      'connection',
    ).message;
    expect(socks).toBe('connection failed: ALL_PROXY: socks4 proxies are not supported (use an http://, socks5:// or socks5h:// proxy)');
    delete process.env.ALL_PROXY;
    const ca = classifyFailure(
      await client(`https://localhost:${tlsPort}/v1`, path.join(dir, 'missing.pem'))
        .models.list()
        .catch((e: unknown) => e),
      'connection',
    ).message;
    expect(ca).toBe(`connection failed: AGENTX_CA_FILE: cannot read ${path.join(dir, 'missing.pem')} (ENOENT)`);
  });

  // The proxy opens the tunnel; the server behind it never answers the TLS ClientHello. The
  // tunnel and the TLS inside it get half the headers timeout, so the proxy is named (not "no
  // response headers") and the tunnel socket is closed, not left holding the process.
  it('a tunnel whose TLS handshake never finishes: the request ends at its bound, one line naming the proxy, the socket closed', async () => {
    const proxy = await startProxy();
    const silent = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = proxy.url.replace('http://', 'http://bob:hunter2@');
      const base = `https://localhost:${silent.port}/v1`;
      const model = await createOpenAIClient({ apiKey: 'sk-test', baseUrl: base, idleTimeoutMs: 5000, headersTimeoutMs: 600, transport: 'http' });
      const run = async (): Promise<void> => {
        for await (const _ of model.stream(
          { model: 'gpt-5', instructions: '', input: [], stream: true, store: true, tools: [] },
          new AbortController().signal,
        ));
      };
      await expect(run()).rejects.toMatchObject({
        kind: 'retryable',
        message: `connection failed: proxy ${proxy.url} opened a tunnel to localhost:${silent.port}, but the TLS handshake inside it did not finish within 300 ms (${base})`,
      });
      expect(proxy.tunnels).toEqual([`localhost:${silent.port}`]);
      expect(silent.closed).toHaveLength(1);
      await silent.closed[0];
    } finally {
      await proxy.close();
      await silent.close();
    }
  });

  it('cancelling a request whose TLS handshake inside the tunnel stalls ends it at once and closes the tunnel socket', async () => {
    const proxy = await startProxy();
    const silent = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = proxy.url;
      const model = await createOpenAIClient({ apiKey: 'sk-test', baseUrl: `https://localhost:${silent.port}/v1`, idleTimeoutMs: 60_000, transport: 'http' });
      const controller = new AbortController();
      // Cancelled once the ClientHello has reached the server behind the tunnel.
      void silent.accepted.then(() => setTimeout(() => controller.abort(), 50));
      const run = async (): Promise<void> => {
        for await (const _ of model.stream({ model: 'gpt-5', instructions: '', input: [], stream: true, store: true, tools: [] }, controller.signal));
      };
      await expect(run()).rejects.toMatchObject({ kind: 'aborted', message: 'request cancelled' });
      await silent.closed[0];
    } finally {
      await proxy.close();
      await silent.close();
    }
  });
});
