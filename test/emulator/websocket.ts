// The Responses API's WebSocket mode: `GET /v1/responses` upgraded, then one `response.create`
// message per response. Each one runs through handleCreate exactly like POST /v1/responses
// (same checks, same scripted steps, same fault injection), its SSE output turned into one
// WebSocket message per event by SocketResponse below: a `cut` step drops the socket mid-stream,
// an HTTP error becomes an `error` event with its status, as the service sends it (or, with
// `errorStatus: false`, without one: OpenAI's schema makes the event's `status` optional, and a
// server may send a refusal the way it sends an error of the stream, the error alone).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { handleCreate, type EmulatorState, type ParsedBody } from './responses.ts';
import { isRecord } from './wire.ts';

export const CONNECTION_LIMIT_CODE = 'websocket_connection_limit_reached';

/** A stand-in for the ServerResponse handleCreate writes to: SSE frames out as messages. */
class SocketResponse {
  headersSent = false;
  destroyed = false;
  private status = 200;
  private sse = false;
  private pending = '';
  readonly socket = { destroy: (): void => this.destroy() };

  constructor(
    private readonly ws: WebSocket,
    private readonly errorStatus: boolean,
  ) {}

  get writable(): boolean {
    return !this.destroyed && this.ws.readyState === this.ws.OPEN;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    this.status = status;
    this.sse = String(headers['content-type'] ?? '').startsWith('text/event-stream');
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    // Nothing to flush: a message goes out whole.
  }

  write(chunk: string | Buffer, done?: () => void): boolean {
    this.pending += chunk.toString();
    if (this.sse && this.status === 200) this.sendFrames();
    done?.();
    return true;
  }

  end(chunk?: string | Buffer): void {
    if (chunk !== undefined) this.pending += chunk.toString();
    if (this.sse && this.status === 200) this.sendFrames();
    else if (this.pending !== '') this.sendErrorBody();
    this.destroyed = true;
  }

  destroy(): void {
    this.destroyed = true;
    this.ws.terminate();
  }

  /** Each complete SSE frame's data, byte for byte (a malformed one stays malformed). */
  private sendFrames(): void {
    const frames = this.pending.split(/\r?\n\r?\n/);
    this.pending = frames.pop() ?? '';
    for (const frame of frames) {
      const data = frame
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data !== '' && this.writable) this.ws.send(data);
    }
  }

  /**
   * An HTTP error body as the WebSocket `error` event, with the status it had (unless this server
   * leaves it out). OpenAI's envelope `{ error }` gives the error; a body that is the error itself
   * (vLLM's `{ object: "error", message, type, … }`) gives its fields.
   */
  private sendErrorBody(): void {
    let error: unknown = { message: this.pending };
    try {
      const parsed: unknown = JSON.parse(this.pending);
      if (isRecord(parsed) && isRecord(parsed.error)) error = parsed.error;
      else if (isRecord(parsed) && parsed.object === 'error' && typeof parsed.message === 'string') {
        error = { type: parsed.type ?? null, code: parsed.code ?? null, message: parsed.message, param: parsed.param ?? null };
      }
    } catch {
      // A non-JSON body (a raw step) goes out as the message.
    }
    const event = this.errorStatus ? { type: 'error', status: this.status, error } : { type: 'error', error };
    if (this.writable) this.ws.send(JSON.stringify(event));
    this.pending = '';
  }
}

export interface WebSocketHooks {
  state: EmulatorState;
  /** Refuses the handshake (auth) with the error body to answer, or accepts it. */
  checkUpgrade(req: IncomingMessage): { status: number; body: unknown } | undefined;
  /** Logs one response.create as a request of the log (transport websocket). */
  logRequest(req: IncomingMessage, raw: Buffer, body: ParsedBody): import('./wire.ts').LoggedRequest;
  /** Whether `error` events carry the HTTP status of the error they stand for (the service's do). */
  errorStatus: boolean;
  /** A connection older than this answers its next response.create with the limit error and closes. */
  limitMs(): number | undefined;
  closing: AbortSignal;
}

export interface WebSocketMode {
  /** Connections accepted so far. */
  connections(): number;
  /** Upgrade requests so far, refused ones included. */
  attempts(): number;
  closeAll(): void;
}

function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

export function attachWebSocket(server: Server, hooks: WebSocketHooks): WebSocketMode {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  let accepted = 0;
  let attempts = 0;

  const serve = (ws: WebSocket, upgrade: IncomingMessage): void => {
    const openedAt = Date.now();
    // One response at a time per connection, in the order they were sent.
    let chain = Promise.resolve();
    let current: AbortController | undefined;
    ws.on('close', () => current?.abort());
    ws.on('message', (data: RawData) => {
      const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      chain = chain.then(() => answer(raw)).catch(() => ws.terminate());
    });
    const answer = async (raw: Buffer): Promise<void> => {
      const limit = hooks.limitMs();
      if (limit !== undefined && Date.now() - openedAt >= limit) {
        ws.send(
          JSON.stringify({
            type: 'error',
            status: 400,
            error: {
              type: 'invalid_request_error',
              code: CONNECTION_LIMIT_CODE,
              message: 'Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue.',
              param: null,
            },
          }),
        );
        ws.close(1000);
        return;
      }
      let body: ParsedBody = { ok: false };
      try {
        body = { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
      } catch {
        // Reported below like a bad HTTP body.
      }
      if (body.ok && isRecord(body.value) && body.value.type !== 'response.create') {
        ws.send(
          JSON.stringify({
            type: 'error',
            status: 400,
            error: { type: 'invalid_request_error', code: 'unknown_event_type', message: `Unknown event type '${String(body.value.type)}'.`, param: 'type' },
          }),
        );
        return;
      }
      // The message minus its `type` is a create-response body; the socket always streams.
      let request: ParsedBody = body;
      if (body.ok && isRecord(body.value)) {
        const { type: _type, ...rest } = body.value;
        request = { ok: true, value: rest };
      }
      const entry = hooks.logRequest(upgrade, raw, request);
      const streaming: ParsedBody = request.ok && isRecord(request.value) ? { ok: true, value: { ...request.value, stream: true } } : request;
      current = new AbortController();
      const stop = (): void => current?.abort();
      hooks.closing.addEventListener('abort', stop);
      try {
        await handleCreate(hooks.state, new SocketResponse(ws, hooks.errorStatus) as unknown as ServerResponse, current.signal, entry, streaming);
      } finally {
        hooks.closing.removeEventListener('abort', stop);
      }
    };
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    attempts += 1;
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/v1/responses') {
      refuse(socket, 404, { error: { message: `Invalid URL (GET ${path ?? ''})`, type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    const refused = hooks.checkUpgrade(req);
    if (refused) {
      refuse(socket, refused.status, refused.body);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted += 1;
      serve(ws, req);
    });
  });

  return {
    connections: () => accepted,
    attempts: () => attempts,
    closeAll: () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
