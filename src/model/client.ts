// The only module that imports the OpenAI SDK. It turns a streamed Responses call into our
// ModelEvent stream and every failure into a classified ModelError. The SDK moves its bytes
// through node-fetch.ts (node:http) instead of Node's undici fetch: see that file for why.
import { classifyFailure, CONTEXT_LENGTH_EXCEEDED, contextOverflow, displayUrl, ModelError } from './errors.ts';
import { errorBodyReason } from './error-body.ts';
import { createNodeFetch } from './node-fetch.ts';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { nonNegativeCount, type TurnUsage } from '../usage/tokens.ts';
import type { CompactedOutput, CompactRequest, CompletedResponse, ModelClient, ModelEvent, ModelRequest } from './types.ts';
import {
  approvalRequestCall,
  isCompactionItem,
  isHostedItem,
  isInputItem,
  isToolCallItem,
  isUrlCitation,
  replayableOutput,
  type CompactionItem,
  type HostedItem,
  type InputItem,
  type ToolCallItem,
  type UrlCitation,
} from '../wire/items.ts';
import { isRecord } from '../lib/guards.ts';
import { redactDeep, requestSecrets, withoutToolSecrets } from './hosted-secrets.ts';
import { installLiteWebGlobals } from './web-lite.ts';
import { wireAuth, type Provider, type TransportSetting } from './provider.ts';
import { socketTransport, type WebSocketSupport } from './transport.ts';

export interface ClientOptions {
  apiKey: string;
  baseUrl: string;
  /** No event for this long means the stream is stuck: abort it and treat it as retryable. */
  idleTimeoutMs: number;
  /** No response headers this long after sending means the server is hung: a retryable timeout. */
  headersTimeoutMs?: number;
  /** --debug: receives each request body and each event (never headers or the key). */
  log?: (kind: 'request' | 'event' | 'error', data: unknown) => void;
  /** OpenAI-Organization / OpenAI-Project headers (OPENAI_ORG_ID / OPENAI_PROJECT_ID). */
  organization?: string;
  project?: string;
  /** openai | azure | compatible (provider.ts); default openai-style auth. */
  provider?: Provider;
  /** Azure's api-version query parameter (undefined: none). */
  azureApiVersion?: string;
  /** AGENTX_HEADERS: on every request. Never logged (the debug log gets bodies only). */
  extraHeaders?: Record<string, string>;
  /** AGENTX_CA_FILE (environment or config file): a private CA trusted on top of Node's default trust. */
  caFile?: string;
  /** AGENTX_TRANSPORT (default http). */
  transport?: TransportSetting;
  /** What this server is known to do with a WebSocket upgrade, remembered across runs (auto mode). */
  websocketSupport?: { get(): WebSocketSupport; set(s: 'yes' | 'no'): void };
}

/** A response object of a stream event or the SDK: only `id` is checked, the rest is read defensively. */
interface WireResponse {
  id: string;
  status?: unknown;
  output?: unknown;
  usage?: unknown;
}

/** The stream events we read (the Responses API streaming events, narrowed to what we use). */
type WireEvent =
  | { type: 'response.output_text.delta' | 'response.reasoning_summary_text.delta'; delta: string }
  | { type: 'response.reasoning_summary_part.done' }
  | { type: 'response.output_item.added' | 'response.output_item.done'; item: unknown }
  | { type: 'response.completed' | 'response.incomplete'; response: WireResponse }
  | { type: 'response.failed' | 'error'; code: string | null | undefined; message: string | null | undefined }
  | { type: '' };

/** A list from the wire; anything else reads as empty. (Array.isArray narrows to any[]: unknown keeps every read checked.) */
function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A field from the wire that may be text, null or absent; any other value reads as absent. */
function optionalText(value: unknown): string | null | undefined {
  return typeof value === 'string' || value === null ? value : undefined;
}

function toUsage(usage: unknown): TurnUsage {
  const u = isRecord(usage) ? usage : {};
  const inputDetails = isRecord(u.input_tokens_details) ? u.input_tokens_details : {};
  const outputDetails = isRecord(u.output_tokens_details) ? u.output_tokens_details : {};
  return {
    inputTokens: nonNegativeCount(u.input_tokens),
    cachedTokens: nonNegativeCount(inputDetails.cached_tokens),
    outputTokens: nonNegativeCount(u.output_tokens),
    reasoningTokens: nonNegativeCount(outputDetails.reasoning_tokens),
  };
}

