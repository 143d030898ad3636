// The emulator's WebSocket mode seen with a raw `ws` client: the same events as the SSE stream,
// the same validation and scripted faults, the service's `error` event shape, the handshake's
// auth check, the connection limit and a server without the mode.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startEmulator, type Emulator, type EmulatorOptions } from './server.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const wsUrl = (e: Emulator): string => `${e.baseUrl.replace('http://', 'ws://')}/responses`;

function connect(e: Emulator, headers: Record<string, string> = { authorization: 'Bearer k' }): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(e), { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode ?? 0}`)));
    ws.once('error', reject);
  });
}

/** Sends one message and collects events up to a terminal one (or the socket closing). */
function exchange(ws: WebSocket, message: unknown): Promise<{ events: Record<string, unknown>[]; closed: boolean }> {
  return new Promise((resolve) => {
    const events: Record<string, unknown>[] = [];
    const done = (closed: boolean): void => {
      ws.off('message', onMessage);
      resolve({ events, closed });
    };
    const onMessage = (data: WebSocket.RawData): void => {
      const ev = JSON.parse((Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8')) as Record<string, unknown>;
      events.push(ev);
      if (['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(String(ev.type))) done(false);
    };
    ws.on('message', onMessage);
    ws.once('close', () => done(true));
    ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  });
}

async function start(opts: EmulatorOptions = {}): Promise<Emulator> {
  emu = await startEmulator(opts);
  return emu;
}

async function sseTypes(e: Emulator, body: unknown): Promise<string[]> {
  const res = await fetch(`${e.baseUrl}/responses`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const raw = await res.text();
  return [...raw.matchAll(/^event: (.+)$/gm)].map((m) => m[1] ?? '');
}

describe('emulator WebSocket mode', () => {
  it('answers response.create with the same events as the SSE stream, and chains on the socket', async () => {
    const e = await start();
    const ws = await connect(e);
    const first = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'hello' });
    const types = first.events.map((ev) => ev.type);
    expect(types).toEqual(await sseTypes(e, { model: 'gpt-5', input: 'hello', stream: true }));
    const done = first.events.at(-1) as { response: { id: string } };
    const second = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'again', previous_response_id: done.response.id });
    expect(second.events.at(-1)?.type).toBe('response.completed');
    expect(e.requests.map((q) => [q.transport, q.status])).toEqual([
      ['websocket', 200],
      ['http', 200],
      ['websocket', 200],
    ]);
    expect(e.webSocketConnections()).toBe(1);
    ws.close();
  });

  it('validates like POST: a bad body is an error event with status 400, and the socket stays usable', async () => {
    const e = await start();
    const ws = await connect(e);
    const bad = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x', temperature: 'hot' });
    expect(bad.events).toEqual([
      expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ type: 'invalid_request_error' }) as unknown }),
    ]);
    const missing = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x', previous_response_id: 'resp_nope' });
    expect(missing.events[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found' } });
    const unknown = await exchange(ws, { type: 'session.update' });
    expect(unknown.events[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'unknown_event_type' } });
    const notJson = await exchange(ws, '{nope');
    expect(notJson.events[0]).toMatchObject({ type: 'error', status: 400 });
    expect((await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'ok' })).events.at(-1)?.type).toBe('response.completed');
    ws.close();
  });

  it('a cut step drops the socket mid-stream; an http_error step is an error event with its status', async () => {
    const e = await start();
    e.enqueue({ kind: 'http_error', status: 429, code: 'rate_limit_exceeded' }, { kind: 'cut', afterText: 'half' });
    const ws = await connect(e);
    expect((await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x' })).events[0]).toMatchObject({
      type: 'error',
      status: 429,
      error: { code: 'rate_limit_exceeded' },
    });
    const cut = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x' });
    expect(cut.closed).toBe(true);
    expect(cut.events.map((ev) => ev.type)).toContain('response.output_text.delta');
    expect(cut.events.some((ev) => ev.type === 'response.completed')).toBe(false);
  });

  it('the connection limit: an old connection gets websocket_connection_limit_reached and is closed', async () => {
    const e = await start({ websocketLimitMs: 50 });
    const ws = await connect(e);
    await new Promise((r) => setTimeout(r, 80));
    const limited = await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x' });
    expect(limited.events[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'websocket_connection_limit_reached' } });
    await new Promise((r) => (ws.readyState === WebSocket.CLOSED ? r(undefined) : ws.once('close', r)));
    expect(e.requests).toEqual([]);
  });

  it('refuses a handshake without a key (401) and, with websocket: false, any upgrade (404)', async () => {
    const e = await start();
    await expect(connect(e, {})).rejects.toThrow('upgrade refused: 401');
    await e.close();
    const off = await start({ websocket: false });
    await expect(connect(off)).rejects.toThrow('upgrade refused: 404');
  });

  it('azure mode checks api-key and api-version on the handshake', async () => {
    const e = await start({ azure: { apiVersion: 'v9' } });
    await expect(connect(e)).rejects.toThrow('upgrade refused: 401');
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(`${wsUrl(e)}?api-version=v9`, { headers: { 'api-key': 'k' } });
      s.once('open', () => resolve(s));
      s.once('error', reject);
    });
    expect((await exchange(ws, { type: 'response.create', model: 'gpt-5', input: 'x' })).events.at(-1)?.type).toBe('response.completed');
    expect(e.requests[0]?.query['api-version']).toBe('v9');
    ws.close();
  });
});
