// How much tool output one model response may leave in the session file. Each command's
// output is already capped per stream (AGENTX_MAX_OUTPUT_BYTES), but a response may ask for
// many commands; without a budget for all of them together, one turn could push the state
// file past MAX_STATE_FILE_BYTES (the journal, the retry data and the rollback backup may each
// hold a copy). An output over the budget is shortened before it is journaled and sent, so
// the model, the journal and a resend after a crash all see the same, marked, text. Pure.
import { jsonBytes, shrinkLongStrings } from './shrink.ts';
import type { SessionState } from './types.ts';
import { isToolOutputItem, type ToolOutputItem } from '../wire/items.ts';

/** All completed outputs of one response's tool calls together. */
export const JOURNAL_OUTPUT_MAX_BYTES = 2 * 1024 * 1024;
/** Even after the budget is spent, each call keeps this much (the head and tail of its output). */
export const CALL_OUTPUT_FLOOR_BYTES = 4 * 1024;

/** Bytes of tool output already journaled for the current response. */
export function journaledOutputBytes(state: Pick<SessionState, 'pending_tool_calls'>): number {
  let total = 0;
  for (const call of state.pending_tool_calls) if (call.output !== undefined) total += jsonBytes(call.output);
  return total;
}

/**
 * `output` as it should be journaled and sent: unchanged when it fits in what is left of the
 * response's budget, otherwise with its long texts cut (head and tail kept) and marked.
 */
export function fitOutputToJournal(
  state: Pick<SessionState, 'pending_tool_calls'>,
  output: ToolOutputItem,
  budget: number = JOURNAL_OUTPUT_MAX_BYTES,
): ToolOutputItem {
  const left = Math.max(CALL_OUTPUT_FLOOR_BYTES, budget - journaledOutputBytes(state));
  const reason = `the tool output of one response is limited to ${Math.round(budget / 1024)} KiB in agentx's session file`;
  const shrunk = shrinkLongStrings(output, left, reason).value;
  // Shrinking only shortens strings, so the shape holds; the guard proves it to the compiler.
  return isToolOutputItem(shrunk) ? shrunk : output;
}
