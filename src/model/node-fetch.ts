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

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

type HeaderSource = ConstructorParameters<typeof Headers>[0];
type FetchInit = { method?: string; headers?: HeaderSource; body?: unknown; signal?: AbortSignal | null };

function toNodeHeaders(init: HeaderSource): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
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

export function nodeFetch(input: string | URL | Request, init: FetchInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, {
      method: init.method ?? 'GET',
      headers: toNodeHeaders(init.headers),
      agent: secure ? agents.https : agents.http,
      signal: init.signal ?? undefined,
    }, (res) => {
      const status = res.statusCode ?? 0;
      // Statuses without a body may not carry a stream (the Response constructor rejects one).
      const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: toWebHeaders(res.headers) }));
    });
    // Like fetch: a transport failure rejects with a TypeError whose cause is the socket error
    // (the SDK turns it into APIConnectionError); an abort rejects with the AbortError itself.
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err }));
    });
    const body = bodyOf(init.body);
    if (body === undefined) req.end();
    else req.end(body);
  });
}
