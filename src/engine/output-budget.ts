// Tool outputs capped by tokens relative to the context window, before they are sent: the shell
// tool caps each command's output in bytes (64 KiB), which alone can exceed a small window.
import { capOutput } from '../tools/output.ts';
import type { ContextWindow } from './context.ts';
import type { InputItem, ShellOutputChunk } from '../wire/items.ts';

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

/** Caps the text of one shell output (all chunks share the budget), head and tail kept. */
function capChunks(chunks: readonly ShellOutputChunk[], maxBytes: number): { chunks: ShellOutputChunk[]; cut: number } {
  const texts = chunks.flatMap((c) => [c.stdout, c.stderr]);
  const total = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  if (total <= maxBytes) return { chunks: [...chunks], cut: 0 };
  let cut = 0;
  const cap = (text: string): string => {
    const r = capOutput(text, Math.floor((Buffer.byteLength(text, 'utf8') / total) * maxBytes));
    cut += r.cutBytes;
    return r.text;
  };
  return { chunks: chunks.map((c) => ({ ...c, stdout: cap(c.stdout), stderr: cap(c.stderr) })), cut };
}

/**
 * The item with its tool output cut to about `maxTokens` (4 bytes a token, as the emulator and
 * estimateTokens count); other items and small outputs come back unchanged (same object).
 */
export function capToolOutputItem(item: InputItem, maxTokens: number): InputItem {
  const maxBytes = Math.max(0, maxTokens) * 4;
  switch (item.type) {
    case 'message':
    case 'compaction':
      return item;
    case 'shell_call_output': {
      const r = capChunks(item.output, maxBytes);
      return r.cut === 0 ? item : { ...item, output: r.chunks };
    }
    default: {
      const r = capOutput(item.output, maxBytes);
      return r.cutBytes === 0 ? item : { ...item, output: r.text };
    }
  }
}

/** Every tool output of a request's input capped for this window (before the request is sent). */
export function capToolOutputs(input: readonly InputItem[], window: ContextWindow): InputItem[] {
  const cap = toolOutputCapTokens(window);
  return input.map((item) => capToolOutputItem(item, cap));
}

/** The hopeless-overflow choice "trim the last tool output": every output of the input cut hard. */
export function trimToolOutputs(input: readonly InputItem[], window: ContextWindow): InputItem[] {
  const cap = trimmedOutputCapTokens(window);
  return input.map((item) => capToolOutputItem(item, cap));
}
