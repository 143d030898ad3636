// The tool-call journal (exactly-once, docs/SPEC.md §3.5), in one module: a call is recorded
// `pending` when the response that asked for it arrives (journalEntry), `started` (durably)
// before it runs, `completed` with its output after (markToolCall), with how it was approved
// (recordApproval). A completed call is never run again; its recorded output is resent. Calls
// that never completed are answered here too (unfinishedCallOutput, leftoverOutputs), with the
// one "not run" wording of tools/wire-output.ts. The store keeps the entry's type and reads it
// back from disk; completed outputs live in the conversation log (store/journal-outputs.ts).
import type { JournaledApproval, SessionState, ToolJournalEntry } from '../store/state.ts';
import { notRunOutput } from '../tools/wire-output.ts';
import { cloneJson } from '../lib/clone-json.ts';
import type { InputItem, LocalImagePart, MessageItem, ToolCallItem, ToolOutputItem } from '../wire/items.ts';

/**
 * Journals one call. A completed call is final (exactly-once: it is never run again, its
 * output is resent), so changing it is a programming error, as is completing without output.
 */
export function markToolCall(
  s: SessionState,
  callId: string,
  status: 'started' | 'completed',
  output?: ToolOutputItem,
  attachments?: readonly LocalImagePart[],
): SessionState {
  const index = s.pending_tool_calls.findIndex((c) => c.call_id === callId);
  const call = s.pending_tool_calls[index];
  if (call === undefined) throw new RangeError(`No pending tool call ${callId}`);
  if (call.status === 'completed') throw new Error(`Tool call ${callId} is already completed`);
  if (status === 'completed' && output === undefined) throw new TypeError(`Tool call ${callId} completed without output`);
  const next: ToolJournalEntry = { ...call, status };
  if (status === 'completed') next.output = cloneJson(output);
  if (status === 'completed' && attachments !== undefined && attachments.length > 0) next.attachments = cloneJson([...attachments]);
  const calls = [...s.pending_tool_calls];
  calls[index] = next;
  return { ...s, pending_tool_calls: calls };
}

/** Journals how a pending call was approved to run (before its `started` mark). */
export function recordApproval(s: SessionState, callId: string, approval: JournaledApproval): SessionState {
  const index = s.pending_tool_calls.findIndex((c) => c.call_id === callId);
  const call = s.pending_tool_calls[index];
  if (call === undefined) throw new RangeError(`No pending tool call ${callId}`);
  const calls = [...s.pending_tool_calls];
  calls[index] = { ...call, approval: { ...approval } };
  return { ...s, pending_tool_calls: calls };
}

export function journalEntry(item: ToolCallItem): ToolJournalEntry {
  const { id: _id, ...call } = item;
  return { ...call, status: 'pending' };
}

/** The call item a journal entry records (what the tool registry parses again on a retry). */
export function callItemOf(entry: ToolJournalEntry): ToolCallItem {
  const { status: _status, output: _output, ...call } = entry;
  return call;
}

const UNFINISHED = {
  started: 'interrupted: agentx stopped while this call was running, so it may have run partly; its output is lost',
  pending: 'not run: agentx stopped before this call started',
};
const ASK_FIRST = ' Do not run it again without asking the user first.';

/**
 * The output for a journaled call that never completed (agentx stopped): a `started` call is
 * described as possibly partly run, so the model does not assume it did nothing.
 */
export function unfinishedCallOutput(entry: ToolJournalEntry, askFirst: boolean): ToolOutputItem {
  const reason = (entry.status === 'started' ? UNFINISHED.started : UNFINISHED.pending) + (askFirst ? `.${ASK_FIRST}` : '.');
  return notRunOutput(callItemOf(entry), reason);
}

/**
 * The images completed calls put in front of the model (view_image), as the user message that
 * follows their outputs. Built from the journal, so a resumed or retried turn sends the same.
 */
export function attachmentMessage(entries: readonly ToolJournalEntry[]): MessageItem[] {
  const parts: LocalImagePart[] = entries.flatMap((c) => (c.status === 'completed' ? (c.attachments ?? []) : []));
  if (parts.length === 0) return [];
  const text = `The image${parts.length === 1 ? '' : 's'} you asked to see (view_image): ${parts.map((p) => p.path).join(', ')}`;
  return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }, ...parts] }];
}

/**
 * Input items that must precede a new user message: outputs for the chain head's tool calls
 * that were answered locally (interrupted, settled at start) but never sent.
 */
export function leftoverOutputs(state: SessionState): InputItem[] {
  // A call that may have partly run must not be repeated without the user's say.
  const outputs = state.pending_tool_calls.map((c) =>
    c.status === 'completed' && c.output !== undefined ? c.output : unfinishedCallOutput(c, c.status === 'started'),
  );
  return [...outputs, ...attachmentMessage(state.pending_tool_calls)];
}

/** Calls of the chain head that never completed (what the pending-call menu is about). */
export function unfinishedCalls(state: SessionState): ToolJournalEntry[] {
  return state.pending_tool_calls.filter((c) => c.status !== 'completed');
}

/**
 * Whether the start of a session must ask about pending calls: there are some, and the turn
 * was neither interrupted (the next message carries their outputs) nor left as a failed
 * follow-up request (the failed-request menu resends exactly that).
 */
export function needsPendingDecision(state: SessionState): boolean {
  const calls = state.pending_tool_calls;
  const settled = unfinishedCalls(state).length === 0 && (state.interrupted_turn !== null || state.pending_transaction !== null);
  return calls.length > 0 && !settled;
}
