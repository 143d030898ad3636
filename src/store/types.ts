// The session-state data model (docs/SPEC.md §3.1). Pure data: no I/O, no clock.
import type { InputItem, LocalImagePart, ToolCallItem, ToolOutputItem } from '../wire/items.ts';

export const STATE_VERSION = 1;

/** Checkpoints kept for /rollback (SPEC §3.1: up to 20, oldest dropped first). */
export const HISTORY_MAX = 20;
/**
 * The transcript is only a fallback: the conversation log (store/log) is the record a lost chain
 * is replayed from; this bounded context serves when the log is missing, and our own compaction
 * summaries. It is rewritten with every state write, so it is kept small (it was 64 KiB before
 * the log: two thirds of a long session's file, bench/state-io).
 */
export const TRANSCRIPT_MAX_BYTES = 24 * 1024;
/** One huge message must not evict every other entry, so single entries are truncated first (three always fit). */
export const TRANSCRIPT_ENTRY_MAX_BYTES = 8 * 1024;
/** A tool note is the gist of what a call did (its whole output is in the log). */
export const TRANSCRIPT_TOOL_ENTRY_MAX_BYTES = 1024;
/** Output of one local `!command`: enough context for the model without bloating the file. */
export const CLI_OUTPUT_MAX_BYTES = 16 * 1024;
/** All buffered `!command` runs together. */
export const CLI_TRANSCRIPT_MAX_BYTES = 64 * 1024;
/** Whole last messages an earlier version kept per history entry: still read from its files, capped. */
export const HISTORY_MESSAGE_MAX_BYTES = 8 * 1024;
/** Server error bodies can be large HTML pages; the marker only needs the gist. */
export const ERROR_MAX_BYTES = 4 * 1024;
/** Anything bigger than this is not a state file agentx wrote. */
export const MAX_STATE_FILE_BYTES = 20 * 1024 * 1024;

export interface Usage {
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  turns: number;
}

/** One response's usage; inputTokens includes cached tokens (one definition, usage/tokens.ts). */
export type { TurnUsage } from '../usage/tokens.ts';
export type { ShellAction } from '../wire/items.ts';

export type ToolCallStatus = 'pending' | 'started' | 'completed';

export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * One journaled tool call: the call item as the model sent it (without its item id), its
 * exactly-once status, and, once completed, the exact output item sent back.
 */
export type ToolJournalEntry = WithoutId<ToolCallItem> & {
  status: ToolCallStatus;
  output?: ToolOutputItem;
  /**
   * On disk only, in place of `output`: the conversation-log record that holds it
   * (store/journal-outputs.ts). Read back into `output` when the session is loaded.
   */
  output_log?: string;
  /** Images the call put in front of the model (view_image): path and hash, never the bytes. */
  attachments?: LocalImagePart[];
  /**
   * How the call was approved to run (engine/permissions.ts), journaled before it started: a
   * crash between the approval and the run shows it approved and not started, and Retry runs it
   * with this scope without asking again.
   */
  approval?: JournaledApproval;
};

export interface JournaledApproval {
  scope: 'sandboxed' | 'sandboxed-with-network' | 'unsandboxed';
  /** who decided: the person, a rule, the approval mode */
  by: string;
}

export interface CliTranscriptEntry {
  command: string;
  cwd: string;
  exit_code: number | null;
  output: string;
  truncated: boolean;
}

export interface TranscriptEntry {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  /**
   * The response that completed the turn this entry belongs to. Rollback uses it to drop
   * context from turns that are no longer on the chain; entries of a turn still in progress
   * carry the id of their tool-call response until the turn completes.
   */
  response_id?: string;
}

/** Workspace snapshots taken around a turn's tool calls (workspace/): before the first call that can write, and at the turn's end. */
export interface FileSpan {
  from: string;
  to: string;
}

export interface HistoryEntry {
  response_id: string;
  timestamp: string;
  user_preview: string;
  assistant_preview: string;
  /** Session totals at this checkpoint. */
  usage: Usage;
  /** Whole messages, in checkpoints written by earlier versions only (read, never written now: the log has them). */
  last_user_message?: string;
  last_assistant_message?: string;
  /** What the turn's tool calls did to the files; null when no call could write (or snapshots are off). */
  files?: FileSpan | null;
  /** How full the context was at this checkpoint (restored by a rollback). */
  context_tokens?: number;
  /** The model's plan (update_plan, tools/plan.ts) at this checkpoint, as the state keeps it; restored by a rollback. */
  plan?: Record<string, unknown>;
}

