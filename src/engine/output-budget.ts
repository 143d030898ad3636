// Tool outputs capped by tokens relative to the context window, before they are sent: the shell
// tool caps each command's output in bytes (64 KiB), which alone can exceed a small window.
import { capOutput } from '../tools/output.ts';
import type { ContextWindow } from './context.ts';

/** One tool output may take at most this share of the window. */
const TOOL_OUTPUT_SHARE = 0.25;
/** What "trim the last tool output" leaves of each output when the context overflowed. */
const TRIMMED_SHARE = 0.02;
const MIN_CAP_TOKENS = 256;

export function toolOutputCapTokens(window: ContextWindow): number {
  return Math.max(MIN_CAP_TOKENS, Math.floor(window.tokens * TOOL_OUTPUT_SHARE));
}

export function trimmedOutputCapTokens(window: ContextWindow): number {
  return Math.max(MIN_CAP_TOKENS, Math.floor(window.tokens * TRIMMED_SHARE));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const OUTPUT_TYPES = new Set(['function_call_output', 'shell_call_output', 'custom_tool_call_output', 'apply_patch_call_output']);

export function isToolOutput(item: unknown): item is Record<string, unknown> {
  return isRecord(item) && typeof item.type === 'string' && OUTPUT_TYPES.has(item.type);
}

/** Text fields of output chunks: shell stdout/stderr, or input_text parts of a function output. */
const TEXT_KEYS = ['stdout', 'stderr', 'text'];

/** Caps the text fields of one output (all chunks share the budget), head and tail kept. */
function capChunks(chunks: unknown[], maxBytes: number): { chunks: unknown[]; cut: number } {
  const texts = chunks.flatMap((c) => (isRecord(c) ? TEXT_KEYS.map((k) => c[k]) : [])).filter((t): t is string => typeof t === 'string');
  const total = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  if (total <= maxBytes) return { chunks, cut: 0 };
  let cut = 0;
  const share = (text: string): number => Math.floor((Buffer.byteLength(text, 'utf8') / total) * maxBytes);
  const capped = chunks.map((c) => {
    if (!isRecord(c)) return c;
    const next: Record<string, unknown> = { ...c };
    for (const key of TEXT_KEYS) {
      const text = c[key];
      if (typeof text !== 'string') continue;
      const r = capOutput(text, share(text));
      cut += r.cutBytes;
      next[key] = r.text;
    }
    return next;
  });
  return { chunks: capped, cut };
}

/**
 * The output item with its text cut to about `maxTokens` (4 bytes a token, as the emulator and
 * estimateTokens count); other items and small outputs come back unchanged (same object).
 */
export function capToolOutputItem(item: unknown, maxTokens: number): unknown {
  if (!isToolOutput(item)) return item;
  const maxBytes = Math.max(0, maxTokens) * 4;
  const output = item.output;
  if (typeof output === 'string') {
    const r = capOutput(output, maxBytes);
    return r.cutBytes === 0 ? item : { ...item, output: r.text };
  }
  if (Array.isArray(output)) {
    const r = capChunks(output, maxBytes);
    return r.cut === 0 ? item : { ...item, output: r.chunks };
  }
  return item;
}

/** Every tool output of a request's input capped for this window (before the request is sent). */
export function capToolOutputs(input: readonly unknown[], window: ContextWindow): unknown[] {
  const cap = toolOutputCapTokens(window);
  return input.map((item) => capToolOutputItem(item, cap));
}

/** The hopeless-overflow choice "trim the last tool output": every output of the input cut hard. */
export function trimToolOutputs(input: readonly unknown[], window: ContextWindow): unknown[] {
  const cap = trimmedOutputCapTokens(window);
  return input.map((item) => capToolOutputItem(item, cap));
}
