// A `fetch` for the OpenAI SDK built on node:http(s).
//
// Why: Node's global fetch is undici, whose WebAssembly HTTP parser is compiled on the first
// request. Profiling a one-shot (--cpu-prof, /usr/bin/time -v; see bench/ANALYSIS.md) showed
// that costing ~30 MiB of peak RSS and tens of ms of CPU before the first byte went out, about a
// third of a one-shot. node:http uses the C parser already inside the Node binary. The SDK
// still does everything else (request building, SSE parsing, typed errors); this only moves
// bytes. One keep-alive agent per process lets a tool loop reuse its connection.
import http from 'node:http';
import type https from 'node:https';
import { isRedirect, nextHop, type HopRequest } from './redirect.ts';
import { LiteHeaders, LiteResponse } from './web-lite.ts';

// node:https (and TLS under it) is loaded only for an https URL: a local or proxied http
// endpoint does not pay for it. One keep-alive agent per scheme per process.
const httpAgent = new http.Agent({ keepAlive: true });
let httpsModule: { https: typeof https; agent: https.Agent } | undefined;

async function transportFor(url: URL): Promise<{ request: typeof http.request; agent: http.Agent }> {
  if (url.protocol !== 'https:') return { request: http.request, agent: httpAgent };
  if (httpsModule === undefined) {
    const { default: mod } = await import('node:https');
    httpsModule = { https: mod, agent: new mod.Agent({ keepAlive: true }) };
  }
  return { request: httpsModule.https.request, agent: httpsModule.agent };
}

type FetchInit = { method?: string; headers?: unknown; body?: unknown; signal?: AbortSignal | null };

function isIterable(x: unknown): x is Iterable<unknown> {
  return typeof x === 'object' && x !== null && Symbol.iterator in x;
}

/** The SDK hands over its own Headers object (LiteHeaders once web-lite is installed), a record or pairs. */
function toNodeHeaders(init: unknown): Record<string, string> {
  const source = init instanceof LiteHeaders ? init : new LiteHeaders(isIterable(init) ? pairsOf(init) : recordOf(init));
  const out: Record<string, string> = {};
  for (const [key, value] of source) out[key] = value;
  return out;
}

function pairsOf(init: Iterable<unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const row of init) {
    if (Array.isArray(row) && typeof row[0] === 'string') pairs.push([row[0], String(row[1])]);
  }
  return pairs;
}

function recordOf(init: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof init !== 'object' || init === null) return out;
  for (const [k, v] of Object.entries(init)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

function toLiteHeaders(raw: http.IncomingHttpHeaders): LiteHeaders {
  const h = new LiteHeaders();
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) h.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return h;
}

/** The SDK's fetch type promises a web Response; it uses only what LiteResponse has (web-lite.ts). */
function asFetchResponse(r: LiteResponse): Response {
  return r as unknown as Response;
}

function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // The Responses API only ever gets JSON strings from the SDK; anything else is a programming error.
  throw new TypeError('node-fetch: unsupported request body type');
}

/** One request without redirect handling; resolves with the raw response (headers received). */
async function send(hop: HopRequest, signal: AbortSignal | undefined): Promise<http.IncomingMessage> {
  const { request, agent } = await transportFor(hop.url);
  return new Promise((resolve, reject) => {
    const req = request(hop.url, { method: hop.method, headers: hop.headers, agent, signal }, resolve);
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
    // The body is the Node stream itself: the SDK reads it with `for await` (web-lite.ts).
    // Statuses without a body carry none.
    const body = status === 204 || status === 304 ? null : res;
    if (body === null) res.resume();
    return asFetchResponse(new LiteResponse(body, status, res.statusMessage ?? '', toLiteHeaders(res.headers), hop.url.href));
  }
}
