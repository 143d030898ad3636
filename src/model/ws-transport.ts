// The Responses API's WebSocket mode as a source of raw stream events (docs/transport.md): one
// connection per agentx session (per client), each request a `response.create` message whose
// answer is the same `response.*` events the SSE stream carries. client.ts reads those events
// exactly as it reads the SSE ones, so the engine, the journal and recovery never know which
// transport ran.
//
// - The `ws` package is loaded on the first WebSocket request only (startup over HTTP unchanged).
// - A refused upgrade (an HTTP answer instead of 101) is an UpgradeRefused: client.ts falls back
//   to HTTP for the session.
// - `websocket_connection_limit_reached` (a connection lives at most 60 minutes) before any
//   output: reconnect and send the same request again, once. The request never ran.
// - A socket that drops mid-stream is a retryable "stream was cut off", like a cut SSE stream;
//   the next request opens a new connection.
// - Idle between requests the socket is unref'd: a finished one-shot exits without closing it.
import type { ClientRequestArgs, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import { proxyFor } from '../lib/proxy-env.ts';
import { openTunnelSocket } from '../lib/proxy-tunnel.ts';
import { isRecord } from '../lib/guards.ts';
import { ModelError } from './errors.ts';
import { extraCa } from './node-fetch.ts';
import type { ModelRequest } from './types.ts';

export const CONNECTION_LIMIT_CODE = 'websocket_connection_limit_reached';

/** The server answered the upgrade with an ordinary HTTP response: it does not speak WebSocket here. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`the server refused the WebSocket upgrade (${status})`);
  }
}

export interface SocketOptions {
  /** The HTTP base URL (…/v1); the socket goes to ws(s)://same/responses. */
  baseUrl: string;
  /** Query parameters of every request (Azure's api-version). */
  query: Record<string, string>;
  /** Handshake headers: auth and the configured extra headers. */
  headers: Record<string, string>;
  /** For error messages: the endpoint without credentials. */
  endpoint: string;
  /** AGENTX_CA_FILE as configured: a private CA trusted for wss (node-fetch.ts extraCa). */
  caFile?: string;
  handshakeTimeoutMs: number;
  /** An error event carrying an HTTP status becomes the SDK's APIError, so it classifies like the HTTP one. */
  apiError: (status: number, body: unknown) => Error;
}

export interface ResponsesSocket {
  /** Sends one response.create and yields its raw events, ending after the terminal one. */
  events(request: ModelRequest, signal: AbortSignal): AsyncGenerator<unknown>;
  close(): void;
}

