import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import { INTERACTIVE_POLICY, ONESHOT_POLICY, retryDelay, withBaseDelay, withRetryLimits, type RetryPolicy } from './recovery.ts';

const retryable = new ModelError('503', 'retryable', { status: 503 });

describe('retryDelay', () => {
  it('allows 3 attempts interactively', () => {
    expect(retryDelay(INTERACTIVE_POLICY, 1, retryable, () => 0)).not.toBeNull();
    expect(retryDelay(INTERACTIVE_POLICY, 2, retryable, () => 0)).not.toBeNull();
    expect(retryDelay(INTERACTIVE_POLICY, 3, retryable, () => 0)).toBeNull();
  });

  /** Waits a policy would make for a failure that never goes away, as the turn loop runs them. */
  function waits(policy: RetryPolicy, error: ModelError, random: () => number): number[] {
    const out: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const d = retryDelay(
        policy,
        attempt,
        error,
        random,
        out.reduce((a, b) => a + b, 0),
      );
      if (d === null) return out;
      out.push(d);
    }
  }

  it('a one-shot keeps retrying for about a minute of waiting, never more', () => {
    for (const r of [0, 0.5, 1]) {
      const w = waits(ONESHOT_POLICY, retryable, () => r);
      const total = w.reduce((a, b) => a + b, 0);
      expect(w.length).toBeGreaterThanOrEqual(5);
      expect(total).toBeLessThanOrEqual(60_000);
      expect(total).toBeGreaterThan(30_000);
      expect(w.slice(0, 5)).toEqual([1, 2, 4, 8, 16].map((s) => Math.round(s * 500 * (1 + r))));
    }
  });

  it('backs off exponentially with jitter in the upper half, capped', () => {
    const p = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(retryDelay(p, 1, retryable, () => 0)).toBe(500);
    expect(retryDelay(p, 1, retryable, () => 1)).toBe(1000);
    expect(retryDelay(p, 2, retryable, () => 0)).toBe(1000);
    expect(retryDelay(p, 3, retryable, () => 1)).toBe(4000);
    expect(retryDelay(p, 6, retryable, () => 1)).toBe(5000);
  });

  it('honours Retry-After: never earlier, exactly when it exceeds the backoff', () => {
    const limited = new ModelError('429', 'retryable', { status: 429, retryAfterMs: 7000 });
    expect(retryDelay(INTERACTIVE_POLICY, 1, limited, () => 0.5)).toBe(7000);
    // A later attempt whose backoff is longer than the header waits the backoff.
    expect(retryDelay(ONESHOT_POLICY, 5, limited, () => 1)).toBe(16_000);
  });

  it('a Retry-After of 0 still backs off instead of hammering the server', () => {
    const zero = new ModelError('429', 'retryable', { status: 429, retryAfterMs: 0 });
    expect(retryDelay(ONESHOT_POLICY, 1, zero, () => 0)).toBe(500);
    expect(retryDelay(ONESHOT_POLICY, 3, zero, () => 0)).toBe(2000);
  });

  it('stays within the wait budget: a backoff is shortened, a Retry-After it cannot cover ends the retries', () => {
    const p: RetryPolicy = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 20_000, totalWaitMs: 5000 };
    expect(retryDelay(p, 4, retryable, () => 1, 1000)).toBe(4000);
    expect(retryDelay(p, 4, retryable, () => 1, 4500)).toBe(500);
    expect(retryDelay(p, 4, retryable, () => 1, 5000)).toBeNull();
    const limited = new ModelError('429', 'retryable', { status: 429, retryAfterMs: 3000 });
    expect(retryDelay(p, 1, limited, () => 0, 2000)).toBe(3000);
    expect(retryDelay(p, 1, limited, () => 0, 2001)).toBeNull();
  });

  it('AGENTX_MAX_RETRIES and AGENTX_RETRY_MAX_MS override the policy', () => {
    const p = withRetryLimits(ONESHOT_POLICY, { maxRetries: 2, retryMaxMs: 100 });
    expect(p).toMatchObject({ maxAttempts: 3, totalWaitMs: 100 });
    expect(waits(p, retryable, () => 1)).toEqual([100]);
    expect(withRetryLimits(INTERACTIVE_POLICY, {})).toEqual(INTERACTIVE_POLICY);
    expect(waits(withRetryLimits(ONESHOT_POLICY, { maxRetries: 0 }), retryable, () => 1)).toEqual([]);
  });

  it('never retries fatal, chain-broken or aborted failures', () => {
    for (const kind of ['fatal', 'chain_broken', 'aborted'] as const) {
      expect(retryDelay(INTERACTIVE_POLICY, 1, new ModelError('x', kind), () => 0)).toBeNull();
    }
  });

  it('scales the base delay for tests without changing the attempt count', () => {
    const fast = withBaseDelay(INTERACTIVE_POLICY, 10);
    expect(fast.maxAttempts).toBe(3);
    expect(fast.baseDelayMs).toBe(10);
    expect(withBaseDelay(INTERACTIVE_POLICY, undefined)).toBe(INTERACTIVE_POLICY);
  });
});
