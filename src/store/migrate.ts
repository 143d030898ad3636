// Reads a state file written by the public AgentX CLI (no `version`) into the version-1 shape,
// before the ordinary field normalization runs. Differences handled here:
// - `usage.inputTokens` counted only uncached input: cached tokens are added back, here and in
//   every history entry, so totals and cost match what agentx counts.
// - `response_id`, `last_*_message` used "" for "none".
// - `pending_cli_transcript` was one string of "! command\noutput" blocks.
// - `pending_tool_calls` were raw response output items whose own `status` is the model's, not
//   the execution's; execution state lived in `execution_journal` ({identity: "id:<call_id>",
//   status}). That journal recorded no outputs, so a call it saw run is journaled `started`
//   (never re-run without an explicit Retry) rather than `completed`. The raw journal is kept.
// - `failed_response` was a boolean; `pending_retry_request` was the whole failed request,
//   including instructions and tool definitions, which agentx state never stores: only its
//   input and previous_response_id survive, as `pending_transaction`.
// - `rollback_backup` held the history entries newer than the rolled-back-to checkpoint; it is
//   rebuilt as the state those entries describe, so `/rollback undo` still works.

import { isRecord } from '../lib/guards.ts';
import type { Raw } from './normalize.ts';
import { preview } from '../lib/text.ts';

function nonEmpty(value: unknown): unknown {
  return value === '' ? null : value;
}

function migrateUsage(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    inputTokens: num(value.inputTokens) + num(value.cachedTokens),
    cachedTokens: num(value.cachedTokens),
    outputTokens: num(value.outputTokens),
    reasoningTokens: num(value.reasoningTokens),
    turns: num(value.turns),
  };
}

function migrateHistoryEntry(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const user = typeof value.last_user_message === 'string' ? value.last_user_message : '';
  const assistant = typeof value.last_assistant_message === 'string' ? value.last_assistant_message : '';
  // The CLI cut previews at 20 characters; recompute them from the full messages when it kept those.
  return {
    ...value,
    user_preview: user !== '' ? preview(user) : value.user_preview,
    assistant_preview: assistant !== '' ? preview(assistant) : value.assistant_preview,
    usage: migrateUsage(value.usage),
  };
}

/** Splits "! cmd\noutput\n\n! cmd2" into entries; cwd and exit status were never recorded. */
export function parseCliTranscriptText(text: string): Raw[] {
  if (text.trim() === '') return [];
  const blocks = text.split(/\n\n(?=! )/);
  return blocks.map((block) => {
    const body = block.startsWith('! ') ? block.slice(2) : block;
    const newline = body.indexOf('\n');
    const command = newline < 0 ? body : body.slice(0, newline);
    const output = newline < 0 ? '' : body.slice(newline + 1);
    return { command, cwd: '', exit_code: null, output, truncated: false };
  });
}

function journalStatus(journal: unknown, callId: string): 'pending' | 'started' {
  if (!Array.isArray(journal)) return 'pending';
  const ran = journal.some((r) => isRecord(r) && r.identity === `id:${callId}` && (r.status === 'started' || r.status === 'completed'));
  return ran ? 'started' : 'pending';
}

function migrateToolCall(value: unknown, journal: unknown): Raw | null {
  if (!isRecord(value)) return null;
  const callId = typeof value.call_id === 'string' && value.call_id !== '' ? value.call_id : null;
  if (callId === null || (value.type !== 'shell_call' && value.type !== 'function_call')) return null;
  const entry: Raw = { call_id: callId, type: value.type, status: journalStatus(journal, callId) };
  if (value.type === 'shell_call') entry.action = value.action;
  if (typeof value.name === 'string') entry.name = value.name;
  if (typeof value.arguments === 'string') entry.arguments = value.arguments;
  else if (isRecord(value.arguments)) entry.arguments = JSON.stringify(value.arguments);
  return entry;
}

function transactionFromRequest(request: unknown, userMessage: unknown): Raw | null {
  if (!isRecord(request)) return null;
  const input = request.input;
  const items = Array.isArray(input) ? input : typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : null;
  if (items === null) return null;
  return {
    input: items,
    previous_response_id: nonEmpty(request.previous_response_id) ?? null,
    user_message: userMessage,
    timestamp: '',
  };
}

