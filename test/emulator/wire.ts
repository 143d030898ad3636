// Shared shapes of the Responses API emulator: scripted steps, the request log, API errors and
// small helpers for narrowing the `unknown` JSON that arrives on the wire.
import { randomBytes } from 'node:crypto';
import type {
  Response,
  ResponseCompletedEvent,
  ResponseCreatedEvent,
  ResponseFailedEvent,
  ResponseInProgressEvent,
  ResponseStreamEvent,
  ResponseUsage,
} from 'openai/resources/responses/responses';

export type ShellCallSpec = { commands: string[] };
export type FunctionCallSpec = { name: string; arguments: string };

/** A hosted tool's item in a scripted `hosted` step (see hosted.ts). */
export type HostedStepItem =
  | { type: 'web_search'; query: string; sources?: string[] }
  | { type: 'mcp_list_tools'; server: string; tools: string[]; error?: string }
  | { type: 'mcp_call'; server: string; name: string; arguments: string; output?: string; error?: string }
  | { type: 'mcp_approval_request'; server: string; name: string; arguments: string }
  | { type: 'image_generation'; failed?: boolean };

export type Step =
  | { kind: 'text'; text: string; chunks?: number; delayMs?: number; reasoning?: string }
  | { kind: 'shell'; commands: string[]; timeoutMs?: number; maxOutputLength?: number; text?: string }
  | { kind: 'function'; name: string; arguments: string }
  /** A patch envelope, sent in the form the request's tools offer (see patch.ts). */
  | { kind: 'patch'; patch: string; text?: string }
  | { kind: 'calls'; calls: Array<ShellCallSpec | FunctionCallSpec> }
  /** Hosted tool items, then (optionally) an answer citing `citations` (url_citation annotations). */
  | { kind: 'hosted'; items: HostedStepItem[]; text?: string; citations?: Array<{ url: string; title: string }> }
  | { kind: 'http_error'; status: number; code?: string; message?: string; type?: string; retryAfter?: number; retryAfterMs?: number; times?: number }
  | { kind: 'cut'; afterText?: string }
  | { kind: 'hang' }
  /** The server forgets every stored response when the next request arrives (expiry, a restarted gateway); the step after it answers. */
  | { kind: 'forget' }
  | { kind: 'failed'; code: string; message: string }
  | RawStep;

/**
 * A malformed or unusual answer, written byte for byte (fault tests): bad JSON in an SSE frame,
 * unknown event types, a completion without usage, a non-SSE body. Every `{{id}}` in `body` is
 * replaced by one fresh response id; if a `response.completed` frame of the body parses, that
 * response is stored (with its tool calls pending) so a client can chain from it as usual.
 */
export interface RawStep {
  kind: 'raw';
  body: string;
  /** HTTP status (default 200). */
  status?: number;
  /** Content type (default `text/event-stream; charset=utf-8`). */
  contentType?: string;
  /** Drop the connection after the body instead of ending the response cleanly. */
  cut?: boolean;
}

export const STEP_KINDS: ReadonlySet<string> = new Set([
  'text',
  'shell',
  'function',
  'patch',
  'calls',
  'hosted',
  'http_error',
  'cut',
  'hang',
  'forget',
  'failed',
  'raw',
]);

export interface LoggedRequest {
  seq: number;
  at: number;
  method: string;
  path: string;
  hasAuth: boolean;
  body: unknown;
  bytes: number;
  status: number;
  requestId: string;
  responseId?: string;
  error?: { code: string | null; message: string };
  /** Set once `response.completed` (or the completed JSON response) has been sent. */
  completed?: boolean;
  /** The completed response's usage (cached tokens included), for tests that add up what was reported. */
  usage?: ResponseUsage;
  /** How it came: POST (http) or a response.create message on a socket (websocket). */
  transport: 'http' | 'websocket';
  /** The request's headers (of the handshake, for a socket), lower-case names; tests pin what was sent. */
  headers: Record<string, string>;
  /** The query string's parameters. */
  query: Record<string, string>;
}

/** The body of an API error, as the service sends it under `error`. */
export interface ErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** An error answer: thrown or returned by checks, turned into an HTTP response by the server. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  /** The whole JSON body when a server does not use OpenAI's `{ error }` envelope (vLLM). */
  readonly wireBody: unknown;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}, wireBody?: unknown) {
    super(body.message);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.wireBody = wireBody;
  }
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): ApiError {
  return new ApiError(400, { message, type: 'invalid_request_error', param, code });
}

/** The response object as it travels on the wire (the SDK adds `output_text` client-side; usage is null until done). */
export type WireResponse = Omit<
  Response,
  'output_text' | 'usage' | 'error' | 'tools' | 'tool_choice' | 'instructions' | 'reasoning' | 'text' | 'metadata' | 'model'
> & {
  model: string;
  usage: ResponseUsage | null;
  error: { code: string; message: string } | null;
  tools: unknown[];
  tool_choice: unknown;
  instructions: string | null;
  reasoning: unknown;
  text: unknown;
  metadata: Record<string, unknown>;
  store: boolean;
};

type LifecycleEvent = ResponseCreatedEvent | ResponseInProgressEvent | ResponseCompletedEvent | ResponseFailedEvent;
type Unsequenced<T> = T extends unknown ? Omit<T, 'sequence_number'> : never;

/** A stream event before the writer numbers it; lifecycle events carry the wire response. */
export type WireEvent = Unsequenced<Exclude<ResponseStreamEvent, LifecycleEvent>> | { type: LifecycleEvent['type']; response: WireResponse };

export function newId(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asRecords(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
