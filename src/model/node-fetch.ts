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
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import { readCaFile } from '../lib/ca-file.ts';
import { proxyError, proxyFor } from '../lib/proxy-env.ts';
import { openTunnelSocket, proxyAuthorization } from '../lib/proxy-tunnel.ts';
import { isSocksProxy } from '../lib/socks-tunnel.ts';
import { isRedirect, nextHop, type HopRequest } from './redirect.ts';
import { LiteHeaders, LiteResponse } from './web-lite.ts';

// node:https (and TLS under it) is loaded only for an https URL: a local or proxied http
// endpoint does not pay for it. One keep-alive agent per scheme (and CA file) per process.
const httpAgent = new http.Agent({ keepAlive: true });
type HttpsTransport = { https: typeof https; agent: https.Agent; ca: string[] | undefined };
const httpsTransports = new Map<string, HttpsTransport>();

/**
 * NODE_EXTRA_CA_CERTS's certificates. Node adds them to its default trust at start, but a `ca`
 * option replaces that default, so they are read again here. Unusable: Node warns and ignores
 * it (so did agentx's start, config/connection-checks.ts); so does this.
 */
function nodeExtraCerts(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file === undefined || file === '') return [];
  try {
    return [readCaFile(file, 'NODE_EXTRA_CA_CERTS')];
  } catch {
    return [];
  }
}

/**
 * The trust list when AGENTX_CA_FILE (a setting: environment or config file) names a private CA:
 * Node's bundled roots, NODE_EXTRA_CA_CERTS's certificates and the file. A `ca` option replaces
 * Node's default list, so every part of it is named. Undefined: Node's default (bundled roots
 * plus NODE_EXTRA_CA_CERTS). The start already refused a file that cannot be used; one that
 * went away since fails the connection with the same line.
 */
export function extraCa(tlsMod: typeof tls, caFile: string | undefined): string[] | undefined {
  if (caFile === undefined || caFile === '') return undefined;
  let pem: string;
  try {
    pem = readCaFile(caFile, 'AGENTX_CA_FILE');
  } catch (err) {
    throw new TypeError('fetch failed', { cause: err });
  }
  return [...tlsMod.rootCertificates, ...nodeExtraCerts(), pem];
}

async function httpsTransport(caFile: string | undefined): Promise<HttpsTransport> {
  const key = caFile ?? '';
  let t = httpsTransports.get(key);
  if (t === undefined) {
    const [{ default: mod }, { default: tlsMod }] = await Promise.all([import('node:https'), import('node:tls')]);
    const ca = extraCa(tlsMod, caFile);
    t = { https: mod, agent: new mod.Agent({ keepAlive: true, ...(ca ? { ca } : {}) }), ca };
    httpsTransports.set(key, t);
  }
  return t;
}

/** `viaProxy`: an http target sent to this proxy as an absolute-URI request (its failures name the proxy). */
type Transport = { request: typeof http.request; options: http.RequestOptions; url: URL; viaProxy?: URL };

/**
 * How one request leaves the process: directly; to an http target through an HTTP proxy with
 * an absolute URI; or inside a tunnel (proxy-tunnel.ts): CONNECT for an https target, SOCKS5 for
 * any target. The proxy environment is read per request, so a changed environment (tests,
 * setup) is honoured.
 */
async function transportFor(url: URL, headers: Record<string, string>, signal: AbortSignal | undefined, settings: Settings): Promise<Transport> {
  let proxy: URL | undefined;
  try {
    proxy = proxyFor(url, process.env);
  } catch (err) {
    throw new TypeError('fetch failed', { cause: err });
  }
  if (url.protocol !== 'https:') {
    if (proxy === undefined) return { request: http.request, options: { agent: httpAgent }, url };
    // A SOCKS proxy relays bytes only: plain http goes inside a tunnel too, as https does.
    if (isSocksProxy(proxy)) return { request: http.request, options: tunnelled(proxy, url, signal, undefined, settings.tunnelTimeoutMs), url };
    const auth = proxyAuthorization(proxy);
    const viaProxy = new URL(url.href);
    return {
      request: http.request,
      // The proxy's address without its credentials (those go only in Proxy-Authorization).
      url: new URL(`${proxy.protocol}//${proxy.host}`),
      viaProxy: proxy,
      options: {
        agent: httpAgent,
        path: viaProxy.href,
        headers: { ...headers, host: url.host, ...(auth ? { 'proxy-authorization': auth } : {}) },
      },
    };
  }
  const t = await httpsTransport(settings.caFile);
  if (proxy === undefined) return { request: t.https.request, options: { agent: t.agent }, url };
  return { request: t.https.request, options: tunnelled(proxy, url, signal, t.ca, settings.tunnelTimeoutMs), url };
}

