// Turns parsed JSON into well-typed state, field by field. A bad optional field is reset to its
// default and its raw value is parked under `invalid_fields`, so nothing the file held is lost
// when it is rewritten; only a bad `response_id` (the chain itself) makes the file unusable.

import {
  CLI_OUTPUT_MAX_BYTES,
  CLI_TRANSCRIPT_MAX_BYTES,
  COMPACTION_MECHANISMS,
  HISTORY_MAX,
  HISTORY_MESSAGE_MAX_BYTES,
  STATE_KEYS,
  TRANSCRIPT_ENTRY_MAX_BYTES,
  TRANSCRIPT_MAX_BYTES,
  TRANSCRIPT_TOOL_ENTRY_MAX_BYTES,
  emptyUsage,
} from './types.ts';
import type {
  CliTranscriptEntry,
  CompactionCheckpoint,
  FailedResponse,
  FileSpan,
  HistoryEntry,
  InterruptedTurn,
  LoggedItem,
  PendingTransaction,
  SessionSnapshot,
  ShellAction,
  ToolJournalEntry,
  JournaledApproval,
  ToolCallStatus,
  WithoutId,
  TranscriptEntry,
  Usage,
} from './types.ts';
import { isResponseId, preview, truncateMiddle, utf8Length } from '../lib/text.ts';
import { nonNegativeCount } from '../usage/tokens.ts';
import { isInputItem, isLocalImagePart, isToolCallItem, isToolOutputItem, type InputItem, type ToolCallItem } from '../wire/items.ts';
import { isRecord } from '../lib/guards.ts';

export type Raw = Record<string, unknown>;

/** Where the raw values of reset fields are kept. */
export const INVALID_FIELDS_KEY = 'invalid_fields';

export class StateFormatError extends Error {}

export class Issues {
  readonly warnings: string[] = [];
  readonly invalid: Raw = {};
  reset(field: string, raw: unknown): void {
    this.warnings.push(field);
    this.invalid[field] = asSaved(raw);
  }
}

/**
 * A value kept as the file had it, in the form a save writes it back: JSON reads 1e400 as
 * Infinity but writes it as null, so a kept value must already be what the next read will see
 * (found by the fault suite's property run: a kept number out of range did not round-trip).
 */
