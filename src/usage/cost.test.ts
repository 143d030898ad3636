import { describe, expect, it } from 'vitest';
import { aggregateCost, formatNanos, requestCost, sessionCost } from './cost.ts';
import { priceFor, PRICES } from './pricing.ts';

const u = (inputTokens: number, cachedTokens: number, outputTokens: number) => ({ inputTokens, cachedTokens, outputTokens, reasoningTokens: 0 });

describe('pricing', () => {
  it('finds a family by longest prefix, ignoring provider prefixes and dated snapshots', () => {
    expect(priceFor('gpt-5-mini')).toBe(PRICES['gpt-5-mini']);
    expect(priceFor('gpt-4.1-2025-04-14')).toBe(PRICES['gpt-4.1']);
    expect(priceFor('openai/gpt-5')).toBe(PRICES['gpt-5']);
    expect(priceFor('GPT-5.1-codex-max')).toBe(PRICES['gpt-5.1-codex']);
  });
  it('does not guess an unknown model', () => {
    expect(priceFor('gpt-5.3')).toBeUndefined();
    expect(priceFor('llama3')).toBeUndefined();
  });
  it('all rates are integers', () => {
    for (const p of Object.values(PRICES)) {
      for (const v of [p.input, p.cachedInput, p.output]) expect(Number.isInteger(v)).toBe(true);
    }
  });
});

describe('cost', () => {
  const gpt5 = PRICES['gpt-5']!;
  it('bills cached input at the cached rate', () => {
    // 1000 uncached × 1250 + 1000 cached × 125 + 500 out × 10000
    expect(requestCost(gpt5, u(2000, 1000, 500))).toBe(1_250_000 + 125_000 + 5_000_000);
  });
  it('bills a long prompt wholly at long-context rates', () => {
    const p = PRICES['gpt-5.4']!;
    expect(requestCost(p, u(272_000, 0, 0))).toBe(272_000 * 2500);
    expect(requestCost(p, u(272_001, 1, 10))).toBe(272_000 * 5000 + 500 + 10 * 22_500);
    expect(aggregateCost(p, u(300_000, 0, 0))).toBe(300_000 * 2500);
  });
  it('session: watched turns exact, the rest at standard rates', () => {
    const p = PRICES['gpt-5.4']!;
    const watched = [{ usage: u(300_000, 0, 0), nanos: requestCost(p, u(300_000, 0, 0)) }];
    expect(sessionCost(u(300_100, 0, 10), watched, p)).toBe(300_000 * 5000 + 100 * 2500 + 10 * 15_000);
    expect(sessionCost(u(10, 0, 0), [], undefined)).toBeUndefined();
    expect(sessionCost(u(0, 0, 0), [], undefined)).toBe(0);
  });
  it('formats with integer rounding', () => {
    expect(formatNanos(0)).toBe('$0.0000');
    expect(formatNanos(49_999)).toBe('$0.0000');
    expect(formatNanos(50_000)).toBe('$0.0001');
    expect(formatNanos(1_234_567_890)).toBe('$1.2346');
    expect(formatNanos(12_000_000_000)).toBe('$12.0000');
  });
});
