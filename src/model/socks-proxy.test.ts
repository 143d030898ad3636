// The node:http transport through a real SOCKS5 server (test/support/socks5-server.ts) over real
// sockets: plain http and https (TLS verified against a private CA made here with openssl, in
// front of the emulator) inside the tunnel; socks5h:// sending the name, socks5:// the address
// resolved here; username/password accepted and refused; NO_PROXY; a dead and a refusing proxy
// named in one line without credentials.
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type tls from 'node:tls';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { startSilentServer } from '../../test/support/silent-server.ts';
import { startSocks5Server, type Socks5Server } from '../../test/support/socks5-server.ts';
import { makeLocalhostCa, tlsFront } from '../../test/support/tls.ts';
import { createOpenAIClient } from './client.ts';
import { classifyFailure } from './errors.ts';
import { createNodeFetch } from './node-fetch.ts';

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

let dir = '';
let caFile = '';
let tlsServer: tls.Server;
let tlsPort = 0;
let emu: Emulator;
let socks: Socks5Server | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'agentx-socks-'));
  const certificate = makeLocalhostCa(dir, 'agentx socks test CA');
  caFile = certificate.caFile;
  emu = await startEmulator();
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
afterEach(async () => {
  await socks?.close();
  socks = undefined;
  for (const v of PROXY_VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

const client = (baseURL: string, ca?: string): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, fetch: createNodeFetch({ caFile: ca }) });

async function oneTurn(c: OpenAI): Promise<string> {
  const stream = await c.responses.create({ model: 'gpt-5', input: 'say hi', stream: true });
  let text = '';
  for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
  return text;
}

async function failure(c: OpenAI): Promise<string> {
  return classifyFailure(await c.models.list().catch((e: unknown) => e), 'connection').message;
}

describe('the API through a SOCKS5 proxy', () => {
  it('http through ALL_PROXY=socks5h://: the name goes to the proxy, the request inside the tunnel', async () => {
    socks = await startSocks5Server();
    process.env.ALL_PROXY = socks.url;
    const before = emu.requests.length;
    expect(await oneTurn(client(`http://localhost:${emu.port}/v1`))).toBe('You said: say hi');
    expect(socks.connects).toEqual([{ atyp: 'domain', host: 'localhost', port: emu.port }]);
    expect(socks.methods).toEqual([[0]]);
    expect(emu.requests.length).toBe(before + 1);
  });

  it('https through HTTPS_PROXY=socks5h://: TLS end to end inside the tunnel, verified against AGENTX_CA_FILE', async () => {
    socks = await startSocks5Server();
    process.env.HTTPS_PROXY = socks.url;
    expect(await oneTurn(client(`https://localhost:${tlsPort}/v1`, caFile))).toBe('You said: say hi');
    expect(socks.connects).toEqual([{ atyp: 'domain', host: 'localhost', port: tlsPort }]);
  });

  it('socks5:// resolves the name here and sends the address (curl’s meaning)', async () => {
    socks = await startSocks5Server();
    process.env.ALL_PROXY = socks.url.replace('socks5h:', 'socks5:');
    const { address, family } = await lookup('localhost');
    expect(await oneTurn(client(`https://localhost:${tlsPort}/v1`, caFile))).toBe('You said: say hi');
    expect(socks.connects).toEqual([{ atyp: family === 4 ? 'ipv4' : 'ipv6', host: family === 4 ? address : socks.connects[0]?.host, port: tlsPort }]);
    expect(socks.connects[0]?.atyp).not.toBe('domain');
  });

  it('credentials in the URL: username/password offered and accepted; the API key still reaches the server', async () => {
    socks = await startSocks5Server({ credentials: { username: 'alice', password: 's:cret' } });
    process.env.ALL_PROXY = socks.url.replace('//', '//alice:s%3Acret@');
    const before = emu.requests.length;
    expect(await oneTurn(client(`https://localhost:${tlsPort}/v1`, caFile))).toBe('You said: say hi');
    expect(socks.methods).toEqual([[0, 2]]);
    expect(socks.usernames).toEqual(['alice']);
    expect(emu.requests.slice(before).map((q) => q.hasAuth)).toEqual([true]);
  });

  it('refused credentials, and none where the proxy wants them: one line naming the proxy, never the password', async () => {
    socks = await startSocks5Server({ credentials: { username: 'alice', password: 'right' } });
    process.env.ALL_PROXY = socks.url.replace('//', '//alice:hunter2@');
    const refused = await failure(client(`https://localhost:${tlsPort}/v1`, caFile));
    expect(refused).toBe(`connection failed: proxy ${socks.url} refused the username and password`);
    process.env.ALL_PROXY = socks.url;
    const none = await failure(client(`http://localhost:${emu.port}/v1`));
    expect(none).toBe(`connection failed: proxy ${socks.url} accepts no connection without authentication (no username and password in the proxy URL)`);
    expect(socks.connects).toEqual([]);
  });

  it('a username/password reply with a version other than RFC 1929’s 1: one line naming the proxy, no request sent', async () => {
    socks = await startSocks5Server({ credentials: { username: 'alice', password: 'pw' }, authReplyVersion: 5 });
    process.env.ALL_PROXY = socks.url.replace('//', '//alice:pw@');
    const line = await failure(client(`http://localhost:${emu.port}/v1`));
    expect(line).toBe(`connection failed: proxy ${socks.url} did not answer the username and password as RFC 1929 asks (version 5, not 1)`);
    expect(socks.connects).toEqual([]);
  });

  it('a malformed %-escape in the proxy URL’s credentials: one line naming the proxy, nothing sent to it', async () => {
    socks = await startSocks5Server();
    process.env.ALL_PROXY = socks.url.replace('//', '//al%zz:hunter2@');
    const line = await failure(client(`http://localhost:${emu.port}/v1`));
    expect(line).toBe(`connection failed: proxy ${socks.url} has a malformed %-escape in its username or password`);
    expect(socks.methods).toEqual([]);
  });

  it('a refused CONNECT names the proxy and what the SOCKS reply means', async () => {
    socks = await startSocks5Server({ refuseWith: 2 });
    process.env.HTTPS_PROXY = socks.url.replace('//', '//bob:hunter2@');
    const refused = await failure(client(`https://localhost:${tlsPort}/v1`, caFile));
    expect(refused).toBe(`connection failed: proxy ${socks.url} refused the connection to localhost:${tlsPort} (2: connection not allowed by ruleset)`);
  });

  it('a dead proxy is one line naming it (no credentials), for http and https targets', async () => {
    const dead = await startSocks5Server();
    await dead.close();
    process.env.ALL_PROXY = dead.url.replace('//', '//bob:hunter2@');
    for (const base of [`http://localhost:${emu.port}/v1`, `https://localhost:${tlsPort}/v1`]) {
      const line = await failure(client(base, caFile));
      expect(line).toBe(`connection failed: proxy ${dead.url} could not be reached: ECONNREFUSED`);
    }
  });

  it('socks5:// with a name that does not resolve here, and a server that is not a SOCKS proxy: one line each', async () => {
    socks = await startSocks5Server();
    process.env.ALL_PROXY = socks.url.replace('socks5h:', 'socks5:');
    const unresolved = await failure(client('http://nowhere.invalid/v1'));
    expect(unresolved).toBe(
      `connection failed: proxy ${process.env.ALL_PROXY} could not be used: nowhere.invalid did not resolve here (ENOTFOUND; socks5h:// lets the proxy resolve names)`,
    );
    expect(socks.connects).toEqual([]);
    // The emulator is an HTTP server: it answers the greeting with an HTTP error.
    process.env.ALL_PROXY = `socks5h://127.0.0.1:${emu.port}`;
    expect(await failure(client(`http://localhost:${emu.port}/v1`))).toBe(
      `connection failed: proxy socks5h://127.0.0.1:${emu.port} did not answer as a SOCKS5 proxy`,
    );
  });

  it('a proxy that never answers the handshake: cancelling the request ends it (no hang, the socket closed)', async () => {
    const silent = await startSilentServer();
    try {
      process.env.ALL_PROXY = `socks5h://127.0.0.1:${silent.port}`;
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const err = await client(`http://localhost:${emu.port}/v1`)
        .models.list({ signal: controller.signal })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
      expect(silent.closed).toHaveLength(1);
      await silent.closed[0];
    } finally {
      await silent.close();
    }
  });

  it('NO_PROXY sends matching servers directly: the proxy sees nothing', async () => {
    socks = await startSocks5Server();
    process.env.ALL_PROXY = socks.url;
    process.env.NO_PROXY = 'example.com,localhost';
    expect(await oneTurn(client(`https://localhost:${tlsPort}/v1`, caFile))).toBe('You said: say hi');
    expect(await oneTurn(client(`http://localhost:${emu.port}/v1`))).toBe('You said: say hi');
    expect(socks.connects).toEqual([]);
    expect(socks.methods).toEqual([]);
  });

  it('socks4 and socks4a are refused in one line', async () => {
    for (const scheme of ['socks4', 'socks4a', 'socks']) {
      process.env.ALL_PROXY = `${scheme}://127.0.0.1:1080`;
      expect(await failure(client(`https://localhost:${tlsPort}/v1`))).toBe(
        `connection failed: ALL_PROXY: ${scheme} proxies are not supported (use an http://, socks5:// or socks5h:// proxy)`,
      );
    }
  });

  // The SOCKS twin of proxy.test.ts's case: the proxy connects, the server behind it never
  // answers the TLS ClientHello; half the headers timeout bounds the tunnel and the TLS in it.
  it('a tunnel whose TLS handshake never finishes: the request ends at its bound, one line naming the proxy, the socket closed', async () => {
    socks = await startSocks5Server();
    const silent = await startSilentServer();
    try {
      process.env.HTTPS_PROXY = socks.url.replace('//', '//bob:hunter2@');
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
        message: `connection failed: proxy ${socks.url} opened a tunnel to localhost:${silent.port}, but the TLS handshake inside it did not finish within 300 ms (${base})`,
      });
      expect(socks.connects).toEqual([{ atyp: 'domain', host: 'localhost', port: silent.port }]);
      expect(silent.closed).toHaveLength(1);
      await silent.closed[0];
    } finally {
      await silent.close();
    }
  });
});
