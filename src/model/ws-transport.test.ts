// The WebSocket transport against the emulator's WebSocket mode (real sockets, real events):
// a tool loop on one connection, a socket dropped mid-stream, the 60-minute limit, a refused
// upgrade falling back to HTTP, and the socket through a real CONNECT proxy.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../test/emulator/server.ts';
import { createOpenAIClient, type ClientOptions } from './client.ts';
import { refusesWebSocket, wantsWebSocket } from './transport.ts';
import { ModelError } from './errors.ts';
import { socketUrl } from './ws-transport.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from './types.ts';

let emu: Emulator | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await emu?.close();
  emu = undefined;
});

const SHELL_TOOL = {
  type: 'function' as const,
  name: 'shell',
  description: 'run',
  strict: false,
  parameters: { type: 'object', properties: { command: { type: 'string' } } },
};

function request(input: ModelRequest['input'], previous?: string): ModelRequest {
  return {
    model: 'gpt-5',
    instructions: 'sys',
    store: true,
    stream: true,
    tools: [SHELL_TOOL],
    input,
    ...(previous ? { previous_response_id: previous } : {}),
  };
}

const user = (text: string): ModelRequest['input'] => [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }];

async function completed(client: ModelClient, req: ModelRequest): Promise<CompletedResponse> {
  for await (const ev of client.stream(req, new AbortController().signal)) if (ev.type === 'completed') return ev.response;
  throw new Error('no completed response');
}

async function setup(
  emuOpts: EmulatorOptions = {},
  clientOpts: Partial<ClientOptions> = {},
): Promise<{ emu: Emulator; client: ModelClient; support: string[] }> {
  emu = await startEmulator(emuOpts);
  const support: ('yes' | 'no')[] = [];
  const client = await createOpenAIClient({
    apiKey: 'sk-test',
    baseUrl: emu.baseUrl,
    idleTimeoutMs: 5000,
    transport: 'websocket',
    websocketSupport: { get: () => support.at(-1) ?? 'unknown', set: (s) => support.push(s) },
    ...clientOpts,
  });
  return { emu, client, support };
}

describe('transport choice', () => {
  it('auto: WebSocket for api.openai.com and for a server that accepted it, HTTP otherwise', () => {
    expect(wantsWebSocket('auto', 'https://api.openai.com/v1', 'unknown')).toBe(true);
    expect(wantsWebSocket('auto', 'https://api.openai.com/v1', 'no')).toBe(false);
    expect(wantsWebSocket('auto', 'http://localhost:11434/v1', 'unknown')).toBe(false);
    expect(wantsWebSocket('auto', 'http://localhost:11434/v1', 'yes')).toBe(true);
    expect(wantsWebSocket('http', 'https://api.openai.com/v1', 'yes')).toBe(false);
    expect(wantsWebSocket('websocket', 'http://localhost/v1', 'no')).toBe(true);
  });

  it('maps the base URL to ws(s)://…/responses with the query', () => {
    expect(socketUrl('https://api.openai.com/v1', {}).href).toBe('wss://api.openai.com/v1/responses');
    expect(socketUrl('http://127.0.0.1:9/v1/', { 'api-version': 'x' }).href).toBe('ws://127.0.0.1:9/v1/responses?api-version=x');
  });
});

