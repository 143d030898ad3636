// Token counts of responses: one definition shared by the model client, the session store and
// the cost view (so neither of those imports the other).
export interface TurnUsage {
  inputTokens: number; // includes cached
  cachedTokens: number;
  outputTokens: number; // includes reasoning
  reasoningTokens: number;
}

/**
 * A token or turn count as it may arrive (wire, state file): anything but a finite non-negative number
 * (a string, null, NaN from a broken server or file) counts as 0, so it never reaches totals.
 */
export function nonNegativeCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

export const ZERO_USAGE: TurnUsage = { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 };

export function addUsage(a: TurnUsage, b: TurnUsage): TurnUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}