/** The CLI has no transcript; the full messages its history kept are the best context there is. */
function transcriptFromHistory(history: unknown): Raw[] {
  if (!Array.isArray(history)) return [];
  return history.filter(isRecord).flatMap((h) => {
    const tag = typeof h.response_id === 'string' ? { response_id: h.response_id } : {};
    const out: Raw[] = [];
    if (typeof h.last_user_message === 'string' && h.last_user_message !== '') {
      out.push({ role: 'user', text: h.last_user_message, ...tag });
    }
    if (typeof h.last_assistant_message === 'string' && h.last_assistant_message !== '') {
      out.push({ role: 'assistant', text: h.last_assistant_message, ...tag });
    }
    return out;
  });
}

function rebuildBackup(state: Raw, entries: unknown[]): Raw | null {
  const newer = entries.map(migrateHistoryEntry).filter(isRecord);
  const last = newer.at(-1);
  if (last === undefined) return null;
  const older: unknown[] = Array.isArray(state.history) ? state.history : [];
  // Duplicates and the 20-entry cap are settled by normalization afterwards.
  const history = [...older, ...newer];
  return {
    ...state,
    response_id: last.response_id,
    usage: last.usage,
    last_user_message: nonEmpty(last.last_user_message) ?? null,
    last_assistant_message: nonEmpty(last.last_assistant_message) ?? null,
    history,
    pending_cli_transcript: [],
    pending_tool_calls: [],
    failed_response: null,
    pending_transaction: null,
    transcript: transcriptFromHistory(history),
  };
}

/** Returns the version-1 shape of an AgentX CLI state object (still to be normalized). */
export function migrateCliState(raw: Raw): Raw {
  const out: Raw = { ...raw, version: 1 };
  delete out.pending_retry_request;
  out.response_id = nonEmpty(raw.response_id);
  out.usage = migrateUsage(raw.usage);
  out.last_user_message = nonEmpty(raw.last_user_message);
  out.last_assistant_message = nonEmpty(raw.last_assistant_message);
  if (typeof raw.pending_cli_transcript === 'string') {
    out.pending_cli_transcript = parseCliTranscriptText(raw.pending_cli_transcript);
  }
  if (Array.isArray(raw.history)) out.history = raw.history.map(migrateHistoryEntry);
  if (out.transcript === undefined) out.transcript = transcriptFromHistory(out.history);

  if (Array.isArray(raw.pending_tool_calls)) {
    const calls = raw.pending_tool_calls.map((c) => migrateToolCall(c, raw.execution_journal));
    out.pending_tool_calls = calls.filter((c) => c !== null);
    // Calls agentx cannot answer (other tool types) are kept verbatim rather than dropped.
    if (calls.includes(null)) out.unmapped_tool_calls = raw.pending_tool_calls;
  }

  const retry = transactionFromRequest(raw.pending_retry_request, out.last_user_message);
  const cliTransaction = isRecord(raw.pending_transaction) ? transactionFromRequest(raw.pending_transaction.request, out.last_user_message) : null;
  out.pending_transaction = retry ?? cliTransaction;

  const failed = raw.failed_response === true;
  out.failed_response = failed ? { timestamp: '', error: 'A request failed in an earlier AgentX session' } : null;
  const history = Array.isArray(out.history) ? out.history.filter(isRecord) : [];
  const lastGood = history.at(-1)?.response_id;
  // The CLI resumed a failure without a saved request from its last good checkpoint; calls of
  // the abandoned response would be orphans on that chain, so they stay only in the raw field.
  if (failed && out.pending_transaction === null && typeof lastGood === 'string' && lastGood !== out.response_id) {
    out.response_id = lastGood;
    if (Array.isArray(out.pending_tool_calls) && out.pending_tool_calls.length > 0) {
      out.unmapped_tool_calls = raw.pending_tool_calls;
      out.pending_tool_calls = [];
    }
  }

  out.rollback_backup = Array.isArray(raw.rollback_backup) ? rebuildBackup(out, raw.rollback_backup) : raw.rollback_backup;
  return out;
}