function asSaved(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

function optString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function normalizeUsage(value: unknown): Usage {
  if (!isRecord(value)) return emptyUsage();
  return {
    inputTokens: nonNegativeCount(value.inputTokens),
    cachedTokens: nonNegativeCount(value.cachedTokens),
    outputTokens: nonNegativeCount(value.outputTokens),
    reasoningTokens: nonNegativeCount(value.reasoningTokens),
    turns: nonNegativeCount(value.turns),
  };
}

export function capText(text: string, maxBytes: number): string {
  return truncateMiddle(text, maxBytes).text;
}

export function normalizeCliEntry(value: unknown): CliTranscriptEntry | null {
  if (!isRecord(value) || typeof value.command !== 'string') return null;
  const exit = value.exit_code;
  const output = truncateMiddle(optString(value.output) ?? '', CLI_OUTPUT_MAX_BYTES);
  return {
    command: value.command,
    cwd: optString(value.cwd) ?? '',
    exit_code: typeof exit === 'number' && Number.isInteger(exit) ? exit : null,
    output: output.text,
    truncated: value.truncated === true || output.cutBytes > 0,
  };
}

/** Drops the oldest runs once the buffer exceeds its byte budget. */
export function capCliTranscript(entries: CliTranscriptEntry[]): CliTranscriptEntry[] {
  const sizes = entries.map((e) => utf8Length(e.command) + utf8Length(e.output));
  let total = sizes.reduce((a, b) => a + b, 0);
  let start = 0;
  while (total > CLI_TRANSCRIPT_MAX_BYTES && start < entries.length) total -= sizes[start++] ?? 0;
  return entries.slice(start);
}

function normalizeAction(value: unknown): ShellAction {
  const raw = isRecord(value) ? value : {};
  const commands = Array.isArray(raw.commands) ? raw.commands.filter((c): c is string => typeof c === 'string') : [];
  const action: ShellAction = { commands };
  const timeout = raw.timeout_ms;
  if (typeof timeout === 'number' || timeout === null) action.timeout_ms = timeout;
  const maxOut = raw.max_output_length;
  if (typeof maxOut === 'number' || maxOut === null) action.max_output_length = maxOut;
  return action;
}

/**
 * A completed call must carry the output to resend; without it, or with an unknown status,
 * the call may have run: `started` means it is re-run only on an explicit Retry.
 */
function journalStatus(status: unknown, output: unknown, outputLog: unknown): ToolCallStatus {
  if (status === 'pending' || status === 'started') return status;
  // An output kept in the conversation log is looked up when the session is loaded (journal-outputs.ts).
  return status === 'completed' && (isToolOutputItem(output) || isOutputLogId(outputLog)) ? 'completed' : 'started';
}

function isOutputLogId(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && v.length <= 1024;
}

export function normalizeToolCall(value: unknown): ToolJournalEntry | null {
  if (!isRecord(value)) return null;
  if (typeof value.call_id !== 'string' || value.call_id === '') return null;
  // A phase-1 shell entry may lack a usable action: its commands are only shown, never re-run blindly.
  const item = value.type === 'shell_call' ? { ...value, action: normalizeAction(value.action) } : value;
  if (!isToolCallItem(item)) return null;
  const status = journalStatus(value.status, value.output, value.output_log);
  const entry: ToolJournalEntry = { ...callFields(item), status };
  if (status === 'completed' && isToolOutputItem(value.output)) entry.output = value.output;
  else if (status === 'completed' && isOutputLogId(value.output_log)) entry.output_log = value.output_log;
  const attachments = value.attachments;
  const approval = normalizeApproval(value.approval);
  if (approval !== undefined) entry.approval = approval;
  if (status === 'completed' && Array.isArray(attachments) && attachments.length > 0 && attachments.every(isLocalImagePart)) entry.attachments = attachments;
  return entry;
}

const SCOPES = new Set(['sandboxed', 'sandboxed-with-network', 'unsandboxed']);

/** A journaled approval; anything else is dropped (the call is asked about again). */
function normalizeApproval(value: unknown): JournaledApproval | undefined {
  if (!isRecord(value) || typeof value.scope !== 'string' || !SCOPES.has(value.scope) || typeof value.by !== 'string') return undefined;
  return { scope: value.scope as JournaledApproval['scope'], by: value.by };
}

/** The fields of a call item that the journal keeps (no item id, nothing unknown). */
function callFields(item: ToolCallItem): WithoutId<ToolCallItem> {
  switch (item.type) {
    case 'shell_call':
      return { type: item.type, call_id: item.call_id, action: item.action };
    case 'function_call':
      return { type: item.type, call_id: item.call_id, name: item.name, arguments: item.arguments };
    case 'custom_tool_call':
      return { type: item.type, call_id: item.call_id, name: item.name, input: item.input };
    case 'apply_patch_call':
      return { type: item.type, call_id: item.call_id, operation: item.operation };
    case 'mcp_approval_request':
      return { type: item.type, call_id: item.call_id, server_label: item.server_label, name: item.name, arguments: item.arguments };
  }
}

/** Snapshot ids are git object ids (40 or 64 hex digits); anything else is not ours. */
function isSnapshotId(value: unknown): value is string {
  return typeof value === 'string' && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

/** A span, null (none), or undefined when malformed. */
export function normalizeFileSpan(value: unknown): FileSpan | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isRecord(value) || !isSnapshotId(value.from) || !isSnapshotId(value.to)) return undefined;
  return { from: value.from, to: value.to };
}

export function normalizeHistoryEntry(value: unknown): HistoryEntry | null {
  if (!isRecord(value) || !isResponseId(value.response_id)) return null;
  const user = optString(value.last_user_message);
  const assistant = optString(value.last_assistant_message);
  const entry: HistoryEntry = {
    response_id: value.response_id,
    timestamp: optString(value.timestamp) ?? '',
    user_preview: optString(value.user_preview) ?? preview(user ?? ''),
    assistant_preview: optString(value.assistant_preview) ?? preview(assistant ?? ''),
    usage: normalizeUsage(value.usage),
  };
  if (user !== null) entry.last_user_message = capText(user, HISTORY_MESSAGE_MAX_BYTES);
  if (assistant !== null) entry.last_assistant_message = capText(assistant, HISTORY_MESSAGE_MAX_BYTES);
  const files = normalizeFileSpan(value.files);
  if (files !== undefined && files !== null) entry.files = files;
  if (typeof value.context_tokens === 'number') entry.context_tokens = nonNegativeCount(value.context_tokens);
  if (isRecord(value.plan)) entry.plan = value.plan;
  return entry;
}

