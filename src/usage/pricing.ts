// Per-model prices for /usage estimates, in integer nano-dollars per token ($1 per 1M tokens =
// 1000 nano-dollars per token), so every cost computation stays in exact integer arithmetic.
// Public list prices (standard tier) as of early 2026; an estimate, not an invoice.

export interface Rates {
  /** Uncached input tokens. */
  input: number;
  /** Cached input tokens (prompt-cache hits). */
  cachedInput: number;
  /** Output tokens, reasoning included. */
  output: number;
}

export interface ModelPrice extends Rates {
  /**
   * Rates for a request whose prompt is longer than `thresholdTokens` input tokens: the
   * provider bills that whole request at these rates.
   */
  longContext?: Rates & { thresholdTokens: number };
}

const rates = (input: number, cachedInput: number, output: number): Rates => ({ input, cachedInput, output });

/**
 * Matched by longest prefix of the model name, so dated snapshots (`gpt-4.1-2025-04-14`) and
 * provider prefixes stripped by `normalizeModel` find their family.
 */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5.4': { ...rates(2500, 250, 15_000), longContext: { ...rates(5000, 500, 22_500), thresholdTokens: 272_000 } },
  'gpt-5.2': rates(1750, 175, 14_000),
  'gpt-5.2-codex': rates(1750, 175, 14_000),
  'gpt-5.1': rates(1250, 125, 10_000),
  'gpt-5.1-codex': rates(1250, 125, 10_000),
  'gpt-5.1-codex-mini': rates(250, 25, 2000),
  'gpt-5': rates(1250, 125, 10_000),
  'gpt-5-codex': rates(1250, 125, 10_000),
  'gpt-5-mini': rates(250, 25, 2000),
  'gpt-5-nano': rates(50, 5, 400),
  'gpt-5-pro': rates(15_000, 15_000, 120_000),
  'gpt-4.1': rates(2000, 500, 8000),
  'gpt-4.1-mini': rates(400, 100, 1600),
  'gpt-4.1-nano': rates(100, 25, 400),
  'gpt-4o': rates(2500, 1250, 10_000),
  'gpt-4o-mini': rates(150, 75, 600),
  o1: rates(15_000, 7500, 60_000),
  o3: rates(2000, 500, 8000),
  'o3-mini': rates(1100, 550, 4400),
  'o4-mini': rates(1100, 275, 4400),
  'codex-mini-latest': rates(1500, 375, 6000),
  // OpenAI-compatible proxies often serve these; both bill long prompts at higher rates.
  'gemini-2.5-pro': { ...rates(1250, 125, 10_000), longContext: { ...rates(2500, 250, 15_000), thresholdTokens: 200_000 } },
  'gemini-2.5-flash': rates(300, 30, 2500),
  'claude-sonnet-4': { ...rates(3000, 300, 15_000), longContext: { ...rates(6000, 600, 22_500), thresholdTokens: 200_000 } },
  'claude-sonnet-4.5': { ...rates(3000, 300, 15_000), longContext: { ...rates(6000, 600, 22_500), thresholdTokens: 200_000 } },
  'claude-opus-4': rates(15_000, 1500, 75_000),
  'claude-opus-4-5': rates(5000, 500, 25_000),
  'claude-opus-4.5': rates(5000, 500, 25_000),
};

/** `openai/gpt-5` (OpenRouter style) and `models/gemini-2.5-pro` name the same model as `gpt-5`. */
export function normalizeModel(model: string): string {
  const lower = model.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash === -1 ? lower : lower.slice(slash + 1);
}

/** The price of a model, or undefined when the table does not know it (the cost is then not shown). */
export function priceFor(model: string): ModelPrice | undefined {
  const name = normalizeModel(model);
  let best: string | undefined;
  for (const key of Object.keys(PRICES)) {
    // A dot is not a boundary: gpt-5.3 is a different model from gpt-5, not a snapshot of it.
    const boundary = name.length === key.length || name[key.length] === '-' || name[key.length] === ':';
    if (name.startsWith(key) && boundary && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : PRICES[best];
}
