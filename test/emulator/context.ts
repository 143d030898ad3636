// The emulated model's context window and the server's compaction features, configurable per run
// (startEmulator options, CLI flags, or POST /__emulator/context from another process).
//
// Token counting is an approximation documented here once: a request's input tokens are
// ceil(bytes / 4) of its instructions, its tools (JSON) and every item of the context it renders
// (the stored chain behind previous_response_id, after any compaction, plus the request's input,
// each item as JSON). Output tokens are ceil(bytes / 4) of the generated text, arguments and
// commands. A request whose input tokens exceed the window fails with context_length_exceeded.
import { isRecord } from './wire.ts';

/**
 * How an over-long request fails. `http`: HTTP 400 before any stream (what the service does).
 * `failed`: a stream that ends in `response.failed` with the code. `error`: an `error` event with
 * top-level code/message (the SDK's ResponseErrorEvent). `error_nested`: an `error` event whose
 * details sit under `error` (seen in the wild; the SDK throws it as an APIError without status).
 */
export type OverflowForm = 'http' | 'failed' | 'error' | 'error_nested';
export const OVERFLOW_FORMS: readonly OverflowForm[] = ['http', 'failed', 'error', 'error_nested'];

export interface ContextOptions {
  /** Input tokens the model accepts; null or unset: unlimited (the default, as before). */
  windowTokens?: number | null;
  overflowForm?: OverflowForm;
  /** `context_management` on responses.create is accepted and honoured (default true). */
  contextManagement?: boolean;
  /** POST /v1/responses/compact exists (default true). */
  compactEndpoint?: boolean;
}

export interface ContextSettings {
  windowTokens: number | null;
  overflowForm: OverflowForm;
  contextManagement: boolean;
  compactEndpoint: boolean;
}

export function contextSettings(opts: ContextOptions = {}, base?: ContextSettings): ContextSettings {
  return {
    windowTokens: opts.windowTokens === undefined ? (base?.windowTokens ?? null) : opts.windowTokens,
    overflowForm: opts.overflowForm ?? base?.overflowForm ?? 'http',
    contextManagement: opts.contextManagement ?? base?.contextManagement ?? true,
    compactEndpoint: opts.compactEndpoint ?? base?.compactEndpoint ?? true,
  };
}

export const OVERFLOW_MESSAGE = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

/** Threshold for server-side compaction: the request's own, else 80% of the window, else never. */
export function compactThreshold(requested: number | null, settings: ContextSettings): number | null {
  if (requested !== null) return requested;
  return settings.windowTokens === null ? null : Math.floor(settings.windowTokens * 0.8);
}

/**
 * Tokens of the person's newest messages a compaction keeps verbatim: a fifth of the window
 * (20,000 without a window, Codex's COMPACT_USER_MESSAGE_MAX_TOKENS), and for server-side
 * compaction at most a quarter of the threshold, so a compaction always lands well below it.
 */
export function keptMessagesBudgetTokens(settings: ContextSettings, threshold: number | null = null): number {
  const tokens = settings.windowTokens === null ? 20_000 : Math.floor(settings.windowTokens * 0.2);
  return threshold === null ? tokens : Math.min(tokens, Math.floor(threshold / 4));
}

const isOverflowForm = (v: unknown): v is OverflowForm => typeof v === 'string' && OVERFLOW_FORMS.some((f) => f === v);

/** Parses a control request body; returns an error message when malformed. */
export function parseContextOptions(body: unknown): ContextOptions | string {
  if (!isRecord(body)) return 'Body must be a JSON object.';
  const opts: ContextOptions = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'windowTokens') {
      if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)) return 'windowTokens must be a positive integer or null.';
      opts.windowTokens = value;
    } else if (key === 'overflowForm') {
      if (!isOverflowForm(value)) return `overflowForm must be one of ${OVERFLOW_FORMS.join(', ')}.`;
      opts.overflowForm = value;
    } else if (key === 'contextManagement' || key === 'compactEndpoint') {
      if (typeof value !== 'boolean') return `${key} must be a boolean.`;
      opts[key] = value;
    } else {
      return `Unknown context option: ${key}.`;
    }
  }
  return opts;
}
