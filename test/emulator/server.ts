// The OpenAI Responses API emulator: a node:http server that tests, benchmarks and the demo
// start on a free port. Behaviour per request lives in responses.ts; this file routes, logs
// and exposes the scripting API (in-process and over /__emulator/* control endpoints).
import type { ToolTypeRefusal } from './tool-refusal.ts';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, isRecord, newId } from './wire.ts';
import type { LoggedRequest, Step } from './wire.ts';
import { prepareValidator } from './validate.ts';
import { ResponseStore } from './conversation.ts';
import { handleCreate } from './responses.ts';
import type { EmulatorState, ParsedBody } from './responses.ts';
import { parseSteps } from './control.ts';
import { contextSettings, parseContextOptions } from './context.ts';
import type { ContextOptions, ContextSettings } from './context.ts';
import { handleCompact } from './compact.ts';
import { sendError, sendJson } from './sse.ts';
import { attachWebSocket } from './websocket.ts';

export type { LoggedRequest, Step } from './wire.ts';
export type { ContextOptions, ContextSettings, OverflowForm } from './context.ts';

export interface Emulator {
  baseUrl: string;
  port: number;
  enqueue(...steps: Step[]): void;
  requests: LoggedRequest[];
  responseRequests(): LoggedRequest[];
  forgetAll(): void;
  /** Stores nothing from now on (and forgets what it had), or stores again. */
  setStateless(on: boolean): void;
  /** Drops scripted steps not used yet (a fault test's kill may leave some behind). */
  clearQueue(): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /** Changes the context window / compaction features from now on (unset fields stay); returns them. */
  configureContext(opts: ContextOptions): ContextSettings;
  /** WebSocket connections accepted so far (websocket.ts). */
  webSocketConnections(): number;
  /** WebSocket upgrade requests so far, refused ones included. */
  webSocketAttempts(): number;
  /** From now on a connection older than `ms` answers its next response.create with the 60-minute-limit error. */
  setWebSocketLimit(ms: number | undefined): void;
  close(): Promise<void>;
}

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Validate request bodies against the published schema (default true). */
  validate?: boolean;
  /** Delay before the first output event (time to first token). */
  latencyMs?: number;
  /** Answer 401 when no `Authorization: Bearer …` header is sent, as the service does (default true). */
  requireAuth?: boolean;
  /** The model's context window and the server's compaction features (context.ts). */
  context?: ContextOptions;
  /** Store no response, whatever the request's `store` says: chaining fails with previous_response_not_found. */
  stateless?: boolean;
  /** Accept the WebSocket mode on /v1/responses (default true); false answers the upgrade like a plain GET (404). */
  websocket?: boolean;
  /**
   * Whether WebSocket `error` events carry the HTTP status of the error (default true, as the
   * service sends them); false sends the error alone, as a server may (the field is optional).
   */
  websocketErrorStatus?: boolean;
  /** The WebSocket connection limit (the service's is 60 minutes); unset: none. */
  websocketLimitMs?: number;
  /**
   * Azure OpenAI's checks: the key in `api-key` (a Bearer header is refused), and when set, this
   * `api-version` query parameter on every request.
   */
  azure?: { apiVersion?: string };
  /**
   * Models (name prefixes) that refuse a `reasoning` field with a 400 naming it, as gateways
   * serving open-weight models (gpt-oss-*) through a stricter schema do.
   */
  noReasoningModels?: string[];
  /** Built-in tool types refused with a 400, as servers that know only function tools do (tool-refusal.ts). */
  refuseToolTypes?: ToolTypeRefusal;
}

const NO_KEY_UPGRADE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

const MODELS = ['gpt-5', 'gpt-5-mini', 'gpt-5-codex', 'gpt-4.1', 'o4-mini'];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJson(raw: Buffer): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

function notFound(method: string, path: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(404, { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: null, code: null }, headers);
}

const AZURE_NO_KEY =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function queryOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(new URL(req.url ?? '/', 'http://emulator').searchParams);
}

