import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import { INTERACTIVE_POLICY, ONESHOT_POLICY, retryDelay, withBaseDelay } from './recovery.ts';

const retryable = new ModelError('503', 'retryable', { status: 503 });

describe('retryDelay', () => {
  it('allows 3 attempts interactively and 2 in a one-shot', () => {
    expect(retryDelay(INTERACTIVE_POLICY, 1, retryable, () => 0)).not.toBeNull();
    expect(retryDelay(INTERACTIVE_POLICY, 2, retryable, () => 0)).not.toBeNull();
    expect(retryDelay(INTERACTIVE_POLICY, 3, retryable, () => 0)).toBeNull();
    expect(retryDelay(ONESHOT_POLICY, 1, retryable, () => 0)).not.toBeNull();
    expect(retryDelay(ONESHOT_POLICY, 2, retryable, () => 0)).toBeNull();
  });

  it('backs off exponentially with jitter in the upper half, capped', () => {
    const p = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(retryDelay(p, 1, retryable, () => 0)).toBe(500);
    expect(retryDelay(p, 1, retryable, () => 1)).toBe(1000);
    expect(retryDelay(p, 2, retryable, () => 0)).toBe(1000);
    expect(retryDelay(p, 3, retryable, () => 1)).toBe(4000);
    expect(retryDelay(p, 6, retryable, () => 1)).toBe(5000);
  });

  it('honours Retry-After exactly', () => {
    const limited = new ModelError('429', 'retryable', { status: 429, retryAfterMs: 7000 });
    expect(retryDelay(INTERACTIVE_POLICY, 1, limited, () => 0.5)).toBe(7000);
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