/** The content parts of a message item; none for any other item. */
function messageParts(item: unknown): readonly unknown[] {
  return isRecord(item) && item.type === 'message' ? listOf(item.content) : [];
}

function messageText(item: unknown): string {
  let text = '';
  for (const part of messageParts(item)) {
    if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** The `url_citation` annotations of a message item's output_text parts. */
function messageCitations(item: unknown): UrlCitation[] {
  const found: UrlCitation[] = [];
  for (const part of messageParts(item)) {
    for (const a of listOf(isRecord(part) ? part.annotations : undefined)) {
      if (isUrlCitation(a)) found.push({ url: a.url, title: a.title, start_index: a.start_index, end_index: a.end_index });
    }
  }
  return found;
}

/** The call items agentx runs; one it cannot read (no call_id, no name) must not pass as "no calls". */
const CALL_ITEM_TYPES = new Set(['function_call', 'shell_call', 'custom_tool_call', 'apply_patch_call']);

/**
 * The completed response as the engine uses it. Throws a TypeError (reported as a malformed
 * answer, retried, then one line) for output that is not a list or a call item it cannot read:
 * answering "done" then would drop what the model asked for without a word.
 */
export function toCompleted(response: WireResponse, { strict = true } = {}): CompletedResponse {
  // An incomplete response (cut at max_output_tokens) may end in a half-written item: its
  // unreadable items are left out, as before, rather than failing the whole answer.
  if (strict && response.output !== undefined && response.output !== null && !Array.isArray(response.output)) {
    throw new TypeError('a response.completed event whose output is not a list');
  }
  const output = listOf(response.output);
  for (const item of strict ? output : []) {
    if (isRecord(item) && typeof item.type === 'string' && CALL_ITEM_TYPES.has(item.type) && !isToolCallItem(item)) {
      throw new TypeError(`a ${item.type} item without its ${typeof item.call_id === 'string' ? 'fields' : 'call_id'}`);
    }
  }
  let text = '';
  const toolCalls: ToolCallItem[] = [];
  const compactions: CompactionItem[] = [];
  const hosted: HostedItem[] = [];
  const citations: UrlCitation[] = [];
  for (const item of output) {
    text += messageText(item);
    citations.push(...messageCitations(item));
    if (isToolCallItem(item)) toolCalls.push(item);
    else if (isHostedItem(item)) hosted.push(item);
    else if (isCompactionItem(item)) compactions.push(compactionOf(item));
    else {
      // An approval request waits for an answer like a call (journaled, answered exactly once).
      const approval = approvalRequestCall(item);
      if (approval) toolCalls.push(approval);
    }
  }
  const completed: CompletedResponse = {
    id: response.id,
    status: optionalText(response.status) ?? 'completed',
    text,
    toolCalls,
    items: replayableOutput(output),
    usage: toUsage(response.usage),
  };
  if (compactions.length > 0) completed.compactions = compactions;
  if (hosted.length > 0) completed.hosted = hosted;
  if (citations.length > 0) completed.citations = citations;
  return completed;
}

function compactionOf(item: CompactionItem): CompactionItem {
  return item.id
    ? { type: 'compaction', encrypted_content: item.encrypted_content, id: item.id }
    : { type: 'compaction', encrypted_content: item.encrypted_content };
}

/**
 * The output of POST /responses/compact as input items for a new chain: messages and compaction
 * items with only the fields an input item has (the service adds ids and statuses to its output).
 */
export function compactedInput(output: readonly unknown[]): InputItem[] {
  const items: InputItem[] = [];
  for (const item of output) {
    if (!isInputItem(item)) continue;
    if (item.type === 'message') items.push({ type: 'message', role: item.role, content: item.content });
    else if (item.type === 'compaction') items.push(compactionOf(item));
  }
  return items;
}

/** Time to response headers when the caller sets none (AGENTX_HEADERS_TIMEOUT_MS). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/** The SDK's timeout (see `timeout` below) only covers the wait for response headers. */
function headersTimeout(ms: number, endpoint: string): ModelError {
  const seconds = ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
  return new ModelError(`the server sent no response headers within ${seconds} (AGENTX_HEADERS_TIMEOUT_MS; ${endpoint})`, 'retryable');
}

const RETRYABLE_STREAM_CODES = new Set(['server_error', 'rate_limit_exceeded', 'server_is_overloaded', 'slow_down', 'timeout']);

function streamFailure(code: string | null | undefined, message: string | null | undefined): ModelError {
  if (code === CONTEXT_LENGTH_EXCEEDED) return contextOverflow();
  const kind = code && RETRYABLE_STREAM_CODES.has(code) ? 'retryable' : 'fatal';
  return new ModelError(`${message ?? 'the response failed'}${code ? ` (${code})` : ''}`, kind, { code: code ?? undefined });
}

/**
 * Our request is the wire body; the SDK's request type is a wider union of the same shapes.
 * The one cast in the client: the SDK types `input`/`tools` as its own item unions, which ours
 * are structurally a subset of (wire.ts), minus SDK-only optional fields.
 */
function toSdkRequest(request: ModelRequest): ResponseCreateParamsStreaming {
  return request as ResponseCreateParamsStreaming;
}

/**
 * The stream's events as the few shapes we read; any other event is `{ type: '' }` (ignored).
 * An event missing what its type promises (a completion without its response) is a TypeError,
 * reported below as a malformed event.
 */
function toWireEvent(raw: unknown): WireEvent {
  if (!isRecord(raw) || typeof raw.type !== 'string') return { type: '' };
  const malformed = (what: string): TypeError => new TypeError(`a ${String(raw.type)} event without ${what}`);
  switch (raw.type) {
    case 'response.output_text.delta':
    case 'response.reasoning_summary_text.delta':
      if (typeof raw.delta !== 'string') throw malformed('its text delta');
      return { type: raw.type, delta: raw.delta };
    case 'response.reasoning_summary_part.done':
      return { type: raw.type };
    case 'response.output_item.added':
    case 'response.output_item.done':
      return { type: raw.type, item: raw.item };
    case 'response.completed':
    case 'response.incomplete': {
      const response = raw.response;
      if (!isRecord(response) || typeof response.id !== 'string') throw malformed('its response');
      return { type: raw.type, response: { id: response.id, status: response.status, output: response.output, usage: response.usage } };
    }
    case 'response.failed': {
      if (!isRecord(raw.response)) throw malformed('its response');
      const error = isRecord(raw.response.error) ? raw.response.error : {};
      return { type: raw.type, code: optionalText(error.code), message: optionalText(error.message) };
    }
    case 'error':
      return { type: raw.type, code: optionalText(raw.code), message: optionalText(raw.message) };
    default:
      return { type: '' };
  }
}

type OpenAIClass = typeof import('openai')['default'];

/**
 * The SDK, reading the error bodies it does not know as error-body.ts does (vLLM's, FastAPI's, a
 * proxy's HTML page). makeStatusError is the one place that sees the whole body, so a subclass:
 * the reason goes in as OpenAI's shape and the SDK builds its usual error, status and all.
 */
function readingErrorBodies(OpenAI: OpenAIClass, secrets: string[]): OpenAIClass {
  return class extends OpenAI {
    protected override makeStatusError(status: number, body: unknown, text: string | undefined, headers: Headers) {
      const reason = errorBodyReason(status, body, text, headers.get('content-type') ?? undefined, secrets);
      if (reason === undefined) return super.makeStatusError(status, body as object, text, headers);
      const fields = isRecord(body) ? body : {};
      const keep = (k: 'code' | 'param' | 'type') => (typeof fields[k] === 'string' ? { [k]: fields[k] } : {});
      return super.makeStatusError(status, { error: { message: reason, ...keep('code'), ...keep('param'), ...keep('type') } }, undefined, headers);
    }
  };
}

/**
 * The model client: one streamed Responses call (over HTTP+SSE through the SDK, or over the
 * WebSocket transport) turned into our events, with idle and header timeouts and classified
 * failures; and the /responses/compact call. Built by createOpenAIClient once the SDK is loaded.
 */
export class ResponsesClient implements ModelClient {
  readonly #OpenAI: OpenAIClass;
  readonly #sdk: InstanceType<OpenAIClass>;
  readonly #opts: ClientOptions;
  readonly #endpoint: string;
  readonly #socketEvents: ReturnType<typeof socketTransport>;

  constructor(OpenAI: OpenAIClass, opts: ClientOptions) {
    this.#OpenAI = OpenAI;
    this.#opts = opts;
    this.#endpoint = displayUrl(opts.baseUrl);
    const auth = wireAuth(opts.provider ?? 'openai', opts.apiKey, opts.azureApiVersion);
    const Sdk = readingErrorBodies(OpenAI, [opts.apiKey]);
    this.#sdk = new Sdk({
      defaultHeaders: { ...opts.extraHeaders, ...auth.headers },
      defaultQuery: auth.query,
      apiKey: opts.apiKey,
      baseURL: opts.baseUrl,
      organization: opts.organization ?? null,
      project: opts.project ?? null,
      // Our own recovery decides about retries (SPEC §3.6); the idle timer below catches stuck streams.
      maxRetries: 0,
      // The SDK's timeout ends when fetch resolves, i.e. it is exactly a time-to-headers limit.
      timeout: opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      // A tunnel through a proxy and the TLS inside it get half the time to headers: the SDK's
      // timeout cannot end a request still waiting for its socket (node:http emits nothing until
      // the socket arrives), and, firing first, this bound names the proxy that stalled.
      fetch: createNodeFetch({ caFile: opts.caFile, tunnelTimeoutMs: (opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS) / 2 }),
      // The SDK logs unparsable events to the console; we report them as one classified failure.
      logLevel: 'off',
    });
    // WebSocket mode when chosen (transport.ts); null means "send this one over HTTP".
    this.#socketEvents = socketTransport({
      ...opts,
      query: auth.query,
      endpoint: this.#endpoint,
      handshakeTimeoutMs: opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      apiError: (status, body) => OpenAI.APIError.generate(status, { error: body }, undefined, new Headers()),
    });
  }

  /** The SDK error class, by instanceof (class names do not survive minification). */
  #sdkKindOf(err: unknown): 'abort' | 'timeout' | 'connection' | undefined {
    const OpenAI = this.#OpenAI;
    return err instanceof OpenAI.APIUserAbortError
      ? 'abort'
      : err instanceof OpenAI.APIConnectionTimeoutError
        ? 'timeout'
        : err instanceof OpenAI.APIConnectionError
          ? 'connection'
          : undefined;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const opts = this.#opts;
    const endpoint = this.#endpoint;
    const idle = new AbortController();
    let idleTimer: NodeJS.Timeout | undefined;
    // After response.completed the rest of the stream is only drained (so the keep-alive
    // connection can serve the tool loop's next request); a server that keeps it open is not
    // waited on for long.
    let completed: CompletedResponse | undefined;
    const touch = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => idle.abort(), completed ? Math.min(opts.idleTimeoutMs, 2000) : opts.idleTimeoutMs);
    };
    const combined = AbortSignal.any([signal, idle.signal]);
    let partialText = '';
    let streaming = false;
    // Remote MCP headers hold tokens: the debug log gets the request without them, and any echo
    // of them (a response object repeating its tools, an error quoting a header) redacted.
    const secrets = requestSecrets(request);
    const log = opts.log === undefined ? undefined : (kind: 'request' | 'event' | 'error', data: unknown): void => opts.log?.(kind, redactDeep(data, secrets));
    log?.('request', withoutToolSecrets(request));
    try {
      touch();
      const events = (await this.#socketEvents(request, combined)) ?? (await this.#sdk.responses.create(toSdkRequest(request), { signal: combined }));
      streaming = true;
      for await (const raw of events) {
        touch();
        if (completed) continue;
        // Logged as it came (before a malformed one throws); anything but an object with a type as `{ type: '' }`.
        log?.('event', isRecord(raw) && typeof raw.type === 'string' ? raw : { type: '' });
        const ev = toWireEvent(raw);
        switch (ev.type) {
          case 'response.output_text.delta':
            partialText += ev.delta;
            yield { type: 'text_delta', delta: ev.delta };
            break;
          case 'response.reasoning_summary_text.delta':
            yield { type: 'reasoning_delta', delta: ev.delta };
            break;
          case 'response.reasoning_summary_part.done':
            yield { type: 'reasoning_done' };
            break;
          case 'response.output_item.added':
          case 'response.output_item.done':
            if (isHostedItem(ev.item)) yield { type: 'hosted_item', phase: ev.type === 'response.output_item.added' ? 'added' : 'done', item: ev.item };
            break;
          case 'response.completed':
          case 'response.incomplete':
            completed = toCompleted(ev.response, { strict: ev.type === 'response.completed' });
            touch();
            break;
          case 'response.failed':
          case 'error':
            throw streamFailure(ev.code, ev.message);
          default:
            break; // unknown and uninteresting events are ignored, as the API asks
        }
      }
      if (completed) {
        yield { type: 'completed', response: completed };
        return;
      }
      throw new ModelError('the stream ended before the response completed', 'retryable', { partialText });
    } catch (err) {
      // Whatever happens while draining a completed response does not undo it.
      if (completed) {
        yield { type: 'completed', response: completed };
        return;
      }
      if (idle.signal.aborted && !signal.aborted) {
        throw new ModelError(`no data from the server for ${Math.round(opts.idleTimeoutMs / 1000)} s`, 'retryable', { partialText });
      }
      const sdkKind = this.#sdkKindOf(err);
      let failure = signal.aborted
        ? new ModelError('request cancelled', 'aborted', { partialText })
        : sdkKind === 'timeout'
          ? headersTimeout(opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, endpoint)
          : classifyFailure(err, sdkKind, endpoint);
      // A socket that dies mid-stream surfaces as a plain error without status ("terminated"):
      // the response never completed, which is retryable like any cut stream.
      if (streaming && failure.kind === 'fatal' && failure.details.status === undefined && !(err instanceof ModelError)) {
        // A TypeError here is an event missing what its type promises (a completion without its
        // response, output that is not a list): say that, not "cut off" and a minified name.
        const what =
          err instanceof SyntaxError
            ? `the server sent an event that is not valid JSON (${failure.message})`
            : err instanceof TypeError && !/terminated|socket|aborted/i.test(failure.message)
              ? `the server sent a malformed event (${failure.message})`
              : `the stream was cut off (${failure.message})`;
        failure = new ModelError(what, 'retryable', { partialText });
      }
      log?.('error', { message: failure.message, kind: failure.kind, ...failure.details });
      if (failure.details.partialText === undefined && partialText) {
        throw new ModelError(failure.message, failure.kind, { ...failure.details, partialText });
      }
      throw failure;
    } finally {
      clearTimeout(idleTimer);
    }
  }

  async compact(request: CompactRequest, signal: AbortSignal): Promise<CompactedOutput> {
    const opts = this.#opts;
    opts.log?.('request', { compact: request });
    try {
      // A signal of its own: the SDK leaves a listener on the signal it is given, and the turn's
      // signal lives for many requests.
      const res = await this.#sdk.responses.compact(request, { signal: AbortSignal.any([signal]), timeout: opts.idleTimeoutMs });
      return { id: res.id, output: compactedInput(Array.isArray(res.output) ? res.output : []), usage: toUsage(res.usage) };
    } catch (err) {
      const failure = signal.aborted ? new ModelError('request cancelled', 'aborted') : classifyFailure(err, this.#sdkKindOf(err), this.#endpoint);
      opts.log?.('error', { message: failure.message, kind: failure.kind, ...failure.details });
      throw failure;
    }
  }
}

