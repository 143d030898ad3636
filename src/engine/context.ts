// The model's context window and how full it is: the window per model (a built-in table,
// AGENTX_CONTEXT_WINDOW, or a conservative default), "ctx 63% left" from the last response's
// usage, and when to compact (AGENTX_AUTO_COMPACT). Pure: settings arrive as strings.
import type { TurnUsage } from '../model/types.ts';

export interface KnownWindow {
  /** Matches the model id, dated snapshots included (gpt-4.1-2025-04-14). */
  pattern: RegExp;
  family: string;
  /** Input + output tokens the model handles in one request. */
  contextWindow: number;
  maxOutput: number;
  /** Input tokens accepted, where that is below contextWindow (GPT-5: 272k of 400k). */
  inputLimit: number | null;
  source: string;
}

const COMPARE_PAGE = 'platform.openai.com/docs/models (compare page, as copied in evidence-toolkit/evidence-toolkit docs/ai-docs/openai/models.md)';

/**
 * Checked in order, most specific first. Numbers and sources are listed in the README ("Context window").
 * GPT-5 models take 400k tokens of which at most 128k output, so 272k input (models.dev PR
 * #851; Codex's models.json uses context_window 272000): the input limit is what a request hits.
 * Later gpt-5.x models fall under `gpt-5` conservatively until listed.
 */
export const KNOWN_WINDOWS: readonly KnownWindow[] = [
  {
    pattern: /^gpt-5/i,
    family: 'gpt-5',
    contextWindow: 400_000,
    maxOutput: 128_000,
    inputLimit: 272_000,
    source: `${COMPARE_PAGE}; input limit: anomalyco/models.dev PR #851, openai/codex models.json`,
  },
  {
    pattern: /^gpt-4\.1/i,
    family: 'gpt-4.1',
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    inputLimit: null,
    source: `${COMPARE_PAGE}; vercel.com/ai-gateway/models/gpt-4.1-fast`,
  },
  {
    pattern: /^gpt-4o/i,
    family: 'gpt-4o',
    contextWindow: 128_000,
    maxOutput: 16_384,
    inputLimit: null,
    source: 'platform.openai.com/docs/models/gpt-4o (as cited in gitlab-org prompt-library#297)',
  },
  {
    pattern: /^o[34](-mini)?(-\d{4}-\d{2}-\d{2})?$/i,
    family: 'o3 / o4-mini',
    contextWindow: 200_000,
    maxOutput: 100_000,
    inputLimit: null,
    source: `${COMPARE_PAGE}; platform.openai.com/docs/models/o3 (RooCodeInc/Roo-Code PR #2691)`,
  },
  {
    pattern: /^gpt-4-turbo/i,
    family: 'gpt-4-turbo',
    contextWindow: 128_000,
    maxOutput: 4_096,
    inputLimit: null,
    source: 'openai.com/index/new-models-and-developer-products-announced-at-devday',
  },
];

/** For models not in the table (other servers, new models): small enough to be safe on most. */
export const DEFAULT_WINDOW_TOKENS = 128_000;
const MIN_WINDOW_TOKENS = 1_000;

export interface ContextWindow {
  /** Tokens the context (input of the next request) may reach. */
  tokens: number;
  /** Where the number comes from; `default` means agentx guessed (say so in /usage). */
  source: 'table' | 'setting' | 'default' | 'observed';
  /** The table family, the setting name, or a note, for /usage. */
  note: string;
}

/** A bad setting: one line for the person, naming the setting and what it accepts. */
export class ContextSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContextSettingError';
  }
}

function parseTokens(raw: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(raw);
  if (!m?.[1]) return null;
  const scale = m[2]?.toLowerCase() === 'k' ? 1_000 : m[2]?.toLowerCase() === 'm' ? 1_000_000 : 1;
  const n = Math.floor(Number(m[1]) * scale);
  return Number.isFinite(n) ? n : null;
}

/** The window for a model: AGENTX_CONTEXT_WINDOW (tokens, `200k`, `1m`) wins over the table. */
export function contextWindowFor(model: string, setting: string | undefined): ContextWindow {
  if (setting !== undefined && setting.trim() !== '') {
    const tokens = parseTokens(setting);
    if (tokens === null || tokens < MIN_WINDOW_TOKENS) {
      throw new ContextSettingError(
        `AGENTX_CONTEXT_WINDOW: expected a number of tokens of at least ${MIN_WINDOW_TOKENS} (e.g. 128000 or 128k), got "${setting}"`,
      );
    }
    return { tokens, source: 'setting', note: 'AGENTX_CONTEXT_WINDOW' };
  }
  const known = KNOWN_WINDOWS.find((w) => w.pattern.test(model));
  if (known) return { tokens: known.inputLimit ?? known.contextWindow, source: 'table', note: known.family };
  return { tokens: DEFAULT_WINDOW_TOKENS, source: 'default', note: `unknown model "${model}"` };
}

/**
 * After the server refused `estimatedTokens` as too long, the window is smaller than that: use
 * 90% of it from now on (remembered per server and model, see server-capabilities.ts).
 */
