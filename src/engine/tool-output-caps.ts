// Tool outputs capped by tokens relative to the context window, before they are sent: the shell
// tool caps each command's output in bytes, which alone can exceed a small window. The cut keeps
// the head and tail of each long text and says why (lib/shrink-json.ts).
import { shrinkLongStrings } from '../lib/shrink-json.ts';
import { isToolOutputItem, type InputItem } from '../wire/items.ts';
import type { ContextWindow } from './context.ts';

/** One tool output may take at most this share of the window. */
const TOOL_OUTPUT_SHARE = 0.25;
/** What "trim" (after an overflow) leaves of each output. */
const TRIMMED_SHARE = 0.02;
const MIN_CAP_TOKENS = 256;
/** Bytes a token, as the emulator and estimateTokens count them. */
const BYTES_PER_TOKEN = 4;

const capTokens = (window: ContextWindow, share: number): number => Math.max(MIN_CAP_TOKENS, Math.floor(window.tokens * share));

/**
 * The item with its tool output cut to about `maxTokens`; other items and small outputs come
 * back unchanged (the same object).
 */
export function capToolOutputItem(item: InputItem, maxTokens: number, reason: string): InputItem {
  if (item.type === 'message' || item.type === 'compaction') return item;
  const { value, cutBytes } = shrinkLongStrings(item, Math.max(0, maxTokens) * BYTES_PER_TOKEN, reason);
  // Shrinking only shortens strings, so the shape holds; the guard proves it to the compiler.
  return cutBytes > 0 && isToolOutputItem(value) ? value : item;
}

/** Every tool output of a request's input capped for this window (before the request is sent). */
export function capToolOutputs(input: readonly InputItem[], window: ContextWindow): InputItem[] {
  const cap = capTokens(window, TOOL_OUTPUT_SHARE);
  return input.map((item) => capToolOutputItem(item, cap, 'one tool output may take at most a quarter of the context window'));
}

/** The overflow choice "trim": every tool output of the input cut to a short head and tail. */
export function trimToolOutputs(input: readonly InputItem[], window: ContextWindow): InputItem[] {
  const cap = capTokens(window, TRIMMED_SHARE);
  return input.map((item) => capToolOutputItem(item, cap, 'trimmed to fit the context window'));
}
