// Retry policy as data (SPEC §3.6): bounded attempts, exponential backoff with jitter,
// Retry-After honoured. Pure: the turn engine executes what this decides.
import type { ModelError } from '../model/errors.ts';

export interface RetryPolicy {
  maxAttempts: number;   // total attempts of one request, the first included
  baseDelayMs: number;
  maxDelayMs: number;
}

export const INTERACTIVE_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 20_000 };
/** One-shots retry a retryable failure once, then give up (SPEC §3.6). */
export const ONESHOT_POLICY: RetryPolicy = { maxAttempts: 2, baseDelayMs: 1000, maxDelayMs: 20_000 };

/** Scales delays (AGENTX_RETRY_BASE_MS) so tests and benchmarks do not sleep for seconds. */
export function withBaseDelay(policy: RetryPolicy, baseDelayMs: number | undefined): RetryPolicy {
  if (baseDelayMs === undefined || !Number.isFinite(baseDelayMs) || baseDelayMs < 0) return policy;
  return { ...policy, baseDelayMs, maxDelayMs: Math.max(baseDelayMs, Math.min(policy.maxDelayMs, baseDelayMs * 20)) };
}

/** Delay before attempt `attempt + 1`, or null when the failure should not be retried. */
export function retryDelay(policy: RetryPolicy, attempt: number, error: ModelError, random: () => number): number | null {
  if (error.kind !== 'retryable' || attempt >= policy.maxAttempts) return null;
  const retryAfter = error.details.retryAfterMs;
  if (retryAfter !== undefined) return retryAfter;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Full jitter on the upper half keeps retries from many clients apart but never instant.
  return Math.round(exp / 2 + random() * (exp / 2));
}
