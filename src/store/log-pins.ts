// What the session files point at in the conversation log, so that a prune keeps it (issue 22;
// log/prune.ts keeps pinned branches whatever their age and size). The log knows nothing of the
// session files; the store, which owns them, names their pins (ConversationLog.pinWith):
//   - `.agentx_responseid` (the REPL's head), its rollback backup (what `/rollback undo` brings
//     back), and the records its journal and retry data point at (`output_log`, `input_log`);
//   - `.agentx_checkpoint` (the head one-shots branch from);
//   - every one-shot file still present (`.agentx_responseid.oneshot-*`: a running one-shot, or
//     one kept for its Retry);
//   - the archived sessions `/resume` offers (their heads: their outputs are kept inline).
// Read the way the session is loaded, and no further: a file whose seal does not verify pins
// nothing (it will never be used), an unsigned one (an older agentx) only its head (only that is
// used). Nothing here moves or changes a file; a file that cannot be read pins nothing (it
// cannot be loaded either).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isRecord } from '../lib/guards.ts';
import { READABLE_MAX_BYTES } from './fit.ts';
import { inspect, readChecked } from './fs.ts';
import { unsealJson } from './seal.ts';
import { listArchive } from './session-archive.ts';
import { CHECKPOINT_FILE, ONESHOT_NAME, STATE_FILE } from './store.ts';

/**
 * The log ids a session state points at — in memory or as its file holds it (pointers instead of
 * outputs): its head, the response its retry data continues, the records of its journal and
 * retry data, and the same of its rollback backup.
 */
export function statePins(state: unknown): string[] {
  if (!isRecord(state)) return [];
  const ids: string[] = [];
  const add = (id: unknown): void => {
    if (typeof id === 'string' && id.length > 0) ids.push(id);
  };
  add(state.response_id);
  if (Array.isArray(state.pending_tool_calls)) for (const call of state.pending_tool_calls) if (isRecord(call)) add(call.output_log);
  const t = state.pending_transaction;
  if (isRecord(t)) {
    add(t.previous_response_id);
    if (Array.isArray(t.input_log)) for (const item of t.input_log) if (isRecord(item)) add(item.output_log);
  }
  if (isRecord(state.rollback_backup)) ids.push(...statePins(state.rollback_backup));
  return ids;
}

/** What one session file pins (`full`: a state file, else a checkpoint, which names only its head). */
function filePins(file: string, full: boolean): string[] {
  try {
    const found = inspect(file);
    if (found.kind !== 'file') return [];
    const read = readChecked(found.readPath, READABLE_MAX_BYTES);
    if (!('text' in read)) return [];
    const seal = unsealJson(file, read.text);
    if (seal.status === 'forged') return [];
    const value: unknown = JSON.parse(seal.text);
    if (!isRecord(value)) return [];
    if (full && seal.status === 'sealed') return statePins(value);
    return typeof value.response_id === 'string' ? [value.response_id] : [];
  } catch {
    return [];
  }
}

/**
 * Every log id the project's session files point at: those in `dir` (the state file, the
 * checkpoint, one-shot files) and the heads of the archived sessions in `archiveDir`.
 */
export function sessionFilePins(dir: string, archiveDir: string): Set<string> {
  const ids = new Set<string>();
  const take = (list: readonly string[]): void => {
    for (const id of list) ids.add(id);
  };
  take(filePins(path.join(dir, STATE_FILE), true));
  take(filePins(path.join(dir, CHECKPOINT_FILE), false));
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // An unreadable directory: its one-shot files cannot be loaded either.
  }
  for (const name of names) if (ONESHOT_NAME.test(name)) take(filePins(path.join(dir, name), true));
  try {
    for (const entry of listArchive(archiveDir).sessions) if (entry.responseId !== null) ids.add(entry.responseId);
  } catch {
    // No archive (or an unreadable one): nothing there can be resumed.
  }
  return ids;
}
