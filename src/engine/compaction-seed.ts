// What a compaction leaves behind: the checkpoint recorded in the session state (so /rollback to
// before it and one-shots from after it work), the seed that starts the new chain, our own
// summary prompt, and the local summary used when no request can be made. Pure.
import type { CompactionCheckpoint, SessionState } from '../store/state.ts';
import { developerMessage, userMessage, type InputItem, type ToolOutputItem } from '../wire/items.ts';
import { splitToolOutputs } from './new-chain.ts';

/** The part of the session state compaction reads. */
export type ChainState = Pick<SessionState, 'response_id' | 'transcript' | 'compaction'>;

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

/** The person's newest messages from the local transcript, oldest first, each bounded. */
export function recentUserMessages(state: ChainState, count = RECENT_MESSAGES): string[] {
  return state.transcript
    .filter((t) => t.role === 'user' && t.text.trim() !== '')
    .slice(-count)
    .map((t) => (t.text.length > RECENT_MESSAGE_CHARS ? `${t.text.slice(0, RECENT_MESSAGE_CHARS)}…` : t.text));
}

/** The first input of a chain that continues from a summary: the summary plus the person's newest messages. */
export function summarySeed(summary: string, recent: readonly string[]): InputItem[] {
  const parts = ["[agentx] The earlier conversation was compacted to fit the model's context window. Summary of it:", summary.trim()];
  if (recent.length > 0)
    parts.push(`The person's most recent messages, verbatim (oldest first):\n${recent.map((m) => `> ${m.replace(/\n/g, '\n> ')}`).join('\n')}`);
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
  const person = newestFitting(
    state.transcript.filter((t) => t.role === 'user').map((t) => `> ${t.text}`),
    Math.floor((room * 2) / 3),
  );
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
  const { items, toolTexts } = splitToolOutputs(input);
  if (toolTexts.length === 0) return items;
  // In the place of the first output: after a compaction seed, before the person's message.
  const at = input.findIndex((i) => i.type !== 'message' && i.type !== 'compaction');
  const results = userMessage(['[agentx] Results of the tool calls you made just before the conversation was compacted:', ...toolTexts], '');
  return [...items.slice(0, at), results, ...items.slice(at)];
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
  const checkpoint = state.compaction;
  if (state.response_id !== null || checkpoint === null || checkpoint.seed.length === 0) {
    return { previousResponseId: state.response_id, input: [...input] };
  }
  // Tool outputs stay items here; they are sent as text on the new chain (compaction.ts).
  return { previousResponseId: null, input: [...checkpoint.seed, ...input] };
}

/** The opening of the environment context message (environment.ts): how a seed or an input is known to carry one. */
const ENVIRONMENT_OPENING = '<environment_context>';

function isEnvironmentMessage(item: InputItem): boolean {
  return item.type === 'message' && item.role === 'developer' && item.content.some((c) => c.type === 'input_text' && c.text.startsWith(ENVIRONMENT_OPENING));
}

/**
 * A new chain's first input with the environment context in its seed: the summary (or the
 * server's compacted items) may have dropped it, and the rest of the turn needs it as much as
 * the next message does. One copy only: a message that already carried it leaves it to the seed.
 */
export function seedWithEnvironment(
  seed: readonly InputItem[],
  pending: readonly InputItem[],
  environment: string | null,
): { seed: InputItem[]; input: InputItem[] } {
  if (environment === null) return { seed: [...seed], input: [...seed, ...pending] };
  const note: InputItem = developerMessage(environment);
  const withNote = [...seed, note];
  return { seed: withNote, input: [...withNote, ...pending.filter((i) => !isEnvironmentMessage(i))] };
}

/** Whether a compaction's seed carries exactly this environment context (then the model has it). */
export function seedCarries(seed: readonly InputItem[], environment: string): boolean {
  return seed.some((i) => isEnvironmentMessage(i) && i.type === 'message' && i.content.some((c) => c.type === 'input_text' && c.text === environment));
}
