// The rollback backup as a branch point, not a copy (issue 22 §1). The conversation a rollback,
// an undo or /clear leaves is its chain head — a position in the conversation log, which holds
// the messages, calls and outputs — plus its small fields (usage, previews, pending work). Its
// checkpoints and its fallback transcript are mostly the live state's own (a rollback keeps the
// history whole and the transcript up to the checkpoint), so the backup holds only what the
// live state does not: the entries after the longest prefix both share, and where that prefix
// ends (`history_base`: a checkpoint's response id; `transcript_base`: a fingerprint of the
// entry). An undo puts the live prefix and the backup's own entries back together. Before this,
// every write after a rollback rewrote a whole copy of the state (37 KB of a 67 KB file,
// BENCHMARKS.md "State file I/O"). Pure.
//
// The live state only grows at its end (turns) and loses its oldest entries (the caps), so the
// prefix up to its end stays as it was; when the caps have dropped it, the undo brings back the
// backup's own entries only — the checkpoints older than the live 20 and the oldest fallback
// context, which the log still holds.
import { isRecord } from '../lib/guards.ts';
import type { HistoryEntry, SessionSnapshot, SessionState, TranscriptEntry } from './types.ts';

/** Where a transcript prefix ends: enough of an entry to find it again, not a copy of its text. */
interface TranscriptMark {
  role: TranscriptEntry['role'];
  response_id: string | null;
  chars: number;
  head: string;
}

const MARK_HEAD_CHARS = 40;

function markOf(e: TranscriptEntry): TranscriptMark {
  return { role: e.role, response_id: e.response_id ?? null, chars: e.text.length, head: e.text.slice(0, MARK_HEAD_CHARS) };
}

function isMark(v: unknown): v is TranscriptMark {
  return (
    isRecord(v) &&
    typeof v.role === 'string' &&
    (v.response_id === null || typeof v.response_id === 'string') &&
    typeof v.chars === 'number' &&
    typeof v.head === 'string'
  );
}

function matchesMark(e: TranscriptEntry, m: TranscriptMark): boolean {
  return e.role === m.role && (e.response_id ?? null) === m.response_id && e.text.length === m.chars && e.text.startsWith(m.head);
}

function sameHistoryEntry(a: HistoryEntry, b: HistoryEntry): boolean {
  return a.response_id === b.response_id && a.timestamp === b.timestamp;
}

function sameTranscriptEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  return a.role === b.role && a.text === b.text && a.response_id === b.response_id;
}

function commonPrefix<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): number {
  let n = 0;
  while (n < a.length && n < b.length && same(a[n] as T, b[n] as T)) n++;
  return n;
}

/**
 * The backup of `left` (the state a rollback, an undo or /clear leaves) next to `live` (the state
 * it becomes): `left` without its own backup, its history and transcript reduced to what `live`
 * does not hold.
 */
export function backupOf(left: SessionState, live: SessionSnapshot): SessionSnapshot {
  const { rollback_backup: _nested, history_base: _h, transcript_base: _t, ...rest } = left;
  const h = commonPrefix(left.history, live.history, sameHistoryEntry);
  const t = commonPrefix(left.transcript, live.transcript, sameTranscriptEntry);
  const out: SessionSnapshot = { ...rest, history: left.history.slice(h), transcript: left.transcript.slice(t) };
  const lastHistory = left.history[h - 1];
  const lastTranscript = left.transcript[t - 1];
  if (lastHistory !== undefined) out.history_base = lastHistory.response_id;
  if (lastTranscript !== undefined) out.transcript_base = markOf(lastTranscript);
  return out;
}

/**
 * The conversation `backup` stands for, whole again: the live state's entries up to where the
 * backup's prefix ended, then the backup's own. A backup an earlier version wrote (a whole copy,
 * no bases) comes back as it is. `files_undo` stays with the caller (it belongs to the backup).
 */
export function restoreBackup(backup: SessionSnapshot, live: SessionSnapshot): SessionSnapshot {
  const { history_base: historyBase, transcript_base: transcriptBase, ...rest } = backup;
  let history = backup.history;
  if (typeof historyBase === 'string') {
    const end = live.history.findIndex((e) => e.response_id === historyBase);
    if (end >= 0) history = [...live.history.slice(0, end + 1), ...history];
  }
  let transcript = backup.transcript;
  if (isMark(transcriptBase)) {
    const end = live.transcript.findLastIndex((e) => matchesMark(e, transcriptBase));
    if (end >= 0) transcript = [...live.transcript.slice(0, end + 1), ...transcript];
  }
  return { ...rest, history, transcript };
}