export function windowAfterOverflow(window: ContextWindow, estimatedTokens: number): ContextWindow {
  const learned = Math.floor(estimatedTokens * 0.9);
  if (window.source === 'setting' || learned >= window.tokens || learned < MIN_WINDOW_TOKENS) return window;
  return { tokens: learned, source: 'observed', note: `the server refused ${estimatedTokens} tokens` };
}

/**
 * How full the context is: the last response's input + output (`context_tokens` in the session)
 * is what the next request starts from. Carried by the usage events and shown in /usage.
 */
export interface ContextLeft {
  usedTokens: number;
  leftTokens: number;
  /** 0…1 */
  leftFraction: number;
  windowTokens: number;
  windowSource: ContextWindow['source'];
}

/** Context tokens of a response: its input and output, what the next request on the chain starts from. */
export function contextTokensOf(usage: Pick<TurnUsage, 'inputTokens' | 'outputTokens'>): number {
  return Math.max(0, usage.inputTokens) + Math.max(0, usage.outputTokens);
}

export function contextLeft(usedTokens: number, window: ContextWindow): ContextLeft {
  const used = Math.max(0, usedTokens);
  const leftTokens = Math.max(0, window.tokens - used);
  return {
    usedTokens: used,
    leftTokens,
    leftFraction: window.tokens > 0 ? leftTokens / window.tokens : 0,
    windowTokens: window.tokens,
    windowSource: window.source,
  };
}

/** `ctx 63% left` (floored, so 0.4% left reads 0%, never a reassuring 1%); a guessed window says so. */
export function formatContextLeft(left: ContextLeft): string {
  return `ctx ${Math.floor(left.leftFraction * 100)}% left${left.windowSource === 'default' ? ' (window assumed)' : ''}`;
}

export type AutoCompactSetting = { enabled: false } | { enabled: true; fraction: number };
export const DEFAULT_AUTO_COMPACT = 0.85;

/** AGENTX_AUTO_COMPACT: a fraction of the window (0.85, or 85%), or `off`. */
export function parseAutoCompact(setting: string | undefined): AutoCompactSetting {
  if (setting === undefined || setting.trim() === '') return { enabled: true, fraction: DEFAULT_AUTO_COMPACT };
  const raw = setting.trim().toLowerCase();
  if (raw === 'off' || raw === 'false' || raw === '0') return { enabled: false };
  const percent = raw.endsWith('%');
  const n = Number(percent ? raw.slice(0, -1) : raw);
  const fraction = percent ? n / 100 : n;
  if (!Number.isFinite(fraction) || fraction < 0.1 || fraction > 0.99) {
    throw new ContextSettingError(`AGENTX_AUTO_COMPACT: expected a fraction of the window between 0.1 and 0.99 (e.g. 0.85 or 85%) or "off", got "${setting}"`);
  }
  return { enabled: true, fraction };
}

/** Never below the service's minimum compact_threshold (1000). */
export function compactThresholdTokens(window: ContextWindow, setting: AutoCompactSetting): number {
  const fraction = setting.enabled ? setting.fraction : DEFAULT_AUTO_COMPACT;
  return Math.max(1_000, Math.floor(window.tokens * fraction));
}

/** Above this share of the window agentx compacts itself even when the server should have. */
const SERVER_SIDE_BACKSTOP = 0.95;
/** Compacting again must win at least this share of the window, or it would loop (gemini-cli#16213). */
const MIN_PROGRESS = 0.05;

export type AutoCompactDecision =
  | { compact: true; reason: 'threshold' | 'backstop' }
  | { compact: false; reason: 'off' | 'below' | 'server_side' | 'no_progress' };

export interface AutoCompactInput {
  usedTokens: number;
  window: ContextWindow;
  setting: AutoCompactSetting;
  /** The server compacts in the chain (context_management is being sent and honoured). */
  serverSide: boolean;
  /** Context right after the last compaction; unset when there was none on this chain. */
  tokensAfterLastCompaction?: number;
}

/** Whether to compact before sending the next request (checked before each turn and between tool rounds). */
export function autoCompactDecision(input: AutoCompactInput): AutoCompactDecision {
  if (!input.setting.enabled) return { compact: false, reason: 'off' };
  const threshold = input.window.tokens * input.setting.fraction;
  const backstop = input.window.tokens * SERVER_SIDE_BACKSTOP;
  if (input.serverSide && input.usedTokens < backstop) return { compact: false, reason: input.usedTokens >= threshold ? 'server_side' : 'below' };
  if (input.usedTokens < threshold) return { compact: false, reason: 'below' };
  const after = input.tokensAfterLastCompaction;
  if (after !== undefined && input.usedTokens - after < input.window.tokens * MIN_PROGRESS) return { compact: false, reason: 'no_progress' };
  return { compact: true, reason: input.serverSide ? 'backstop' : 'threshold' };
}

/** Tokens of anything sent on the wire, as the emulator counts them (ceil(JSON bytes / 4)). */
export function estimateTokens(value: unknown): number {
  const json = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return Math.ceil(Buffer.byteLength(json, 'utf8') / 4);
}
