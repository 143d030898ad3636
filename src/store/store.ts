// The only code that puts session state on disk (SPEC §3.1–3.4, §6).
//
// Trust (SPEC §6): a file owned by another user, or anything that is not a regular file, is
// never read, moved, overwritten or deleted. Moving it aside is not an option (it is not ours;
// in a sticky directory we could not even rename it), so the session runs in memory only
// (`writable: false`) and the user is told why; saveState re-checks, so a foreign file planted
// later is not replaced either. A symlink pointing outside the directory is not followed:
// it is treated as absent and the next save's rename replaces the link itself (SPEC §3.1),
// leaving whatever it pointed to untouched.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_STATE_FILE_BYTES, emptyState } from './types.ts';
import type { SessionState } from './types.ts';
import { parseState, stateForDisk } from './parse.ts';
import { prettyJsonParts } from './pretty-json.ts';
import { parseCheckpoint, serializeCheckpoint } from './checkpoint.ts';
import type { Checkpoint } from './checkpoint.ts';
import { currentUid, errorCode, fileStamp, isPidAlive } from '../lib/fsutil.ts';
import { fitStateToLimit, fitTarget, oversizeNotice, partsOverLimit, READABLE_MAX_BYTES } from './fit.ts';
import { sealingEnabled, sealJson, unsealJson } from './seal.ts';
import { assertReplaceable, inspect, moveAside, readChecked, untouchable } from './fs.ts';
import { writeFileAtomicSync, type WriteOptions } from '../lib/atomic-file.ts';

export { acquireSessionLock, LOCK_FILE } from './lock.ts';
export type { SessionLock } from './lock.ts';

export const STATE_FILE = '.agentx_responseid';
export const CHECKPOINT_FILE = '.agentx_checkpoint';

export interface LoadResult {
  state: SessionState;
  /** A usable state was read from disk (the session resumes). */
  existed: boolean;
  /** One-line messages for the user. */
  notices: string[];
  /** False when the file must not be written (untrusted, or could not be moved aside). */
  writable: boolean;
}

export function loadState(p: string, now: Date): LoadResult {
  const name = path.basename(p);
  const found = inspect(p);
  if (found.kind === 'absent') return { state: emptyState(), existed: false, notices: [], writable: true };
  if (found.kind === 'untrusted') {
    const notice = found.replaceable
      ? `${name} ${found.reason}: not following it; a fresh session will replace the link when saved.`
      : `${name} ${found.reason}: not using or changing it; this session is kept in memory only.`;
    return { state: emptyState(), existed: false, notices: [notice], writable: found.replaceable };
  }
  // An oversized state file is fitted under the limit (fit.ts), not moved aside whole.
  const read = readChecked(found.readPath, READABLE_MAX_BYTES);
  const seal = 'text' in read ? unsealJson(p, read.text) : undefined;
  if (seal?.status === 'forged') return setAsideForged(p, name, now);
  const parsed =
    seal !== undefined && 'text' in seal
      ? parseState(seal.text, READABLE_MAX_BYTES)
      : { ok: false as const, reason: 'error' in read ? read.error : 'unreadable' };
  if (!parsed.ok) {
    try {
      const aside = path.basename(moveAside(p, now));
      const notice = `${name} could not be used (${parsed.reason}); moved it to ${aside} and started a fresh session.`;
      return { state: emptyState(), existed: false, notices: [notice], writable: true };
    } catch (error) {
      const notice = `${name} could not be used (${parsed.reason}) nor moved aside (${errorCode(error) ?? 'error'}); this session is kept in memory only.`;
      return { state: emptyState(), existed: false, notices: [notice], writable: false };
    }
  }
  const notices: string[] = [];
  if (seal?.status === 'unsigned') {
    // An older agentx, the AgentX CLI — or a command, a patch, a clone: only the conversation
    // it points at is taken; nothing of it runs or is sent as the person's words.
    notices.push(
      `${name} carries no agentx seal (an older agentx, the AgentX CLI, or written by something else): continuing its conversation only; its pending tool calls and unsent messages are not used.`,
    );
    const imported = contextOnly(parsed.state);
    return { state: imported, existed: imported.response_id !== null, notices, writable: true };
  }
  if (parsed.migrated) notices.push(`${name} was in an older format; it will be saved in the current one.`);
  if (parsed.warnings.length > 0) {
    notices.push(`${name}: reset invalid ${parsed.warnings.join(', ')} (original values kept under invalid_fields).`);
  }
  let state = parsed.state;
  if ('size' in read && read.size > MAX_STATE_FILE_BYTES) {
    const repair = fitStateToLimit(state, fitTarget(MAX_STATE_FILE_BYTES));
    state = repair.state;
    notices.push(oversizeNotice(name, read.size, MAX_STATE_FILE_BYTES, repair.trimmed));
    try {
      saveState(p, state);
    } catch {
      // Not writable: the session's own saves report that; the trimmed state is used in memory.
    }
  }
  return { state, existed: true, notices, writable: true };
}

/** A file with a seal that does not verify: kept aside as `<name>.untrusted-<time>`, never used. */
function setAsideForged(p: string, name: string, now: Date): LoadResult {
  try {
    const aside = path.basename(moveAside(p, now, 'untrusted'));
    return {
      state: emptyState(),
      existed: false,
      notices: [
        `${name} was not written by agentx (its seal does not verify: a command, a patch or a copied file?): not using it; moved it to ${aside} and started a fresh session.`,
      ],
      writable: true,
    };
  } catch (error) {
    return {
      state: emptyState(),
      existed: false,
      notices: [
        `${name} was not written by agentx (its seal does not verify) and could not be moved aside (${errorCode(error) ?? 'error'}); not using it; this session is kept in memory only.`,
      ],
      writable: false,
    };
  }
}

