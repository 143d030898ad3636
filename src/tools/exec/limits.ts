// The numbers of exec sessions (docs/exec-sessions.md): how long a call waits for output, how
// much output a session keeps between reads, how many sessions may run. Codex's values, so a model
// trained on its unified exec meets what it expects.

/** exec_command waits this long for the command to finish before handing back a session id. */
export const EXEC_DEFAULT_YIELD_MS = 10_000;
/** write_stdin waits this long for the answer to what it typed. */
export const WRITE_DEFAULT_YIELD_MS = 250;
export const MIN_YIELD_MS = 250;
export const MAX_YIELD_MS = 30_000;
/** An empty write_stdin (a poll) waits at least this long: a model polling in a tight loop burns turns. */
export const MIN_POLL_MS = 5_000;
/** Output kept per session between two reads: head and tail, the middle counted and dropped. */
export const SESSION_BUFFER_BYTES = 1024 * 1024;
/** At most this many sessions at once; the next exec_command is refused with the reason. */
export const MAX_SESSIONS = 64;
/** The reply's output cap when the call names none (tokens of about 4 bytes). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
export const BYTES_PER_TOKEN = 4;
/** SIGTERM → SIGKILL grace when a session is stopped. */
export const SESSION_KILL_GRACE_MS = 1_000;

/** What a yield request becomes: in range, or the default when absent or not a number. */
export function clampYield(requested: number | undefined, fallback: number): number {
  if (requested === undefined || !Number.isFinite(requested)) return fallback;
  return Math.min(MAX_YIELD_MS, Math.max(MIN_YIELD_MS, Math.round(requested)));
}

/** write_stdin's wait: an empty poll waits at least MIN_POLL_MS, typing answers quickly. */
export function writeYield(requested: number | undefined, chars: string): number {
  const ms = clampYield(requested, WRITE_DEFAULT_YIELD_MS);
  return chars === '' ? Math.max(ms, MIN_POLL_MS) : ms;
}

/** The reply's byte cap from max_output_tokens (positive integers only, else the default). */
export function outputCapBytes(maxOutputTokens: number | undefined): number {
  const tokens = maxOutputTokens !== undefined && Number.isInteger(maxOutputTokens) && maxOutputTokens > 0 ? maxOutputTokens : DEFAULT_MAX_OUTPUT_TOKENS;
  return tokens * BYTES_PER_TOKEN;
}