export function socketUrl(baseUrl: string, query: Record<string, string>): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/responses`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** Error types that name a refused request (a 400): OpenAI's, and vLLM's (the Python exception's name). */
const BAD_REQUEST_TYPES = new Set(['invalid_request_error', 'BadRequestError']);

/**
 * The HTTP status an `error` event without one stands for. OpenAI's schema makes `status`
 * optional, and a server may send a refusal of the request as it sends an error of the stream,
 * the error alone. One that arrives before the request's first event, with a bad-request type,
 * is the refusal the same request over HTTP gets as a 400: classified like it (a refused
 * built-in tool type, engine/tool-fallback.ts; a lost previous response). Anything else stays an
 * error of the stream.
 */
export function refusalStatus(error: Record<string, unknown>, sawEvent: boolean): number | undefined {
  if (sawEvent || typeof error.type !== 'string') return undefined;
  return BAD_REQUEST_TYPES.has(error.type) ? 400 : undefined;
}

/** The socket closed under a request; a cut stream unless it happened before any event. */
class SocketClosed extends Error {
  constructor(readonly code: number) {
    super(`WebSocket closed${code ? `, code ${code}` : ''}`);
  }

  asCut(): ModelError {
    return new ModelError(`the stream was cut off (${this.message})`, 'retryable');
  }
}

/** One request's events as they arrive, read with `await next()`; a failure ends it. */
class EventQueue {
  private items: unknown[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  push(item: unknown): void {
    this.items.push(item);
    this.wake?.();
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
  }

  async next(): Promise<unknown> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) return item;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

function textOf(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

type WsModule = typeof import('ws');
let wsModule: WsModule | undefined;

async function loadWs(): Promise<WsModule> {
  wsModule ??= await import('ws');
  return wsModule;
}

/**
 * ws's createConnection, async: through a tunnel when a proxy applies (callback form, see
 * node:http). ws's handshakeTimeout and its terminate() on cancel reach only the socket handed
 * back, so openTunnelSocket bounds the tunnel and the TLS inside it by the same timeout and the
 * caller's signal.
 */
function tunnelConnection(
  proxy: URL,
  url: URL,
  ca: string[] | undefined,
  bounds: { signal: AbortSignal; timeoutMs: number },
  onTunnel: (raw: Socket) => void,
): (opts: ClientRequestArgs, done: (err: Error | null, s?: Duplex) => void) => undefined {
  return (_opts, done) => {
    openTunnelSocket(proxy, url, { ...bounds, ca, alpnProtocols: ['http/1.1'] }).then(
      ({ socket, tunnel }) => {
        onTunnel(tunnel);
        done(null, socket);
      },
      (err: Error) => done(err),
    );
    return undefined;
  };
}

export function createResponsesSocket(opts: SocketOptions): ResponsesSocket {
  const url = socketUrl(opts.baseUrl, opts.query);
  /** The connection and the sockets under it (TLS and, through a proxy, the tunnel), to ref and unref. */
  let current: { ws: WebSocket; sockets: Socket[] } | undefined;

  const drop = (): void => {
    current?.ws.removeAllListeners();
    current?.ws.on('error', () => undefined);
    current?.ws.terminate();
    current = undefined;
  };

  async function open(signal: AbortSignal): Promise<NonNullable<typeof current>> {
    if (current && current.ws.readyState === 1) return current;
    drop();
    const { default: WebSocketClass } = await loadWs();
    let proxy: URL | undefined;
    try {
      proxy = proxyFor(url, process.env);
    } catch (err) {
      throw new ModelError(`connection failed: ${(err as Error).message} (${opts.endpoint})`, 'fatal');
    }
    let ca: string[] | undefined;
    if (url.protocol === 'wss:') {
      const { default: tls } = await import('node:tls');
      try {
        ca = extraCa(tls, opts.caFile);
      } catch (err) {
        // extraCa speaks fetch's language (a TypeError with the reason as its cause).
        const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
        throw new ModelError(`connection failed: ${reason} (${opts.endpoint})`, 'fatal');
      }
    }
    const sockets: Socket[] = [];
    const ws = new WebSocketClass(url, {
      headers: opts.headers,
      perMessageDeflate: false,
      handshakeTimeout: opts.handshakeTimeoutMs,
      maxPayload: 256 * 1024 * 1024,
      ...(ca ? { ca } : {}),
      ...(proxy
        ? {
            createConnection: tunnelConnection(proxy, url, ca, { signal, timeoutMs: opts.handshakeTimeoutMs }, (raw) =>
              sockets.push(raw),
            ) as unknown as WebSocket.ClientOptions['createConnection'],
          }
        : {}),
    });
    const entry: NonNullable<typeof current> = { ws, sockets };
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        ws.terminate();
        reject(new ModelError('request cancelled', 'aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      ws.once('upgrade', (res: IncomingMessage) => {
        entry.sockets.push(res.socket);
      });
      ws.once('open', () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      ws.once('unexpected-response', (req, res: IncomingMessage) => {
        signal.removeEventListener('abort', onAbort);
        res.resume();
        req.destroy();
        reject(new UpgradeRefused(res.statusCode ?? 0));
      });
      ws.on('error', (err: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        const cause = err.message || err.code || 'error';
        reject(new ModelError(`connection failed: ${cause} (${opts.endpoint})`, 'retryable'));
      });
    });
    current = entry;
    return entry;
  }

  async function* once(request: ModelRequest, signal: AbortSignal, retried: boolean): AsyncGenerator<unknown> {
    const conn = await open(signal);
    const queue = new EventQueue();
    const onMessage = (data: WebSocket.RawData): void => {
      try {
        queue.push(JSON.parse(textOf(data)) as unknown);
      } catch (err) {
        queue.fail(err as Error);
      }
    };
    const onClose = (code: number): void => queue.fail(new SocketClosed(code));
    const onError = (err: Error): void => queue.fail(new ModelError(`the stream was cut off (${err.message})`, 'retryable'));
    const onAbort = (): void => queue.fail(new ModelError('request cancelled', 'aborted'));
    conn.ws.on('message', onMessage);
    conn.ws.on('close', onClose);
    conn.ws.on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    for (const socket of conn.sockets) socket.ref();
    let finished = false;
    let sawEvent = false;
    try {
      // The HTTP body minus `stream` (the socket always streams).
      const { stream: _stream, ...body } = request as ModelRequest & { stream?: unknown };
      conn.ws.send(JSON.stringify({ type: 'response.create', ...body }));
      for (;;) {
        let event: unknown;
        try {
          event = await queue.next();
        } catch (err) {
          // Closed before this request got a single event: most likely a server closing an idle
          // connection as we sent. No answer was started, so a new connection gets it, once.
          if (!(err instanceof SocketClosed)) throw err;
          if (sawEvent || retried || signal.aborted) throw err.asCut();
          finished = true;
          drop();
          yield* once(request, signal, true);
          return;
        }
        if (isRecord(event) && event.type === 'error') {
          const error = isRecord(event.error) ? event.error : event;
          if (error.code === CONNECTION_LIMIT_CODE && !sawEvent && !retried) {
            // Nothing ran: a new connection gets the same request.
            finished = true;
            drop();
            yield* once(request, signal, true);
            return;
          }
          const status = typeof event.status === 'number' ? event.status : refusalStatus(error, sawEvent);
          if (status !== undefined) {
            finished = true;
            throw opts.apiError(status, error);
          }
          // Without a status: the stream's own error event, read by client.ts at the top level.
          finished = true;
          yield { type: 'error', code: error.code, message: error.message };
          return;
        }
        sawEvent = true;
        yield event;
        if (isRecord(event) && typeof event.type === 'string' && TERMINAL.has(event.type)) {
          finished = true;
          return;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      conn.ws.off('message', onMessage);
      conn.ws.off('close', onClose);
      conn.ws.off('error', onError);
      // A request left mid-answer (cancelled, cut, a malformed event) would interleave its rest
      // with the next one's events: that connection is not used again.
      if (!finished) drop();
      else for (const socket of conn.sockets) socket.unref();
    }
  }

  return {
    events: (request, signal) => once(request, signal, false),
    close: drop,
  };
}
