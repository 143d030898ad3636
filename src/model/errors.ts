// One classification of every failure (SPEC §3.6). Duck-typed on the SDK's error shapes so this
// module does not import the SDK (only client.ts does).
export type FailureKind = 'retryable' | 'chain_broken' | 'fatal' | 'aborted' | 'context_overflow';

export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly details: { status?: number; code?: string; param?: string; retryAfterMs?: number; requestId?: string; partialText?: string } = {},
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/** The service's code when the input does not fit the model's context window. */
export const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

/**
 * The request did not fit the context window: neither retryable as is nor fatal, the engine
 * compacts and resends (engine/compaction.ts). Arrives as HTTP 400, as an `error` event (the SDK
 * throws it without status) or in `response.failed`, so it is recognised by code, never by status.
 */
export function contextOverflow(details: ModelError['details'] = {}): ModelError {
  return new ModelError(`the conversation no longer fits in the model's context window (${CONTEXT_LENGTH_EXCEEDED})`, 'context_overflow', {
    ...details,
    code: CONTEXT_LENGTH_EXCEEDED,
  });
}

/** Longest Retry-After we wait for automatically; beyond that the limit is reported, not retried into. */
export const MAX_AUTO_RETRY_AFTER_MS = 60_000;

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  code?: unknown;
  param?: unknown;
  headers?: unknown;
  cause?: unknown;
}

function header(headers: unknown, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (typeof headers === 'object' && headers !== null) {
    const v: unknown = Object.getOwnPropertyDescriptor(headers, name)?.value;
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** Any thrown value read through the fields SDK and transport errors may carry. */
function errorLike(v: unknown): ErrorLike {
  return typeof v === 'object' && v !== null ? v : {};
}

export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const v = header(headers, 'retry-after');
  if (v === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function cleanMessage(raw: string): string {
  // SDK messages look like "400 Previous response … not found."; keep them on one line.
  return raw.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * `sdkKind` is the SDK error class, resolved by client.ts with instanceof (class names do not
 * survive minification, so `err.name` cannot be trusted in the bundle).
 */
/** The innermost useful reason of a transport error ("ECONNREFUSED 127.0.0.1:9"), for one line. */
function rootCause(e: ErrorLike): string {
  let best = '';
  let cur: ErrorLike | undefined = e.cause === undefined ? undefined : errorLike(e.cause);
  for (let depth = 0; cur && depth < 5; depth++) {
    if (typeof cur.code === 'string')
      return `: ${cur.code}${typeof cur.message === 'string' && !cur.message.includes(cur.code) ? ` ${cleanMessage(cur.message)}` : ''}`;
    if (typeof cur.message === 'string' && cur.message !== 'fetch failed') best = `: ${cleanMessage(cur.message)}`;
    cur = cur.cause === undefined ? undefined : errorLike(cur.cause);
  }
  return best;
}

/**
 * The base URL as it may be shown: scheme, host, port and path. Credentials (`https://user:key@…`)
 * and the query (`?api-key=…` on some gateways) can hold secrets, so they are never shown.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the configured base URL';
  }
}

/**
 * How compatible servers say that the request does not fit the model's context, without OpenAI's
 * `context_length_exceeded` code: vLLM and the old OpenAI wording ("This model's maximum context
 * length is 4096 tokens…"), llama.cpp ("the request exceeds the available context size"), LM
 * Studio ("… is greater than the context length"), LiteLLM's ContextWindowExceededError and
 * Anthropic-style "prompt is too long". Only a 400 or 413 is read this way: the answer is the same
 * as to the code — compaction, one retry, then the menu — so a false match costs one compaction.
 */
const CONTEXT_OVERFLOW_WORDING =
  /maximum context length|context length exceeded|exceeds? the (?:available )?context (?:size|length|window)|greater than the context length|context ?window ?exceeded|prompt is too long/i;

function saysContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW_WORDING.test(message);
}

/** `endpoint` (a displayUrl) is named in connection failures: which server could not be reached. */
export function classifyFailure(err: unknown, sdkKind?: 'abort' | 'timeout' | 'connection', endpoint?: string): ModelError {
  if (err instanceof ModelError) return err;
  const e = errorLike(err);
  const name =
    sdkKind === 'abort'
      ? 'APIUserAbortError'
      : sdkKind === 'timeout'
        ? 'APIConnectionTimeoutError'
        : sdkKind === 'connection'
          ? 'APIConnectionError'
          : typeof e.name === 'string'
            ? e.name
            : '';
  const message = cleanMessage(typeof e.message === 'string' ? e.message : String(err));
  if (name === 'APIUserAbortError' || name === 'AbortError') return new ModelError('request cancelled', 'aborted');
  const at = endpoint === undefined ? '' : ` (${endpoint})`;
  if (name === 'APIConnectionTimeoutError') return new ModelError(`request timed out${at}`, 'retryable');
  if (name === 'APIConnectionError') {
    return new ModelError(`connection failed${rootCause(e)}${at}`, 'retryable');
  }
  const status = typeof e.status === 'number' ? e.status : undefined;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const requestId = header(e.headers, 'x-request-id');
  const param = typeof e.param === 'string' ? e.param : undefined;
  const base = { status, code, requestId, ...(param === undefined ? {} : { param }) };
  if (code === CONTEXT_LENGTH_EXCEEDED) return contextOverflow(base);
  if ((status === 400 || status === 413) && saysContextOverflow(message)) return contextOverflow(base);
  if (status === undefined) {
    // Not an HTTP error: a bug or an unexpected stream shape. Retrying will not help.
    return new ModelError(message || 'unexpected error', 'fatal', base);
  }
  if (code === 'previous_response_not_found' || (status === 404 && e.param === 'previous_response_id')) {
    return new ModelError('the server no longer has this conversation (previous response not found)', 'chain_broken', base);
  }
  if (status === 401) return new ModelError(`authentication failed (401): check your API key — ${message}`, 'fatal', base);
  if (status === 403) return new ModelError(`not allowed (403): ${message}`, 'fatal', base);
  if (status === 429 && code === 'insufficient_quota') return new ModelError(`quota exhausted: ${message}`, 'fatal', base);
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(e.headers);
    if (retryAfterMs !== undefined && retryAfterMs > MAX_AUTO_RETRY_AFTER_MS) {
      const at = new Date(Date.now() + retryAfterMs).toLocaleTimeString();
      return new ModelError(`rate limit: the server asks to wait until ${at} (${Math.ceil(retryAfterMs / 1000)} s) — ${message}`, 'fatal', {
        ...base,
        retryAfterMs,
      });
    }
    return new ModelError(message, 'retryable', { ...base, retryAfterMs });
  }
  return new ModelError(message, 'fatal', base);
}
