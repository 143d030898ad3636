// What a compaction leaves behind: the checkpoint recorded in the session state (so /rollback to
// before it and one-shots from after it work), the seed that starts the new chain, our own
// summary prompt, and the local summary used when no request can be made. Pure.
import { isInputItem, userMessage, type InputItem, type ToolOutputItem } from '../wire/items.ts';
import { outputAsText } from './new-chain.ts';

export type CompactionMechanism = 'server' | 'endpoint' | 'summary' | 'local';

/**
 * One compaction, as a checkpoint in the session state (field `compaction`). Until a response on
 * the new chain completes, `response_id` is null and `seed` must start the next request.
 */
export interface CompactionCheckpoint {
  mechanism: CompactionMechanism;
  /** The chain head that was compacted: still on the server, so /rollback to it keeps working. */
  from_response_id: string | null;
  /** Input items that begin the new chain (empty for server-side compaction, which keeps the chain). */
  seed: InputItem[];
  /** Our own summary's text, carried into later local summaries so early facts are never dropped. */
  summary?: string;
  at: string;
  /** Context tokens of the chain when it was compacted. */
  tokens_before: number;
}

/** The slice of the session state this module reads (SessionState satisfies it). */
export interface ChainState {
  response_id: string | null;
  transcript: readonly { role: string; text: string }[];
  [key: string]: unknown;
}

/** Our own summary: what a fresh chain needs to carry on, the person's words verbatim. */
export const SUMMARY_PROMPT = [
  'Summarize the conversation so far for a fresh start: this summary will replace the whole conversation, so it must hold everything needed to continue the work.',
  'Use these headings:',
  'Goal: what the person is trying to achieve.',
  'Decisions: what was decided and why, including approaches that failed.',
  'Files touched: paths created, changed or read that matter, and what changed.',
  'Open tasks: what remains to do, in order.',
  "The person's instructions: every instruction, preference and fact the person gave, quoted verbatim.",
  'Do not call tools. Answer with the summary only.',
].join('\n');

const RECENT_MESSAGES = 3;
const RECENT_MESSAGE_CHARS = 4_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readCheckpoint(state: ChainState): CompactionCheckpoint | null {
  const c = state.compaction;
  if (!isRecord(c) || !Array.isArray(c.seed) || typeof c.at !== 'string') return null;
  const mechanism = c.mechanism;
  if (mechanism !== 'server' && mechanism !== 'endpoint' && mechanism !== 'summary' && mechanism !== 'local') return null;
  return {
    mechanism,
    from_response_id: typeof c.from_response_id === 'string' ? c.from_response_id : null,
    seed: c.seed.filter(isInputItem),
    ...(typeof c.summary === 'string' ? { summary: c.summary } : {}),
    at: c.at,
    tokens_before: typeof c.tokens_before === 'number' ? c.tokens_before : 0,
  };
}

/** The person's newest messages from the local transcript, oldest first, each bounded. */
export function recentUserMessages(state: ChainState, count = RECENT_MESSAGES): string[] {
  return state.transcript
    .filter((t) => t.role === 'user' && t.text.trim() !== '')
    .slice(-count)
    .map((t) => (t.text.length > RECENT_MESSAGE_CHARS ? `${t.text.slice(0, RECENT_MESSAGE_CHARS)}…` : t.text));
}

/** The first input of a chain that continues from a summary: the summary plus the person's newest messages. */
export function summarySeed(summary: string, recent: readonly string[]): InputItem[] {
  const parts = [
    "[agentx] The earlier conversation was compacted to fit the model's context window. Summary of it:",
    summary.trim(),
  ];
  if (recent.length > 0) parts.push(`The person's most recent messages, verbatim (oldest first):\n${recent.map((m) => `> ${m.replace(/\n/g, '\n> ')}`).join('\n')}`);
  return [userMessage(parts, '')];
}

/**
 * A summary made without a request (the chain itself no longer fits): the previous summary, if
 * any, then the person's own messages, newest first as far as they fit in two thirds of
 * `maxChars`, then the rest of the local record (answers, tool notes) in what is left.
 */
export function localSummary(state: ChainState, previous: CompactionCheckpoint | null, maxChars: number): string {
  // A previous summary keeps at most half the room, so repeated local summaries cannot grow without bound.
  const before = previous?.summary?.trim() ?? '';
  const earlier = before ? `Summary of what came before:\n${before.length > maxChars / 2 ? `${before.slice(0, Math.floor(maxChars / 2))}…` : before}\n\n` : '';
  const room = Math.max(0, maxChars - earlier.length);
  const person = newestFitting(state.transcript.filter((t) => t.role === 'user').map((t) => `> ${t.text}`), Math.floor((room * 2) / 3));
  const rest = newestFitting(
    state.transcript.filter((t) => t.role !== 'user').map((t) => `${t.role === 'assistant' ? 'Assistant' : 'Tool'}: ${t.text}`),
    room - person.length,
  );
  return `${earlier}The person's messages (oldest first):\n${person}\n\nOther notes from the local record (most recent last):\n${rest}`;
}

/** The newest lines whose total length fits `maxChars`, oldest first; a cut line keeps its end. */
function newestFitting(lines: readonly string[], maxChars: number): string {
  const kept: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0 && used < maxChars; i--) {
    const line = lines[i] ?? '';
    const left = maxChars - used;
    kept.unshift(line.length <= left ? line : `…${line.slice(line.length - left)}`);
    used += Math.min(line.length, left) + 2;
  }
  return kept.join('\n\n');
}

/**
 * Input for a new chain: tool outputs cannot be sent without their calls (those stay on the old
 * chain), so they become one text message; everything else passes unchanged, in order.
 */
export function inputForNewChain(input: readonly InputItem[]): InputItem[] {
  const texts: string[] = [];
  const rest: InputItem[] = [];
  for (const item of input) {
    if (item.type === 'message' || item.type === 'compaction') rest.push(item);
    else texts.push(outputAsText(item));
  }
  if (texts.length === 0) return rest;
  return [userMessage(['[agentx] Results of the tool calls you made just before the conversation was compacted:', ...texts], ''), ...rest];
}

/** Only the tool outputs of an input: a summary request must answer the chain head's pending calls. */
export function toolOutputsOf(input: readonly InputItem[]): ToolOutputItem[] {
  return input.filter((i): i is ToolOutputItem => i.type !== 'message' && i.type !== 'compaction');
}

/**
 * Where the next request starts: the chain head, or — right after a compaction, before the new
 * chain has a response — no previous response and the seed in front of the input. The REPL's
 * next message and a one-shot that branches from this state both start here.
 */
export function chainStart(state: ChainState, input: readonly InputItem[]): { previousResponseId: string | null; input: InputItem[] } {
  const checkpoint = readCheckpoint(state);
  if (state.response_id !== null || !checkpoint || checkpoint.seed.length === 0) {
    return { previousResponseId: state.response_id, input: [...input] };
  }
  return { previousResponseId: null, input: [...checkpoint.seed, ...inputForNewChain(input)] };
}

/** The state after a compaction: the checkpoint recorded, the chain head moved to the seed (or kept, server-side). */
export function withCompaction<S extends ChainState>(state: S, checkpoint: CompactionCheckpoint): S {
  const moved = checkpoint.seed.length > 0;
  return { ...state, compaction: checkpoint, response_id: moved ? null : state.response_id };
}