/**
 * The model client. It resolves at once: the SDK itself is loaded by the first request (or
 * earlier by preloadModelClient), so the REPL's prompt does not wait for it.
 */
export function createOpenAIClient(opts: ClientOptions): Promise<ModelClient> {
  return Promise.resolve(deferredClient(opts));
}

let sdk: Promise<OpenAIClass> | undefined;

/** The SDK, loaded once (evaluating it is ~20–40 ms of a start); a failed load is tried again next time. */
function loadSdk(): Promise<OpenAIClass> {
  return (sdk ??= (async () => {
    // Before the SDK first touches Headers/FormData: keeps Node's undici unloaded (web-lite.ts).
    installLiteWebGlobals();
    return (await import('openai')).default;
  })().catch((err: unknown) => {
    sdk = undefined;
    throw err;
  }));
}

/**
 * Loads the SDK now, so that the first request of a deferred client (below) does not wait for
 * it: the REPL calls this once its prompt is drawn. A failure is left for that request to report.
 */
export function preloadModelClient(): void {
  loadSdk().catch(() => undefined);
}

/** A ResponsesClient made when the first request needs it; a failed SDK load is that request's (fatal) error. */
function deferredClient(opts: ClientOptions): ModelClient {
  let client: Promise<ModelClient> | undefined;
  const ready = (): Promise<ModelClient> =>
    (client ??= loadSdk()
      .then((OpenAI) => new ResponsesClient(OpenAI, opts))
      .catch((err: unknown) => {
        client = undefined;
        throw new ModelError(`could not load the OpenAI SDK: ${err instanceof Error ? err.message : String(err)}`, 'fatal');
      }));
  return {
    async *stream(request, signal) {
      yield* (await ready()).stream(request, signal);
    },
    async compact(request, signal) {
      const loaded = await ready();
      if (!loaded.compact) throw new ModelError('this client cannot compact', 'fatal');
      return loaded.compact(request, signal);
    },
  };
}
