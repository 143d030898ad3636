// Earlier conversations of a project, kept so they can be found again (`/resume`, `agentx resume`).
//
// `/clear`, "New session" and `/resume` itself put the conversation being left here: one file
// per conversation in the private state store (`<private store>/sessions/<project>/`), the last
// ARCHIVE_MAX kept, oldest pruned first. A file holds the session state as it was — the chain
// head that points into the conversation log, the tool-call journal, the bounded local context —
// not the conversation itself: that stays in the log (store/log), which a resumed session chains
// from or replays like any other. Because the journal comes back whole, a resumed conversation
// never runs a call again: a call that completed has its output, one that did not is offered in
// the pending-calls menu, as after a crash.
//
// The state is kept whole, unlike the state file: the journal's completed outputs and the retry
// data's items inline, not as pointers into the log. An entry may wait weeks for /resume while the
// log is pruned to its newest branches (log/prune.ts); a lost output would turn its call back into
// `started`. Resuming goes through SessionStore.fromFile all the same (entries written as pointers
// by an earlier build are read back from the log); the next save appends the outputs to the log again.
//
// What the /resume menu shows — when it was left, how it began and ended, its chain head, the
// files it changed — is in the entry's own small fields, so listing reads only those; the state
// is parsed for the one entry chosen (readArchivedState). Entries written before those fields
// existed are listed from their state, as before.
//
// Each file carries a seal (store/seal.ts) over its content and its path: a file agentx did not
// write there (copied from another project, edited, planted) does not verify and is refused.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { errorCode, fileStamp, randomHex, unlinkQuiet } from '../lib/fsutil.ts';
import { inspect, readChecked } from './fs.ts';
import { parseState, stateForDisk } from './parse.ts';
import { sealJson, unsealJson } from './seal.ts';
import { isEmptyConversation } from './state.ts';
import { MAX_STATE_FILE_BYTES, type SessionState } from './types.ts';

/** Conversations kept per project (issue 26): enough to find last week's work, bounded on disk. */
export const ARCHIVE_MAX = 50;

const SUFFIX = '.json';
/** Enough of the first message to recognize the conversation in a list. */
const FIRST_PROMPT_CHARS = 200;
/** Paths kept per entry: enough to recognize the work, bounded whatever a turn touched. */
const FILES_KEPT = 20;

export interface ArchivedSession {
  /** The file (its name orders the archive: the time it was archived comes first). */
  file: string;
  archivedAt: string;
  /** The conversation's first message as the person typed it (not yet sanitized: display code does that). */
  firstPrompt: string;
  turns: number;
  /**
   * Files the conversation's tool calls changed, as the file snapshots saw them when it was left
   * (at most FILES_KEPT paths, '/'-separated, relative to the project), with their total count;
   * undefined for an entry written without snapshots or by an earlier version.
   */
  filesChanged?: { paths: string[]; count: number };
  /** The chain head it was left at (null: none, e.g. right after a compaction or a failed first request). */
  responseId: string | null;
  /** The person's last message (not yet sanitized), null when there is none. */
  lastMessage: string | null;
}

export interface ArchiveListing {
  /** Newest first. */
  sessions: ArchivedSession[];
  /** Files that are not agentx's archive entries (forged, damaged, foreign): never offered. */
  refused: string[];
}

/**
 * The first message of the conversation, as far back as the state remembers: the oldest
 * checkpoint's message (history keeps 20), else the oldest message of the local context.
 */
export function firstPromptOf(s: SessionState): string {
  const oldest = s.history[0];
  if (oldest !== undefined) return oldest.last_user_message ?? oldest.user_preview;
  const user = s.transcript.find((e) => e.role === 'user');
  return user?.text ?? s.last_user_message ?? s.pending_transaction?.user_message ?? '';
}

/**
 * Keeps `state` in the archive (a no-op for an empty conversation, isEmptyConversation) and
 * prunes it to ARCHIVE_MAX. `state` is kept whole, outputs inline (see the header). Returns the file written — `/rollback undo` removes that copy —
 * or undefined. Throws when it cannot write: the caller must then not drop the conversation it
 * was about to leave.
 */
