// Which transport carries a streamed request (docs/transport.md). HTTP+SSE through the SDK is
// the default; the Responses API's WebSocket mode (ws-transport.ts, loaded on first use) is
// chosen by AGENTX_TRANSPORT, or in `auto` for api.openai.com and for servers that accepted an
// upgrade before. A refused upgrade switches the session to HTTP and is remembered. Both yield
// the same raw events into client.ts's one reading loop.
import type { Provider, TransportSetting } from './provider.ts';
import type { ModelRequest } from './types.ts';
import type { ResponsesSocket } from './ws-transport.ts';

export type WebSocketSupport = 'unknown' | 'yes' | 'no';

/**
 * Whether to try the WebSocket transport: always for `websocket`, never for `http`; `auto` for
 * api.openai.com or a server that accepted an upgrade before, unless it refused one.
 */
export function wantsWebSocket(transport: TransportSetting, baseUrl: string, known: WebSocketSupport): boolean {
  if (transport !== 'auto') return transport === 'websocket';
  if (known !== 'unknown') return known === 'yes';
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

export interface SocketTransportOptions {
  apiKey: string;
  baseUrl: string;
  provider?: Provider;
  organization?: string;
  project?: string;
  extraHeaders?: Record<string, string>;
  /** AGENTX_CA_FILE as configured. */
  caFile?: string;
  transport?: TransportSetting;
  websocketSupport?: { get(): WebSocketSupport; set(s: 'yes' | 'no'): void };
  query: Record<string, string>;
  endpoint: string;
  handshakeTimeoutMs: number;
  apiError: (status: number, body: unknown) => Error;
  log?: (kind: 'request' | 'event' | 'error', data: unknown) => void;
}

/** An upgrade answered with this status means the server has no WebSocket mode here (404, 400, 426…). */
export function refusesWebSocket(status: number): boolean {
  return status !== 401 && status !== 403 && status !== 407 && status !== 408 && status !== 429 && status < 500;
}

/** The handshake's headers: the key where the provider reads it, the org/project, the extra headers. */
function handshakeHeaders(opts: SocketTransportOptions): Record<string, string> {
  const h: Record<string, string> = { ...opts.extraHeaders };
  if (opts.provider === 'azure') h['api-key'] = opts.apiKey;
  else h.authorization = `Bearer ${opts.apiKey}`;
  if (opts.organization) h['openai-organization'] = opts.organization;
  if (opts.project) h['openai-project'] = opts.project;
  return h;
}

/**
 * A request's raw events over the session's socket, or null: this request goes over HTTP (not
 * chosen, or the server refused the upgrade, from then on for the session).
 */
export function socketTransport(opts: SocketTransportOptions): (request: ModelRequest, signal: AbortSignal) => Promise<AsyncIterable<unknown> | null> {
  let useSocket = wantsWebSocket(opts.transport ?? 'http', opts.baseUrl, opts.websocketSupport?.get() ?? 'unknown');
  let socket: ResponsesSocket | undefined;
  let softRefusals = 0;
  return async (request, signal) => {
    if (!useSocket) return null;
    const { createResponsesSocket, UpgradeRefused } = await import('./ws-transport.ts');
    socket ??= createResponsesSocket({
      baseUrl: opts.baseUrl,
      query: opts.query,
      headers: handshakeHeaders(opts),
      endpoint: opts.endpoint,
      handshakeTimeoutMs: opts.handshakeTimeoutMs,
      apiError: opts.apiError,
      caFile: opts.caFile,
    });
    const it = socket.events(request, signal);
    let first: IteratorResult<unknown>;
    try {
      // The first event proves the upgrade; a refusal is known before anything is yielded.
      first = await it.next();
    } catch (err) {
      if (!(err instanceof UpgradeRefused)) throw err;
      opts.log?.('error', { message: `${err.message}: using HTTP`, kind: 'transport' });
      // A bad key, a rate limit or a failing server says nothing about WebSocket support: this
      // request goes over HTTP (which reports it in full), the next one tries the socket again.
      // Twice in a row (a proxy that blocks upgrades with 403, say) and the session stays on HTTP,
      // rather than paying for a refused handshake before every request.
      if (!refusesWebSocket(err.status)) {
        softRefusals += 1;
        if (softRefusals >= 2) useSocket = false;
        return null;
      }
      opts.websocketSupport?.set('no');
      useSocket = false;
      return null;
    }
    softRefusals = 0;
    if (opts.websocketSupport?.get() !== 'yes') opts.websocketSupport?.set('yes');
    return (async function* () {
      if (first.done !== true) yield first.value;
      yield* { [Symbol.asyncIterator]: () => it };
    })();
  };
}
