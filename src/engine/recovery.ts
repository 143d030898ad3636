// Retry policy as data (SPEC §3.6): bounded attempts, exponential backoff with jitter,
// Retry-After honoured, a budget for the waits of one request. Pure: the turn engine executes
// what this decides.
import type { ModelError } from '../model/errors.ts';

export interface RetryPolicy {
  maxAttempts: number; // total attempts of one request, the first included
  baseDelayMs: number;
  maxDelayMs: number; // longest single backoff wait (a server's Retry-After may ask for more)
  /**
   * No retry starts once this much time has gone since the request first failed (its waits and
   * its failing attempts: a server that answers nothing till the header timeout uses it up too);
   * unset: no budget beyond the attempts.
   */
  totalWaitMs?: number;
}

/** The REPL gives up quickly: after that the person chooses (Retry / New chain / …). */
export const INTERACTIVE_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 20_000, totalWaitMs: 120_000 };
/**
 * A one-shot has nobody to ask, and a script should outlive a provider's short blip: up to 10
 * retries within about a minute of the first failure (1, 2, 4, 8, 16, 20 … s, with jitter).
 */
export const ONESHOT_POLICY: RetryPolicy = { maxAttempts: 11, baseDelayMs: 1000, maxDelayMs: 20_000, totalWaitMs: 60_000 };

/** Scales delays (AGENTX_RETRY_BASE_MS) so tests and benchmarks do not sleep for seconds. */
export function withBaseDelay(policy: RetryPolicy, baseDelayMs: number | undefined): RetryPolicy {
  if (baseDelayMs === undefined || !Number.isFinite(baseDelayMs) || baseDelayMs < 0) return policy;
  return { ...policy, baseDelayMs, maxDelayMs: Math.max(baseDelayMs, Math.min(policy.maxDelayMs, baseDelayMs * 20)) };
}

/** A one-shot's AGENTX_MAX_RETRIES (retries after the first attempt) and AGENTX_RETRY_MAX_MS (the wait budget), when set. */
export function withRetryLimits(policy: RetryPolicy, limits: { maxRetries?: number; retryMaxMs?: number }): RetryPolicy {
  return {
    ...policy,
    ...(limits.maxRetries === undefined ? {} : { maxAttempts: limits.maxRetries + 1 }),
    ...(limits.retryMaxMs === undefined ? {} : { totalWaitMs: limits.retryMaxMs }),
  };
}

/**
 * Delay before attempt `attempt + 1`, or null when the failure should not be retried.
 * `spentMs` is the time this request already spent on retrying (see totalWaitMs).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, error: ModelError, random: () => number, spentMs = 0): number | null {
  if (error.kind !== 'retryable' || attempt >= policy.maxAttempts) return null;
  const left = (policy.totalWaitMs ?? Infinity) - spentMs;
  if (left <= 0) return null;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Full jitter on the upper half keeps retries from many clients apart but never instant.
  const backoff = Math.round(exp / 2 + random() * (exp / 2));
  const retryAfter = error.details.retryAfterMs;
  if (retryAfter === undefined) return Math.min(backoff, left);
  // Never earlier than the server asked; a `Retry-After: 0` still backs off (no hammering).
  // A wait the budget cannot cover is not started: retrying earlier would only be refused again.
  if (retryAfter > left) return null;
  return Math.min(Math.max(retryAfter, backoff), left);
}