/**
 * Request options that open a tunnel through the proxy (CONNECT or SOCKS5, with TLS inside it
 * for https: proxy-tunnel.ts) for each request, bounded by `timeoutMs` and the request's signal.
 * No keep-alive through a tunnel: a proxy may drop idle ones. With no agent, node:http calls
 * this createConnection (agent: false would make a fresh Agent and ignore it).
 */
function tunnelled(proxy: URL, url: URL, signal: AbortSignal | undefined, ca: string[] | undefined, timeoutMs: number): http.RequestOptions {
  const createConnection = (_opts: unknown, done: (err: Error | null, socket?: Duplex) => void): undefined => {
    openTunnelSocket(proxy, url, { timeoutMs, signal, ca }).then(
      ({ socket }) => done(null, socket),
      (err: Error) => done(err),
    );
    return undefined;
  };
  return { agent: undefined, createConnection } as http.RequestOptions;
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

/** Socket errors that mean the connection was never made. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL']);

/** One request without redirect handling; resolves with the raw response (headers received). */
async function send(hop: HopRequest, signal: AbortSignal | undefined, settings: Settings): Promise<http.IncomingMessage> {
  const { request, options, url, viaProxy } = await transportFor(hop.url, hop.headers, signal, settings);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: hop.method, headers: hop.headers, ...options, signal }, (res) => {
      // Through a proxy with an absolute URI, 407 is the proxy's own answer (an origin server
      // does not send it): the proxy refused us, which says more than an HTTP error would.
      if (viaProxy !== undefined && res.statusCode === 407) {
        res.resume();
        reject(
          new TypeError('fetch failed', {
            cause: proxyError(viaProxy, `refused the request to ${hop.url.host} (407${res.statusMessage ? ` ${res.statusMessage}` : ''})`),
          }),
        );
        return;
      }
      resolve(res);
    });
    // Like fetch: a transport failure rejects with a TypeError whose cause is the socket error
    // (the SDK turns it into APIConnectionError); an abort rejects with the AbortError itself.
    // Through a proxy the socket is the proxy's, so the error names it (never its credentials).
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.name === 'AbortError') reject(err);
      else
        reject(
          new TypeError('fetch failed', {
            cause:
              viaProxy === undefined ? err : proxyError(viaProxy, CONNECT_CODES.has(err.code ?? '') ? 'could not be reached' : 'dropped the connection', err),
          }),
        );
    });
    if (hop.body === undefined) req.end();
    else req.end(hop.body);
  });
}

/** How long a tunnel through a proxy and the TLS inside it may take when the caller sets no bound. */
export const DEFAULT_TUNNEL_TIMEOUT_MS = 30_000;

export interface NodeFetchOptions {
  /** AGENTX_CA_FILE as configured (environment or config file): a private CA trusted for https. */
  caFile?: string | undefined;
  /** Bound on opening a tunnel through a proxy and the TLS handshake inside it (DEFAULT_TUNNEL_TIMEOUT_MS). */
  tunnelTimeoutMs?: number | undefined;
}

type Settings = { caFile: string | undefined; tunnelTimeoutMs: number };

export type NodeFetch = (input: string | URL | Request, init?: FetchInit) => Promise<Response>;

/** A fetch over node:http(s) with the given settings (the proxy comes from the environment per request). */
export function createNodeFetch(opts: NodeFetchOptions = {}): NodeFetch {
  const settings: Settings = { caFile: opts.caFile, tunnelTimeoutMs: opts.tunnelTimeoutMs ?? DEFAULT_TUNNEL_TIMEOUT_MS };
  return (input, init) => fetchOnce(input, init ?? {}, settings);
}

async function fetchOnce(input: string | URL | Request, init: FetchInit, settings: Settings): Promise<Response> {
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
    const res = await send(hop, signal, settings);
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
