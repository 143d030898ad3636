// Session state: the public entry point. Types, parsing and pure transitions
// `(state, event) → state`; nothing here touches disk, the process or the clock (SPEC §3).
// Transitions never mutate their input: unchanged parts are shared, changed parts are new.

import { ERROR_MAX_BYTES, emptyState } from './types.ts';
import type {
  CliTranscriptEntry,
  CompactionCheckpoint,
  FailedResponse,
  FileSpan,
  HistoryEntry,
  SessionState,
  ToolJournalEntry,
  TranscriptEntry,
  TurnUsage,
  Usage,
} from './types.ts';
import { capCliTranscript, capHistory, capText, capToolSummaries, capTranscript, normalizeCliEntry } from './normalize.ts';
import { backupOf, restoreBackup } from './backup.ts';
import { preview } from '../lib/text.ts';
import { isRecord } from '../lib/guards.ts';
import { cloneJson } from '../lib/clone-json.ts';
import { nonNegativeCount } from '../usage/tokens.ts';
import type { InputItem } from '../wire/items.ts';

export * from './types.ts';
export { parseState, serializeState } from './parse.ts';
export type { ParseResult } from './parse.ts';
export { preview } from '../lib/text.ts';

/** Tool output quoted in the transcript: the gist, not the whole log. */
const CLI_SUMMARY_OUTPUT_BYTES = 2 * 1024;

function addUsage(total: Usage, turn: TurnUsage, turns: number): Usage {
  return {
    inputTokens: total.inputTokens + nonNegativeCount(turn.inputTokens),
    cachedTokens: total.cachedTokens + nonNegativeCount(turn.cachedTokens),
    outputTokens: total.outputTokens + nonNegativeCount(turn.outputTokens),
    reasoningTokens: total.reasoningTokens + nonNegativeCount(turn.reasoningTokens),
    turns: total.turns + turns,
  };
}

/**
 * Trailing transcript entries of a turn that has not completed: they are tagged with a
 * tool-call response id, and only completed turns' ids ever reach `history`.
 */
function openTurnStart(s: SessionState): number {
  const done = new Set(s.history.map((h) => h.response_id));
  let start = s.transcript.length;
  while (start > 0) {
    const tag = s.transcript[start - 1]?.response_id;
    if (tag === undefined || done.has(tag)) break;
    start--;
  }
  return start;
}

function cloneCall(call: ToolJournalEntry): ToolJournalEntry {
  return cloneJson(call);
}

/**
 * A response that asked for tools. It becomes the chain head at once: the continuation must
 * send the outputs of its calls, so a crash from here on resumes with them pending.
 */
export function recordToolCalls(
  s: SessionState,
  p: { responseId: string; calls: ToolJournalEntry[]; usage: TurnUsage; userMessage: string | null; assistantText?: string; contextTokens?: number },
): SessionState {
  // The user message and any text said before the calls go into the transcript now, so a
  // crash mid-turn still leaves them as context for a rebuilt chain; recordTurn adopts them.
  const open = s.transcript.slice(openTurnStart(s));
  // The pending `!command` runs went out with this turn's first request: they are delivered now
  // (not resent by the next message) and move into the transcript (kept for a rebuilt chain).
  const added: TranscriptEntry[] = s.pending_cli_transcript.map((e) => ({ ...cliSummary(e), response_id: p.responseId }));
  if (p.userMessage !== null && !open.some((e) => e.role === 'user' && e.text === p.userMessage)) {
    added.push({ role: 'user', text: p.userMessage, response_id: p.responseId });
  }
  const said = p.assistantText?.trim() ?? '';
  if (said !== '') added.push({ role: 'assistant', text: said, response_id: p.responseId });
  return {
    ...s,
    response_id: p.responseId,
    usage: addUsage(s.usage, p.usage, 0),
    context_tokens: p.contextTokens ?? s.context_tokens,
    pending_tool_calls: p.calls.map(cloneCall),
    pending_cli_transcript: [],
    failed_response: null,
    pending_transaction: null,
    // The request that produced this response carried the interruption note; it is delivered.
    interrupted_turn: null,
    last_user_message: p.userMessage ?? s.last_user_message,
    transcript: added.length > 0 ? capTranscript([...s.transcript, ...added]) : s.transcript,
  };
}

function cliSummary(e: CliTranscriptEntry): TranscriptEntry {
  const status = e.exit_code === null ? '' : ` (exit ${e.exit_code})`;
  const output = capText(e.output, CLI_SUMMARY_OUTPUT_BYTES);
  return { role: 'tool', text: `! ${e.command}${status}${output === '' ? '' : `\n${output}`}` };
}