export interface FailedResponse {
  timestamp: string;
  error: string;
  status?: number;
  /** The failure's code (`context_length_exceeded` chooses the menu that can help). */
  code?: string;
}

/**
 * How a compaction was made: `server` in the chain (context_management), `endpoint` by
 * POST /responses/compact, `summary` asked of the model, `local` from the local record.
 */
export type CompactionMechanism = 'server' | 'endpoint' | 'summary' | 'local';
export const COMPACTION_MECHANISMS: readonly CompactionMechanism[] = ['server', 'endpoint', 'summary', 'local'];

/**
 * The latest compaction, a checkpoint of its own. Until a response on the new chain completes,
 * `response_id` is null and `seed` starts the next request (a one-shot branching then too).
 */
export interface CompactionCheckpoint {
  mechanism: CompactionMechanism;
  /** The chain head that was compacted: still on the server, so /rollback to before it works. */
  from_response_id: string | null;
  /** Input items that begin the new chain (empty for server-side compaction, which keeps the chain). */
  seed: InputItem[];
  /** Our own summary's text, carried into later local summaries so early facts are never dropped. */
  summary?: string;
  at: string;
  /** Context tokens of the chain when it was compacted, and (estimated) of the seed after it. */
  tokens_before: number;
  tokens_after: number;
}

export interface PendingTransaction {
  /** The failed request's items, resent exactly by Retry. */
  input: InputItem[];
  /**
   * On disk only, in place of `input`: its items in order, each big one (a tool output, a long
   * pasted message) as a pointer to the conversation-log record that holds it
   * (store/journal-outputs.ts). Read back into `input` when the session is loaded.
   */
  input_log?: (InputItem | LoggedItem)[];
  previous_response_id: string | null;
  user_message: string | null;
  timestamp: string;
  /**
   * Transcript lines of the calls the failed turn ran before it failed: the operation that
   * finishes it (Retry, new chain, trim) records them with the turn, also after a restart.
   * Absent in files written before agentx kept them (read as none).
   */
  tool_summaries?: string[];
}

/** An item of a failed request kept in the conversation log: the record's id (store/journal-outputs.ts). */
export interface LoggedItem {
  output_log: string;
}

export interface InterruptedTurn {
  user_message: string;
  timestamp: string;
}

/**
 * Every field of the state except `rollback_backup`. The index signature keeps fields this
 * version does not know (written by a newer agentx or by hand) so a rewrite preserves them.
 */
export interface SessionSnapshot {
  version: 1;
  response_id: string | null;
  usage: Usage;
  last_user_message: string | null;
  last_assistant_message: string | null;
  pending_cli_transcript: CliTranscriptEntry[];
  pending_tool_calls: ToolJournalEntry[];
  history: HistoryEntry[];
  failed_response: FailedResponse | null;
  pending_transaction: PendingTransaction | null;
  interrupted_turn: InterruptedTurn | null;
  transcript: TranscriptEntry[];
  /** Snapshots of turns that ended without a checkpoint (interrupted, failed): the next checkpoint adopts them. */
  pending_files: FileSpan | null;
  /** In a rollback backup only: the snapshots around the files a rollback restored, so its undo can put them back. */
  files_undo?: FileSpan | null;
  /** Context tokens of the chain head's response (input + output): what the next request starts from. */
  context_tokens: number;
  compaction: CompactionCheckpoint | null;
  [key: string]: unknown;
}

export interface SessionState extends SessionSnapshot {
  /** The state replaced by the latest rollback (itself without a backup, so backups never nest). */
  rollback_backup: SessionSnapshot | null;
}

/** Known top-level keys in the order they are written. */
export const STATE_KEYS = [
  'version',
  'response_id',
  'usage',
  'last_user_message',
  'last_assistant_message',
  'pending_cli_transcript',
  'pending_tool_calls',
  'history',
  'rollback_backup',
  'failed_response',
  'pending_transaction',
  'interrupted_turn',
  'transcript',
  'pending_files',
  'files_undo',
  'context_tokens',
  'compaction',
] as const;

export function emptyUsage(): Usage {
  return { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, turns: 0 };
}

export function emptyState(): SessionState {
  return {
    version: STATE_VERSION,
    response_id: null,
    usage: emptyUsage(),
    last_user_message: null,
    last_assistant_message: null,
    pending_cli_transcript: [],
    pending_tool_calls: [],
    history: [],
    rollback_backup: null,
    failed_response: null,
    pending_transaction: null,
    interrupted_turn: null,
    transcript: [],
    pending_files: null,
    context_tokens: 0,
    compaction: null,
  };
}
