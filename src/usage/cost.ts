// Cost estimates in integer nano-dollars: token counts times integer rates, never a float, so
// sums over a long session do not drift and tests can compare exact values.
import { addUsage, ZERO_USAGE, type TurnUsage } from './tokens.ts';
import type { ModelPrice, Rates } from './pricing.ts';

/** Token counts of one request or a sum of them (input includes cached, output includes reasoning). */
export type TokenCounts = TurnUsage;

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
  let covered = ZERO_USAGE;
  for (const t of watched) {
    nanos += t.nanos;
    covered = addUsage(covered, t.usage);
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