/** A completed user turn: a new checkpoint, and everything pending for it is settled. */
export function recordTurn(
  s: SessionState,
  p: {
    responseId: string;
    userMessage: string;
    assistantMessage: string;
    usage: TurnUsage;
    toolSummaries?: string[];
    contextTokens?: number;
    now: Date;
    files?: FileSpan | null;
  },
): SessionState {
  const usage = addUsage(s.usage, p.usage, 1);
  const files = joinSpans(s.pending_files, p.files ?? null);
  const contextTokens = p.contextTokens ?? s.context_tokens;
  const entry: HistoryEntry = {
    response_id: p.responseId,
    timestamp: p.now.toISOString(),
    user_preview: preview(p.userMessage),
    assistant_preview: preview(p.assistantMessage),
    usage,
    // No copy of the whole messages (SPEC §3.1 keeps previews): the conversation log holds them,
    // and a copy per checkpoint was a third of every state write (bench/state-io).
    context_tokens: contextTokens,
  };
  if (files !== null) entry.files = files;
  if (isRecord(s.plan)) entry.plan = s.plan;
  const start = openTurnStart(s);
  const open = s.transcript.slice(start);
  const turn: TranscriptEntry[] = [
    ...s.pending_cli_transcript.map(cliSummary),
    ...open,
    ...(open.some((e) => e.role === 'user' && e.text === p.userMessage) ? [] : [{ role: 'user' as const, text: p.userMessage }]),
    ...(p.toolSummaries ?? []).map((text) => ({ role: 'tool' as const, text })),
    ...(p.assistantMessage.trim() === '' ? [] : [{ role: 'assistant' as const, text: p.assistantMessage }]),
  ];
  const tagged = turn.map((e) => ({ ...e, response_id: p.responseId }));
  return {
    ...s,
    response_id: p.responseId,
    usage,
    context_tokens: contextTokens,
    last_user_message: p.userMessage,
    last_assistant_message: p.assistantMessage,
    history: capHistory([...s.history, entry]),
    pending_files: null,
    transcript: capTranscript([...s.transcript.slice(0, start), ...tagged]),
    pending_tool_calls: [],
    pending_cli_transcript: [],
    failed_response: null,
    pending_transaction: null,
    interrupted_turn: null,
  };
}

/**
 * A request that failed: remembered so a retry resends the same items. It never enters
 * history and never moves the chain head (SPEC §3.6).
 */
export function recordFailure(
  s: SessionState,
  p: {
    error: string;
    status?: number;
    code?: string;
    input: InputItem[];
    previousResponseId: string | null;
    userMessage: string | null;
    now: Date;
    /** Transcript lines of the calls the turn ran before it failed (kept for the operation that finishes it). */
    toolSummaries?: readonly string[];
  },
): SessionState {
  const timestamp = p.now.toISOString();
  const failed: FailedResponse = { timestamp, error: capText(p.error, ERROR_MAX_BYTES) };
  const lines = capToolSummaries(p.toolSummaries ?? []);
  if (p.status !== undefined) failed.status = p.status;
  if (p.code !== undefined) failed.code = p.code;
  return {
    ...s,
    failed_response: failed,
    pending_transaction: {
      input: cloneJson(p.input),
      previous_response_id: p.previousResponseId,
      user_message: p.userMessage,
      timestamp,
      // Only when calls ran: a failed first request writes the same record as before.
      ...(lines.length > 0 ? { tool_summaries: lines } : {}),
    },
  };
}

/** Ctrl-C during a turn: the next request tells the model, so it does not silently redo work. */
export function recordInterruption(s: SessionState, p: { userMessage: string; now: Date }): SessionState {
  return { ...s, interrupted_turn: { user_message: p.userMessage, timestamp: p.now.toISOString() } };
}

/** A local `!command` run, buffered until the next request sends it. */
export function addCliTranscript(s: SessionState, e: CliTranscriptEntry): SessionState {
  const entry = normalizeCliEntry(e);
  if (entry === null) throw new TypeError('Invalid CLI transcript entry');
  return { ...s, pending_cli_transcript: capCliTranscript([...s.pending_cli_transcript, entry]) };
}

/**
 * Restores checkpoint `index` (1 = newest). History is kept whole so the user can roll
 * forward again; the replaced state becomes `rollback_backup`. The transcript keeps only
 * turns at or before the checkpoint (by history order), since a rebuilt chain must not be
 * told about turns that are no longer on it. `_now` is accepted for symmetry with the other
 * transitions; a rollback records no time of its own (the checkpoint file does).
 */
/**
 * The state file's key for a /rollback whose file restore is under way (engine/rollback.ts
 * journals it there). Here so a one-shot can look for it without loading the engine.
 */
export const ROLLBACK_IN_PROGRESS_KEY = 'rollback_in_progress';

