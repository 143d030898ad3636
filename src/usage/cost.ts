// Cost estimates in integer nano-dollars: token counts times integer rates, never a float, so
// sums over a long session do not drift and tests can compare exact values.
import type { ModelPrice, Rates } from './pricing.ts';

export interface TokenCounts {
  /** All input tokens, cached included. */
  inputTokens: number;
  cachedTokens: number;
  /** Reasoning included. */
  outputTokens: number;
  reasoningTokens: number;
}

const NANOS_PER_UNIT = 100_000; // $0.0001, the precision shown

function whole(n: number): number {
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function atRates(r: Rates, u: TokenCounts): number {
  const input = whole(u.inputTokens);
  const cached = Math.min(whole(u.cachedTokens), input);
  return (input - cached) * r.input + cached * r.cachedInput + whole(u.outputTokens) * r.output;
}

/** One request: a prompt over the long-context threshold bills the whole request at the long rates. */
export function requestCost(price: ModelPrice, u: TokenCounts): number {
  const long = price.longContext;
  return long && whole(u.inputTokens) > long.thresholdTokens ? atRates(long, u) : atRates(price, u);
}

/**
 * Aggregated counts whose per-request split is unknown (restored totals): standard rates, since
 * a sum cannot tell whether any single prompt crossed the long-context threshold.
 */
export function aggregateCost(price: ModelPrice, u: TokenCounts): number {
  return atRates(price, u);
}

export function subtractCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
    cachedTokens: Math.max(0, a.cachedTokens - b.cachedTokens),
    outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
    reasoningTokens: Math.max(0, a.reasoningTokens - b.reasoningTokens),
  };
}

export function addCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

export const NO_TOKENS: TokenCounts = { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 };

/** A turn this process watched request by request, so its cost is exact (long context included). */
export interface TurnCost {
  usage: TokenCounts;
  nanos: number;
}

/**
 * The session's cost: `watched` turns (seen in this process and still on the chain; the caller
 * filters) at their exact cost, the rest of the session totals at the standard rates of `price`.
 * Undefined when part of the total cannot be priced.
 */
export function sessionCost(total: TokenCounts, watched: Iterable<TurnCost>, price: ModelPrice | undefined): number | undefined {
  let nanos = 0;
  let covered = NO_TOKENS;
  for (const t of watched) {
    nanos += t.nanos;
    covered = addCounts(covered, t.usage);
  }
  const rest = subtractCounts(total, covered);
  const restTokens = rest.inputTokens + rest.outputTokens;
  if (restTokens === 0) return nanos;
  return price ? nanos + aggregateCost(price, rest) : undefined;
}

/** `$1.2345`: rounded half up to $0.0001 with integer division only. */
export function formatNanos(nanos: number): string {
  const n = whole(nanos);
  const rem = n % NANOS_PER_UNIT;
  const units = (n - rem) / NANOS_PER_UNIT + (rem * 2 >= NANOS_PER_UNIT ? 1 : 0);
  const frac = units % 10_000;
  const dollars = (units - frac) / 10_000;
  return `$${dollars}.${String(frac).padStart(4, '0')}`;
}