describe('WebSocket transport', () => {
  it('runs a tool loop on one connection, chaining with previous_response_id', async () => {
    const { emu, client, support } = await setup();
    emu.enqueue(
      { kind: 'function', name: 'shell', arguments: '{"command":"ls"}' },
      { kind: 'function', name: 'shell', arguments: '{"command":"pwd"}' },
      { kind: 'text', text: 'done' },
    );
    let r = await completed(client, request(user('go')));
    for (let i = 0; i < 2; i++) {
      expect(r.toolCalls).toHaveLength(1);
      const call = r.toolCalls[0];
      if (call?.type !== 'function_call') throw new Error('expected a function call');
      r = await completed(client, request([{ type: 'function_call_output', call_id: call.call_id, output: 'ok' }], r.id));
    }
    expect(r.text).toBe('done');
    expect(emu.requests.map((q) => [q.transport, q.status])).toEqual([
      ['websocket', 200],
      ['websocket', 200],
      ['websocket', 200],
    ]);
    expect(emu.webSocketConnections()).toBe(1);
    expect(emu.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(support).toEqual(['yes']);
  });

  it('a socket dropped mid-stream is a retryable cut with the partial text; the next request reconnects', async () => {
    const { emu, client } = await setup();
    emu.enqueue({ kind: 'cut', afterText: 'PART' }, { kind: 'text', text: 'whole' });
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const ev of client.stream(request(user('go')), new AbortController().signal)) if (ev.type === 'text_delta') seen.push(ev.delta);
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).kind).toBe('retryable');
    expect((failure as ModelError).message).toMatch(/cut off/);
    expect((failure as ModelError).details.partialText).toBe(seen.join(''));
    expect((await completed(client, request(user('again')))).text).toBe('whole');
    expect(emu.webSocketConnections()).toBe(2);
  });

  it('a socket closed before the request got any event is reopened and the request sent again, once', async () => {
    const { emu, client } = await setup();
    // A raw step with no bytes that drops the connection: as a server closing an idle socket as we send.
    emu.enqueue({ kind: 'raw', body: '', cut: true });
    expect((await completed(client, request(user('resent')))).text).toBe('You said: resent');
    expect(emu.requests.map((q) => q.transport)).toEqual(['websocket', 'websocket']);
    expect(emu.webSocketConnections()).toBe(2);
    // Twice in a row is not papered over: the second drop is a retryable cut for the engine.
    emu.enqueue({ kind: 'raw', body: '', cut: true }, { kind: 'raw', body: '', cut: true });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'retryable', message: expect.stringMatching(/cut off/) as unknown });
  });

  it('the connection-limit error reconnects and sends the same request once more', async () => {
    const { emu, client } = await setup();
    await completed(client, request(user('first')));
    // The first connection is now older than the limit; a new one is not.
    emu.setWebSocketLimit(150);
    await new Promise((r) => setTimeout(r, 200));
    expect((await completed(client, request(user('second')))).text).toBe('You said: second');
    expect(emu.webSocketConnections()).toBe(2);
    expect(emu.requests.filter((q) => q.status === 200)).toHaveLength(2);
  });

  it('an HTTP error arrives as an error event and classifies like the HTTP one', async () => {
    const { emu, client } = await setup();
    emu.enqueue({ kind: 'http_error', status: 400, code: 'previous_response_not_found', message: 'gone' });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'chain_broken' });
    emu.enqueue({ kind: 'http_error', status: 503 });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'retryable', details: { status: 503 } });
    // A stream error event without a status (nested as some servers send it) reads like the SSE one.
    emu.enqueue({ kind: 'raw', body: 'data: {"type":"error","error":{"code":"server_error","message":"the model crashed"}}\n\n' });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'retryable', message: 'the model crashed (server_error)' });
    expect((await completed(client, request(user('ok')))).text).toBe('You said: ok');
    expect(emu.webSocketConnections()).toBe(1);
  });

  it('an error event without a status, before any event of the request, with a bad-request type: the 400 it stands for', async () => {
    const { emu, client } = await setup({ websocketErrorStatus: false });
    emu.enqueue({ kind: 'http_error', status: 400, code: 'previous_response_not_found', message: 'gone' });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'chain_broken', details: { status: 400 } });
    emu.enqueue({ kind: 'http_error', status: 400, message: 'unsupported tool type: shell' });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'fatal', details: { status: 400 } });
    // After the response began, the same error is one of the stream: no status is made up.
    emu.enqueue({
      kind: 'raw',
      body: 'data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}\n\ndata: {"type":"error","error":{"type":"invalid_request_error","code":"bad","message":"late"}}\n\n',
    });
    const late = await completed(client, request(user('x'))).catch((e: unknown) => e as ModelError);
    expect(late).toMatchObject({ kind: 'fatal', message: 'late (bad)' });
    expect((late as ModelError).details.status).toBeUndefined();
    expect((await completed(client, request(user('ok')))).text).toBe('You said: ok');
  });

  it('a refused upgrade falls back to HTTP for the session and is remembered', async () => {
    const { emu, client, support } = await setup({ websocket: false });
    expect((await completed(client, request(user('one')))).text).toBe('You said: one');
    expect((await completed(client, request(user('two')))).text).toBe('You said: two');
    expect(emu.requests.map((q) => q.transport)).toEqual(['http', 'http']);
    expect(support).toEqual(['no']);
  });

  it('an upgrade refused for a bad key is reported as HTTP reports it, and not remembered as no WebSocket', async () => {
    // An Azure-mode emulator refuses the Bearer key on the upgrade and on POST alike.
    const { emu, client, support } = await setup({ azure: {} });
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ kind: 'fatal', details: { status: 401 } });
    expect(emu.requests).toEqual([]);
    expect(emu.webSocketConnections()).toBe(0);
    expect(support).toEqual([]);
    // A second such refusal keeps the session on HTTP (no handshake before every request); still nothing remembered.
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ details: { status: 401 } });
    expect(emu.webSocketAttempts()).toBe(2);
    await expect(completed(client, request(user('x')))).rejects.toMatchObject({ details: { status: 401 } });
    expect(emu.webSocketAttempts()).toBe(2);
    expect(support).toEqual([]);
    expect(refusesWebSocket(401)).toBe(false);
    expect(refusesWebSocket(404)).toBe(true);
  });

  it('goes through a CONNECT proxy (HTTP_PROXY for ws://)', async () => {
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    const open = new Set<net.Socket>();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
      open.add(client);
      tunnels.push(req.url ?? '');
      const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
      const up = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        up.pipe(client);
        client.pipe(up);
      });
      up.on('error', () => client.destroy());
      client.on('error', () => up.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          for (const s of open) s.destroy();
          proxy.close(() => r());
        }),
    );
    const saved = { http: process.env.HTTP_PROXY, no: process.env.NO_PROXY };
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    delete process.env.NO_PROXY;
    cleanups.push(() => {
      if (saved.http === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved.http;
      if (saved.no !== undefined) process.env.NO_PROXY = saved.no;
    });
    const { emu, client } = await setup();
    expect((await completed(client, request(user('via proxy')))).text).toBe('You said: via proxy');
    expect(tunnels).toEqual([`127.0.0.1:${emu.port}`]);
    expect(emu.requests.map((q) => q.transport)).toEqual(['websocket']);
  });
});