/** One entry per response id (the latest wins), at most HISTORY_MAX, oldest dropped. */
export function capHistory(entries: HistoryEntry[]): HistoryEntry[] {
  const latest = new Map<string, number>();
  entries.forEach((e, i) => latest.set(e.response_id, i));
  return entries.filter((e, i) => latest.get(e.response_id) === i).slice(-HISTORY_MAX);
}

export function normalizeTranscriptEntry(value: unknown): TranscriptEntry | null {
  if (!isRecord(value) || typeof value.text !== 'string') return null;
  const role = value.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'tool') return null;
  const entry: TranscriptEntry = { role, text: capText(value.text, TRANSCRIPT_ENTRY_MAX_BYTES) };
  if (typeof value.response_id === 'string') entry.response_id = value.response_id;
  return entry;
}

/** Truncates oversized entries, then drops the oldest until the whole fits. */
export function capTranscript(entries: TranscriptEntry[]): TranscriptEntry[] {
  const capped = entries.map((e) => {
    const text = capText(e.text, e.role === 'tool' ? TRANSCRIPT_TOOL_ENTRY_MAX_BYTES : TRANSCRIPT_ENTRY_MAX_BYTES);
    return text === e.text ? e : { ...e, text };
  });
  const sizes = capped.map((e) => utf8Length(e.text));
  let total = sizes.reduce((a, b) => a + b, 0);
  let start = 0;
  while (total > TRANSCRIPT_MAX_BYTES && start < capped.length) total -= sizes[start++] ?? 0;
  return capped.slice(start);
}

function normalizeFailed(value: unknown): FailedResponse | null | undefined {
  if (value === null || value === undefined || value === false) return null;
  if (value === true) return { timestamp: '', error: 'A request failed in an earlier session' };
  if (!isRecord(value)) return undefined;
  const failed: FailedResponse = {
    timestamp: optString(value.timestamp) ?? '',
    error: optString(value.error) ?? 'unknown error',
  };
  if (typeof value.status === 'number') failed.status = value.status;
  if (typeof value.code === 'string') failed.code = value.code;
  return failed;
}

/** A compaction record; a seed with an item this version cannot read makes the whole record unusable. */
export function normalizeCompaction(value: unknown): CompactionCheckpoint | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isRecord(value) || !Array.isArray(value.seed) || typeof value.at !== 'string') return undefined;
  const mechanism = COMPACTION_MECHANISMS.find((m) => m === value.mechanism);
  const seed: unknown[] = value.seed;
  if (mechanism === undefined || !seed.every(isInputItem)) return undefined;
  const from = value.from_response_id;
  const checkpoint: CompactionCheckpoint = {
    mechanism,
    from_response_id: isResponseId(from) ? from : null,
    seed: seed.filter(isInputItem),
    at: value.at,
    tokens_before: nonNegativeCount(value.tokens_before),
    tokens_after: nonNegativeCount(value.tokens_after),
  };
  if (typeof value.summary === 'string') checkpoint.summary = value.summary;
  return checkpoint;
}

function isLoggedItem(v: unknown): v is LoggedItem {
  return isRecord(v) && isOutputLogId(v.output_log) && Object.keys(v).length === 1;
}

function normalizeTransaction(value: unknown): PendingTransaction | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isRecord(value)) return undefined;
  const prev = value.previous_response_id;
  const lines = capToolSummaries(Array.isArray(value.tool_summaries) ? value.tool_summaries.filter((l) => typeof l === 'string') : []);
  const rest = {
    previous_response_id: isResponseId(prev) ? prev : null,
    user_message: optString(value.user_message),
    timestamp: optString(value.timestamp) ?? '',
    ...(lines.length > 0 ? { tool_summaries: lines } : {}),
  };
  // Resending a request with an item dropped would change what it asks: all items or none.
  // Items kept in the conversation log are read back when the session is loaded (journal-outputs.ts).
  if (Array.isArray(value.input_log)) {
    const items: unknown[] = value.input_log;
    const logged = items.filter((i): i is InputItem | LoggedItem => isInputItem(i) || isLoggedItem(i));
    return logged.length === items.length ? { input: [], input_log: logged, ...rest } : undefined;
  }
  if (!Array.isArray(value.input)) return undefined;
  const input: unknown[] = value.input;
  if (!input.every(isInputItem)) return undefined;
  return { input: input.filter(isInputItem), ...rest };
}