export function rollbackTo(s: SessionState, index: number, _now?: Date): SessionState {
  const size = s.history.length;
  const position = size - index;
  const target = Number.isInteger(index) && index >= 1 ? s.history[position] : undefined;
  if (target === undefined) {
    throw new RangeError(size === 0 ? 'There are no checkpoints to roll back to' : `No checkpoint ${index}: choose 1-${size}`);
  }
  const onChain = new Set(s.history.slice(0, position + 1).map((h) => h.response_id));
  const next: SessionState = {
    ...s,
    response_id: target.response_id,
    usage: { ...target.usage },
    context_tokens: target.context_tokens ?? 0,
    // The checkpoint is on a chain the server holds: any compaction seed is history now.
    compaction: null,
    // The previews (the whole messages are in the conversation log); checkpoints written by
    // earlier versions still carry the whole messages, and give them back.
    last_user_message: target.last_user_message ?? target.user_preview,
    last_assistant_message: target.last_assistant_message ?? target.assistant_preview,
    transcript: s.transcript.filter((e) => e.response_id === undefined || onChain.has(e.response_id)),
    pending_tool_calls: [],
    pending_cli_transcript: [],
    failed_response: null,
    pending_transaction: null,
    interrupted_turn: null,
    // Files of an unfinished turn after the checkpoint are the rollback's to restore, not the next turn's.
    pending_files: null,
    // The plan as it was at the checkpoint (none if the model had made none by then).
    plan: target.plan,
  };
  // A branch point, not a copy: the history is kept whole, so the backup holds little but its chain head (backup.ts).
  return { ...next, rollback_backup: backupOf(s, next) };
}

/**
 * Restores the state a rollback replaced. The state being left becomes the new backup, so an
 * undo can itself be undone and no branch is ever lost.
 */
export function undoRollback(s: SessionState): SessionState {
  if (s.rollback_backup === null) throw new Error('Nothing to undo: no rollback has been made');
  // The undo span belongs to the backup; the state it restores is the one the rollback left.
  const { files_undo: _undo, ...restored } = restoreBackup(s.rollback_backup, s);
  return { ...restored, rollback_backup: backupOf(s, restored) };
}

/**
 * A compaction happened: it is recorded, and unless the server compacted inside the chain, the
 * chain head moves to its seed (no response yet: the next request starts a new chain with it).
 */
export function withCompaction(s: SessionState, checkpoint: CompactionCheckpoint): SessionState {
  const moved = checkpoint.seed.length > 0;
  return {
    ...s,
    compaction: cloneJson(checkpoint),
    response_id: moved ? null : s.response_id,
    context_tokens: moved ? checkpoint.tokens_after : s.context_tokens,
  };
}

/**
 * Nothing worth keeping or clearing: no conversation on the server, no turn, and nothing
 * journaled — no tool calls, no failed request waiting for the recovery menu, no compaction.
 * The one definition for `/clear` ("Nothing to clear") and the archive (nothing to keep).
 */
export function isEmptyConversation(s: SessionState): boolean {
  return s.response_id === null && s.usage.turns === 0 && s.pending_tool_calls.length === 0 && s.pending_transaction === null && s.compaction === null;
}

/** /clear: a fresh conversation; the old one becomes the rollback backup, so `/rollback undo` brings it back. */
export function clearConversation(s: SessionState): SessionState {
  const fresh = emptyState();
  return { ...fresh, rollback_backup: backupOf(s, fresh) };
}

/**
 * The span covering two consecutive pieces of work: a turn that ended without a checkpoint
 * (interrupted, failed) and the turn that completes it. Null when neither took snapshots.
 */
export function joinSpans(earlier: FileSpan | null, later: FileSpan | null): FileSpan | null {
  if (earlier === null) return later;
  if (later === null) return earlier;
  return { from: earlier.from, to: later.to };
}

/** A turn that ended without a checkpoint changed files: the next checkpoint takes them over. */
export function recordPendingFiles(s: SessionState, span: FileSpan): SessionState {
  return { ...s, pending_files: joinSpans(s.pending_files, span) };
}

/**
 * The file spans after checkpoint `index` (1 = newest), oldest first: what a rollback to it
 * would undo. Turns without a span (nothing could write) are left out.
 */
export function fileSpansAfter(s: SessionState, index: number): FileSpan[] {
  const position = s.history.length - index;
  const after = s.history.slice(Math.max(0, position + 1)).flatMap((h) => (h.files ? [h.files] : []));
  return s.pending_files === null ? after : [...after, s.pending_files];
}

/** The span of the newest checkpoint (what the last turn did), or null. */
export function lastTurnSpan(s: SessionState): FileSpan | null {
  return s.pending_files ?? s.history.at(-1)?.files ?? null;
}

/** Keeps the snapshots of a restore (taken just before and after it) in the backup, for `/rollback undo`. */
export function withFilesUndo(s: SessionState, span: FileSpan | null): SessionState {
  if (s.rollback_backup === null) return s;
  return { ...s, rollback_backup: { ...s.rollback_backup, files_undo: span } };
}

/** "Files only": the conversation stays; the backup is the same conversation plus the restore's undo span. */
export function filesOnlyBackup(s: SessionState, span: FileSpan | null): SessionState {
  return { ...s, rollback_backup: { ...backupOf(s, s), files_undo: span } };
}

/** Every snapshot id the session still refers to: history, the backup and its undo span, pending work. */
export function snapshotIdsInUse(s: SessionState): string[] {
  const spans: (FileSpan | null | undefined)[] = [s.pending_files, ...s.history.map((h) => h.files)];
  const b = s.rollback_backup;
  if (b !== null) spans.push(b.pending_files, b.files_undo, ...b.history.map((h) => h.files));
  return [...new Set(spans.flatMap((span) => (span ? [span.from, span.to] : [])))];
}