/** Whether the request carries the key the way this server wants it. */
function authorized(req: IncomingMessage, azure: EmulatorOptions['azure']): boolean {
  if (azure) return typeof req.headers['api-key'] === 'string' && req.headers['api-key'] !== '' && req.headers.authorization === undefined;
  return /^Bearer \S/.test(req.headers.authorization ?? '');
}

/** Azure's refusals (a missing key or api-version), checked before anything else; undefined when fine. */
function azureRefusal(req: IncomingMessage, azure: EmulatorOptions['azure']): ApiError | undefined {
  if (!azure) return undefined;
  if (!authorized(req, azure)) return new ApiError(401, { message: AZURE_NO_KEY, type: 'invalid_request_error', param: null, code: '401' });
  const version = queryOf(req)['api-version'];
  if (azure.apiVersion !== undefined && version !== azure.apiVersion) {
    const message =
      version === undefined
        ? 'Missing required query parameter: api-version'
        : `The API version '${version}' is not supported here (expected ${azure.apiVersion}).`;
    return new ApiError(400, { message, type: 'invalid_request_error', param: 'api-version', code: 'BadRequest' });
  }
  return undefined;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const validate = opts.validate !== false;
  if (validate) prepareValidator();
  const state: EmulatorState = {
    queue: [],
    store: new ResponseStore(),
    validate,
    requireAuth: opts.requireAuth !== false,
    latencyMs: opts.latencyMs ?? 0,
    context: contextSettings(opts.context),
    stateless: opts.stateless === true,
    noReasoningModels: opts.noReasoningModels ?? [],
    refuseToolTypes: opts.refuseToolTypes,
  };
  const initialContext = state.context;
  const log: LoggedRequest[] = [];
  let seq = 0;
  const waiters = new Set<() => void>();
  const closing = new AbortController();

  const enqueue = (...steps: Step[]): void => {
    for (const step of steps) state.queue.push({ step, remaining: step.kind === 'http_error' ? Math.max(1, step.times ?? 1) : 1 });
  };

  const control = (method: string, path: string, body: ParsedBody, res: ServerResponse): void => {
    if (method === 'POST' && path === '/__emulator/enqueue') {
      const steps = body.ok ? parseSteps(body.value) : 'Body is not JSON.';
      if (typeof steps === 'string') return sendError(res, new ApiError(400, { message: steps, type: 'invalid_request_error', param: null, code: null }));
      enqueue(...steps);
      return sendJson(res, 200, { queued: state.queue.length });
    }
    if (method === 'GET' && path === '/__emulator/requests') return sendJson(res, 200, log);
    if (method === 'POST' && path === '/__emulator/context') {
      const parsed = body.ok ? parseContextOptions(body.value) : 'Body is not JSON.';
      if (typeof parsed === 'string') return sendError(res, new ApiError(400, { message: parsed, type: 'invalid_request_error', param: null, code: null }));
      state.context = contextSettings(parsed, state.context);
      return sendJson(res, 200, state.context);
    }
    if (method === 'POST' && path === '/__emulator/stateless') {
      const on = body.ok && isRecord(body.value) ? body.value.on : undefined;
      if (typeof on !== 'boolean')
        return sendError(res, new ApiError(400, { message: 'Body must be {"on": true|false}.', type: 'invalid_request_error', param: null, code: null }));
      state.stateless = on;
      if (on) state.store.clear();
      return sendJson(res, 200, { stateless: on });
    }
    if (method === 'POST' && path === '/__emulator/forget') {
      state.store.clear();
      return sendJson(res, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__emulator/reset') {
      state.queue.length = 0;
      state.store.clear();
      state.context = initialContext;
      state.stateless = opts.stateless === true;
      log.length = 0;
      seq = 0;
      return sendJson(res, 200, { ok: true });
    }
    sendError(res, notFound(method, path));
  };

  const logRequest = (
    req: IncomingMessage,
    method: string,
    path: string,
    raw: Buffer,
    body: ParsedBody,
    transport: LoggedRequest['transport'],
    requestId: string,
  ): LoggedRequest => {
    const entry: LoggedRequest = {
      seq: ++seq,
      at: Date.now(),
      method,
      path,
      hasAuth: authorized(req, opts.azure),
      body: body.ok ? body.value : raw.toString('utf8'),
      bytes: raw.length,
      status: 0,
      requestId,
      transport,
      headers: flatHeaders(req),
      query: queryOf(req),
    };
    log.push(entry);
    for (const wake of waiters) wake();
    return entry;
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    const body = parseJson(raw);
    if (path.startsWith('/__emulator/')) return control(method, path, body, res);
    const requestId = newId('req_', 16);
    const headers = { 'x-request-id': requestId };
    const azure = azureRefusal(req, opts.azure);
    if (azure) return sendError(res, new ApiError(azure.status, azure.body, headers));
    if (method === 'POST' && (path === '/v1/responses' || path === '/v1/responses/compact')) {
      const entry = logRequest(req, method, path, raw, body, 'http', requestId);
      if (path === '/v1/responses/compact') return handleCompact(state, res, entry, body);
      const abort = new AbortController();
      const stop = (): void => abort.abort();
      res.on('close', stop);
      closing.signal.addEventListener('abort', stop);
      try {
        await handleCreate(state, res, abort.signal, entry, body);
      } finally {
        closing.signal.removeEventListener('abort', stop);
      }
      return;
    }
    const stored = /^\/v1\/responses\/([^/]+)$/.exec(path)?.[1];
    if (stored !== undefined && (method === 'GET' || method === 'DELETE')) {
      const found = state.store.get(stored);
      if (!found) {
        return sendError(
          res,
          new ApiError(404, { message: `Response with id '${stored}' not found.`, type: 'invalid_request_error', param: null, code: null }, headers),
        );
      }
      if (method === 'GET') return sendJson(res, 200, found.response, headers);
      state.store.delete(stored);
      return sendJson(res, 200, { id: stored, object: 'response', deleted: true }, headers);
    }
    if (method === 'GET' && path === '/v1/models') {
      const data = MODELS.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'openai' }));
      return sendJson(res, 200, { object: 'list', data }, headers);
    }
    sendError(res, notFound(method, path, headers));
  };

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) sendError(res, new ApiError(500, { message: `Emulator bug: ${message}`, type: 'server_error', param: null, code: 'server_error' }));
      else res.destroy();
    });
  });

  let websocketLimitMs = opts.websocketLimitMs;
  const sockets =
    opts.websocket === false
      ? undefined
      : attachWebSocket(server, {
          state,
          closing: closing.signal,
          limitMs: () => websocketLimitMs,
          errorStatus: opts.websocketErrorStatus !== false,
          logRequest: (req, raw, body) => logRequest(req, 'POST', '/v1/responses', raw, body, 'websocket', newId('req_', 16)),
          checkUpgrade: (req) => {
            const azure = azureRefusal(req, opts.azure);
            if (azure) return { status: azure.status, body: { error: azure.body } };
            if (state.requireAuth && !authorized(req, opts.azure))
              return { status: 401, body: { error: { message: NO_KEY_UPGRADE, type: 'invalid_request_error', param: null, code: null } } };
            return undefined;
          },
        });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    baseUrl: `http://${urlHost}:${port}/v1`,
    port,
    enqueue,
    requests: log,
    responseRequests: () => log.filter((r) => r.status === 200),
    forgetAll: () => state.store.forgetResponses(),
    setStateless: (on) => {
      state.stateless = on;
      if (on) state.store.clear();
    },
    clearQueue: () => {
      state.queue.length = 0;
    },
    configureContext: (opts) => {
      state.context = contextSettings(opts, state.context);
      return state.context;
    },
    waitForRequests: (n, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (log.length < n) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`emulator: waited ${timeoutMs} ms for ${n} requests, got ${log.length}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    webSocketConnections: () => sockets?.connections() ?? 0,
    webSocketAttempts: () => sockets?.attempts() ?? 0,
    setWebSocketLimit: (ms) => {
      websocketLimitMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        sockets?.closeAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