/** A failed turn's call lines, bounded as the transcript they are headed for bounds them. */
export function capToolSummaries(lines: readonly string[]): string[] {
  return capTranscript(lines.map((text) => ({ role: 'tool' as const, text }))).map((e) => e.text);
}

function normalizeInterrupted(value: unknown): InterruptedTurn | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isRecord(value) || typeof value.user_message !== 'string') return undefined;
  return { user_message: value.user_message, timestamp: optString(value.timestamp) ?? '' };
}

/** Normalizes an array field; a non-array resets the field, bad elements are dropped. */
function list<T>(raw: Raw, key: string, issues: Issues, one: (v: unknown) => T | null): T[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.reset(key, value);
    return [];
  }
  const out = value.map(one).filter((v): v is T => v !== null);
  if (out.length !== value.length) issues.reset(key, value);
  return out;
}

/** Normalizes an object-or-null field; `undefined` from `one` means the value was malformed. */
function single<T>(raw: Raw, key: string, issues: Issues, one: (v: unknown) => T | null | undefined): T | null {
  const out = one(raw[key]);
  if (out !== undefined) return out;
  issues.reset(key, raw[key]);
  return null;
}

function message(raw: Raw, key: string, issues: Issues): string | null {
  return single(raw, key, issues, (v) => (v === null || v === undefined ? null : typeof v === 'string' ? v : undefined));
}

/** Everything but `rollback_backup`; throws StateFormatError when the chain id is unusable. */
export function normalizeSnapshot(raw: Raw, issues: Issues): SessionSnapshot {
  const id = raw.response_id;
  if (id !== undefined && id !== null && id !== '' && !isResponseId(id)) {
    throw new StateFormatError('response_id is not a valid response id');
  }
  if (raw.usage !== undefined && !isRecord(raw.usage)) issues.reset('usage', raw.usage);
  const snapshot: SessionSnapshot = {
    version: 1,
    response_id: typeof id === 'string' && id !== '' ? id : null,
    usage: normalizeUsage(raw.usage),
    last_user_message: message(raw, 'last_user_message', issues),
    last_assistant_message: message(raw, 'last_assistant_message', issues),
    pending_cli_transcript: capCliTranscript(list(raw, 'pending_cli_transcript', issues, normalizeCliEntry)),
    pending_tool_calls: list(raw, 'pending_tool_calls', issues, normalizeToolCall),
    history: capHistory(list(raw, 'history', issues, normalizeHistoryEntry)),
    failed_response: single(raw, 'failed_response', issues, normalizeFailed),
    pending_transaction: single(raw, 'pending_transaction', issues, normalizeTransaction),
    interrupted_turn: single(raw, 'interrupted_turn', issues, normalizeInterrupted),
    transcript: capTranscript(list(raw, 'transcript', issues, normalizeTranscriptEntry)),
    pending_files: single(raw, 'pending_files', issues, normalizeFileSpan),
    context_tokens: nonNegativeCount(raw.context_tokens),
    compaction: single(raw, 'compaction', issues, normalizeCompaction),
  };
  const undo = single(raw, 'files_undo', issues, normalizeFileSpan);
  if (undo !== null) snapshot.files_undo = undo;
  const known = new Set<string>(STATE_KEYS);
  for (const [key, value] of Object.entries(raw)) {
    if (!known.has(key)) snapshot[key] = asSaved(value);
  }
  return snapshot;
}

/** Parks reset values next to any the file already had parked. */
export function withInvalidFields<T extends SessionSnapshot>(state: T, issues: Issues): T {
  if (issues.warnings.length === 0) return state;
  const previous = state[INVALID_FIELDS_KEY];
  return { ...state, [INVALID_FIELDS_KEY]: { ...(isRecord(previous) ? previous : {}), ...issues.invalid } };
}
