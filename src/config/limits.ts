// Limits and timeouts set from the environment (README "Limits"). One
// place reads them, so --help, the docs and the code name the same variables. A value that is
// set but not a usable number is a one-line configuration error, not silently the default.
import { ConfigError } from '../cli/errors.ts';

export interface Limits {
  /** Ceiling for one command's captured output per stream; the model's max_output_length cannot exceed it. */
  maxOutputBytes: number;
  /** Time from sending a request to the response headers. */
  headersTimeoutMs: number;
  /** Longest silence inside a streaming response. */
  streamIdleMs: number;
  /** How long a one-shot with a message waits for an idle stdin pipe to give anything. */
  stdinGraceMs: number;
  /** Largest piped input a one-shot accepts. */
  maxStdinBytes: number;
  /** AGENTX_MAX_RETRIES: a one-shot's automatic retries of one request; unset: ONESHOT_POLICY's. */
  maxRetries?: number;
  /** AGENTX_RETRY_MAX_MS: no retry of a one-shot's request starts later than this after its first failure; unset: ONESHOT_POLICY's. */
  retryMaxMs?: number;
}

export const LIMIT_DEFAULTS: Limits = {
  maxOutputBytes: 64 * 1024,
  headersTimeoutMs: 60_000,
  streamIdleMs: 300_000,
  stdinGraceMs: 1000,
  maxStdinBytes: 16 * 1024 * 1024,
};

export const LIMIT_VARIABLES: Record<keyof Required<Limits>, string> = {
  maxOutputBytes: 'AGENTX_MAX_OUTPUT_BYTES',
  headersTimeoutMs: 'AGENTX_HEADERS_TIMEOUT_MS',
  streamIdleMs: 'AGENTX_STREAM_IDLE_MS',
  stdinGraceMs: 'AGENTX_STDIN_GRACE_MS',
  maxStdinBytes: 'AGENTX_MAX_STDIN_BYTES',
  maxRetries: 'AGENTX_MAX_RETRIES',
  retryMaxMs: 'AGENTX_RETRY_MAX_MS',
};

/** setTimeout treats anything above this as 1 ms; a timeout that large means "practically never". */
const MAX_TIMER_MS = 2 ** 31 - 1;

function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number;
function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: undefined, min: number, max: number): number | undefined;
function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: number | undefined, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || !Number.isInteger(n) || n < min) {
    throw new ConfigError(`${name}: expected a whole number ≥ ${min}, got "${raw}"`);
  }
  return Math.min(n, max);
}

export function resolveLimits(env: NodeJS.ProcessEnv): Limits {
  const v = LIMIT_VARIABLES;
  const d = LIMIT_DEFAULTS;
  return {
    // 1 KiB floor: below that even an error message is cut. No upper bound beyond memory sense.
    maxOutputBytes: readNumber(env, v.maxOutputBytes, d.maxOutputBytes, 1024, 64 * 1024 * 1024),
    headersTimeoutMs: readNumber(env, v.headersTimeoutMs, d.headersTimeoutMs, 1, MAX_TIMER_MS),
    streamIdleMs: readNumber(env, v.streamIdleMs, d.streamIdleMs, 1, MAX_TIMER_MS),
    stdinGraceMs: readNumber(env, v.stdinGraceMs, d.stdinGraceMs, 0, MAX_TIMER_MS),
    maxStdinBytes: readNumber(env, v.maxStdinBytes, d.maxStdinBytes, 1, 1024 * 1024 * 1024),
    // One-shots only (the REPL gives up quickly and lets the person choose); unset: the policy's.
    maxRetries: readNumber(env, v.maxRetries, undefined, 0, 100),
    retryMaxMs: readNumber(env, v.retryMaxMs, undefined, 0, MAX_TIMER_MS),
  };
}

/** The model may ask for less output than the ceiling, never for more. */
export function effectiveOutputCap(requested: number | undefined, ceiling: number): number {
  return requested === undefined ? ceiling : Math.min(requested, ceiling);
}