export function archiveSession(dir: string, state: SessionState, now: Date, filesChanged?: readonly string[]): string | undefined {
  if (isEmptyConversation(state)) return undefined;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${fileStamp(now)}-${randomHex(8)}${SUFFIX}`);
  const entry = {
    archived_at: now.toISOString(),
    first_prompt: Array.from(firstPromptOf(state).replace(/\s+/g, ' ').trim()).slice(0, FIRST_PROMPT_CHARS).join(''),
    turns: state.usage.turns,
    response_id: state.response_id,
    last_message: state.last_user_message,
    ...(filesChanged === undefined ? {} : { files_changed: { paths: filesChanged.slice(0, FILES_KEPT), count: filesChanged.length } }),
    state: stateForDisk({ ...state, rollback_backup: null }),
  };
  writeFileAtomicSync(file, sealJson(file, `${JSON.stringify(entry, null, 2)}\n`), 0o600);
  pruneArchive(dir, ARCHIVE_MAX);
  return file;
}

/** Removes the oldest entries beyond `keep` (names sort by the time they were archived). */
export function pruneArchive(dir: string, keep: number): number {
  const names = entryNames(dir);
  const excess = names.slice(0, Math.max(0, names.length - keep));
  for (const name of excess) unlinkQuiet(path.join(dir, name));
  return excess.length;
}

function entryNames(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => n.endsWith(SUFFIX))
      .sort();
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
}

/** The archive, newest first; files that do not verify or parse are listed as refused, never used. */
export function listArchive(dir: string): ArchiveListing {
  const sessions: ArchivedSession[] = [];
  const refused: string[] = [];
  // Only the newest few are read: a directory stuffed with files cannot make this slow.
  for (const name of entryNames(dir)
    .reverse()
    .slice(0, ARCHIVE_MAX * 2)) {
    const file = path.join(dir, name);
    const entry = readEntry(file);
    if (entry === null) refused.push(file);
    else sessions.push(entry);
  }
  return { sessions: sessions.slice(0, ARCHIVE_MAX), refused };
}

/** The entry's verified JSON object, or null when it is not agentx's (no seal, a seal that fails) or not an object. */
function readSealed(file: string): Record<string, unknown> | null {
  const found = inspect(file);
  if (found.kind !== 'file') return null;
  const read = readChecked(found.readPath, MAX_STATE_FILE_BYTES);
  if (!('text' in read)) return null;
  const seal = unsealJson(file, read.text);
  // An archive entry is always sealed by agentx: an unsigned one was not written by it.
  if (seal.status !== 'sealed') return null;
  let value: unknown;
  try {
    value = JSON.parse(seal.text);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** The entry's state, parsed and checked like a state file (null: unusable), without a rollback backup. */
function stateOf(v: Record<string, unknown>): SessionState | null {
  const parsed = parseState(JSON.stringify(v.state ?? null));
  return parsed.ok ? { ...parsed.state, rollback_backup: null } : null;
}

/** What the menu shows, from the entry's own fields; the state is parsed only for an entry written before they existed. */
function readEntry(file: string): ArchivedSession | null {
  const v = readSealed(file);
  if (v === null) return null;
  if (typeof v.archived_at !== 'string' || typeof v.first_prompt !== 'string' || typeof v.turns !== 'number') return null;
  const filesChanged = readFilesChanged(v.files_changed);
  const base = { file, archivedAt: v.archived_at, firstPrompt: v.first_prompt, turns: v.turns, ...(filesChanged === undefined ? {} : { filesChanged }) };
  if ('response_id' in v && 'last_message' in v) {
    const { response_id: responseId, last_message: lastMessage } = v;
    if (!nullOrString(responseId) || !nullOrString(lastMessage)) return null;
    return { ...base, responseId, lastMessage };
  }
  const state = stateOf(v);
  return state === null ? null : { ...base, responseId: state.response_id, lastMessage: state.last_user_message };
}

function nullOrString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/**
 * The state of the entry chosen, read again and parsed whole: null when it no longer verifies
 * or parses (changed since it was listed). As its file holds it: the caller reads the outputs
 * it points at back from the log (SessionStore.fromFile).
 */
export function readArchivedState(entry: Pick<ArchivedSession, 'file'>): SessionState | null {
  const v = readSealed(entry.file);
  return v === null ? null : stateOf(v);
}

/** The entry's files_changed, or undefined when absent or not the shape agentx writes. */
function readFilesChanged(value: unknown): ArchivedSession['filesChanged'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { paths, count } = value as Record<string, unknown>;
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string') || typeof count !== 'number' || !Number.isInteger(count) || count < paths.length)
    return undefined;
  return { paths: paths.slice(0, FILES_KEPT), count };
}

/**
 * Files the archive refused are kept aside (`<name>.refused`, no longer listed): the person is
 * told once, and whoever wants to look at a planted file still finds it.
 */
export function setAsideRefused(files: readonly string[]): void {
  for (const file of files) {
    try {
      fs.renameSync(file, `${file}.refused`);
    } catch {
      // Gone already, or not ours to move: it is refused again next time, which is still safe.
    }
  }
}

/** The entry is the project's session now: it is no longer an earlier one. */
export function removeFromArchive(entry: Pick<ArchivedSession, 'file'>): void {
  unlinkQuiet(entry.file);
}