/** What an unsealed state may give a new session: the conversation it points at and its counts. */
function contextOnly(state: SessionState): SessionState {
  return { ...emptyState(), response_id: state.response_id, usage: state.usage, context_tokens: state.context_tokens };
}

export function saveState(p: string, state: SessionState, opts: WriteOptions = {}): void {
  assertReplaceable(p);
  // Same bytes as serializeState(state), built from small pieces (see pretty-json.ts).
  let parts = [...prettyJsonParts(stateForDisk(state)), '\n'];
  // Last line of defence (fit.ts says what can still be big): never write a file over the limit.
  if (partsOverLimit(parts, MAX_STATE_FILE_BYTES)) {
    parts = [...prettyJsonParts(stateForDisk(fitStateToLimit(state, fitTarget(MAX_STATE_FILE_BYTES)).state)), '\n'];
  }
  writeFileAtomicSync(p, sealingEnabled() ? [sealJson(p, parts.join(''))] : parts, 0o600, opts);
}

export function loadCheckpointWithNotices(dir: string): { checkpoint: Checkpoint | null; notices: string[] } {
  const found = inspect(path.join(dir, CHECKPOINT_FILE));
  if (found.kind === 'absent') return { checkpoint: null, notices: [] };
  if (found.kind === 'untrusted') return { checkpoint: null, notices: [`${CHECKPOINT_FILE} ${found.reason}: ignoring it.`] };
  const read = readChecked(found.readPath, MAX_STATE_FILE_BYTES);
  const seal = 'text' in read ? unsealJson(path.join(dir, CHECKPOINT_FILE), read.text) : undefined;
  // Left in place either way: one-shots running concurrently must not race to rename it.
  if (seal?.status === 'forged')
    return { checkpoint: null, notices: [`${CHECKPOINT_FILE} was not written by agentx (its seal does not verify): ignoring it.`] };
  const parsed =
    seal !== undefined && 'text' in seal ? parseCheckpoint(seal.text) : { ok: false as const, reason: 'error' in read ? read.error : 'unreadable' };
  // A bad checkpoint is left in place: it is a derived copy the next successful turn rewrites,
  // and one-shots running concurrently must not race to rename it.
  if (!parsed.ok) return { checkpoint: null, notices: [`${CHECKPOINT_FILE} could not be used (${parsed.reason}); starting fresh.`] };
  if (seal?.status === 'unsigned') {
    // Only the response it names: a compaction seed in it would be sent to the model as if the person had said it.
    const cp = parsed.checkpoint;
    const notice = `${CHECKPOINT_FILE} carries no agentx seal (an older agentx, the AgentX CLI, or written by something else): continuing from its response only.`;
    return {
      checkpoint:
        cp.response_id === null
          ? null
          : { version: 1, timestamp: cp.timestamp, usage: cp.usage, source: cp.source, context_tokens: cp.context_tokens, response_id: cp.response_id },
      notices: [notice],
    };
  }
  return { checkpoint: parsed.checkpoint, notices: [] };
}

export function saveCheckpoint(dir: string, cp: Checkpoint): void {
  const p = path.join(dir, CHECKPOINT_FILE);
  assertReplaceable(p);
  writeFileAtomicSync(p, sealJson(p, serializeCheckpoint(cp)));
}

/** /clear: the interactive state and the branch point go; one-shot and corrupt files stay. Returns removed names. */
export function deleteSessionFiles(dir: string): string[] {
  const removed: string[] = [];
  for (const name of [STATE_FILE, CHECKPOINT_FILE]) {
    const p = path.join(dir, name);
    if (untouchable(p)) continue;
    try {
      fs.unlinkSync(p);
      removed.push(name);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
  return removed;
}

export function oneshotStatePath(dir: string, pid: number, now: Date): string {
  return path.join(dir, `${STATE_FILE}.oneshot-${pid}-${fileStamp(now)}`);
}

export const ONESHOT_NAME = /^\.agentx_responseid\.oneshot-(\d+)-[0-9TZ-]+$/;
/** Temp files of an atomic write (or lock) interrupted by a crash, named after their writer's pid. */
const TEMP_NAME = /^\.agentx_(?:responseid|checkpoint)\S*\.tmp-(\d+)-[0-9a-f]+$/;

/**
 * Removes one-shot state files (and interrupted temp files) older than `maxAgeMs` whose
 * process is gone. Only regular files we own are touched; links and others' files stay.
 */
export function cleanupStaleOneshots(dir: string, now: Date, maxAgeMs = 3_600_000): string[] {
  const removed: string[] = [];
  const uid = currentUid();
  for (const name of fs.readdirSync(dir)) {
    const match = ONESHOT_NAME.exec(name) ?? TEMP_NAME.exec(name);
    if (match === null) continue;
    const p = path.join(dir, name);
    try {
      const st = fs.lstatSync(p);
      if (!st.isFile() || (uid !== undefined && st.uid !== uid)) continue;
      if (now.getTime() - st.mtimeMs <= maxAgeMs || isPidAlive(Number(match[1]))) continue;
      fs.unlinkSync(p);
      removed.push(name);
    } catch {
      // Removed concurrently by another agentx: nothing to do.
    }
  }
  return removed;
}
