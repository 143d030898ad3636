// A `fetch` for the OpenAI SDK built on node:http(s).
//
// Why: Node's global fetch is undici, whose WebAssembly HTTP parser is compiled on the first
// request. Profiling a one-shot (--cpu-prof, /usr/bin/time -v; see bench/ANALYSIS.md) showed
// that costing ~30 MiB of peak RSS and tens of ms of CPU before the first byte went out, about a
// third of a one-shot. node:http uses the C parser already inside the Node binary. The SDK
// still does everything else (request building, SSE parsing, typed errors); this only moves
// bytes. One keep-alive agent per process lets a tool loop reuse its connection.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { isRedirect, nextHop, type HopRequest } from './redirect.ts';

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

type HeaderSource = ConstructorParameters<typeof Headers>[0];
type FetchInit = { method?: string; headers?: HeaderSource; body?: unknown; signal?: AbortSignal | null };

function toNodeHeaders(init: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, key) => { out[key] = value; });
  return out;
}

function toWebHeaders(raw: http.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) h.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return h;
}

function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // The Responses API only ever gets JSON strings from the SDK; anything else is a programming error.
  throw new TypeError('node-fetch: unsupported request body type');
}

/** One request without redirect handling; resolves with the raw response (headers received). */
function send(hop: HopRequest, signal: AbortSignal | undefined): Promise<http.IncomingMessage> {
  const secure = hop.url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(hop.url, {
      method: hop.method,
      headers: hop.headers,
      agent: secure ? agents.https : agents.http,
      signal,
    }, resolve);
    // Like fetch: a transport failure rejects with a TypeError whose cause is the socket error
    // (the SDK turns it into APIConnectionError); an abort rejects with the AbortError itself.
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err }));
    });
    if (hop.body === undefined) req.end();
    else req.end(hop.body);
  });
}

export async function nodeFetch(input: string | URL | Request, init: FetchInit = {}): Promise<Response> {
  let hop: HopRequest = {
    url: new URL(typeof input === 'string' || input instanceof URL ? input : input.url),
    method: (init.method ?? 'GET').toUpperCase(),
    headers: toNodeHeaders(init.headers),
    body: bodyOf(init.body),
  };
  const signal = init.signal ?? undefined;
  // Redirects are followed here, as fetch would (redirect.ts: at most 5, credentials never
  // sent to another origin); the SDK only ever sees the final answer.
  for (let hops = 0; ; hops++) {
    const res = await send(hop, signal);
    const status = res.statusCode ?? 0;
    if (isRedirect(status)) {
      const location = res.headers.location;
      const next = nextHop(hop, status, typeof location === 'string' ? location : undefined, hops);
      // The redirect's own body is not wanted; reading it to the end frees the connection.
      res.resume();
      if ('error' in next) throw new TypeError('fetch failed', { cause: new Error(next.error) });
      hop = next;
      continue;
    }
    // Statuses without a body may not carry a stream (the Response constructor rejects one).
    const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
    return new Response(body, { status, statusText: res.statusMessage ?? '', headers: toWebHeaders(res.headers) });
  }
}
