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
import { currentUid, errorCode, fileStamp, isPidAlive, randomHex, unlinkQuiet } from './fsutil.ts';
import { oversizeNotice, partsOverLimit, REPAIRABLE_MAX_BYTES, repairTarget, trimStateToLimit } from './trim.ts';

export { acquireSessionLock, LOCK_FILE } from './lock.ts';
export type { SessionLock } from './lock.ts';

export const STATE_FILE = '.agentx_responseid';
export const CHECKPOINT_FILE = '.agentx_checkpoint';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Crash-safe replace: a uniquely named temp file in the same directory (so the rename stays on
 * one filesystem), written, fsynced, renamed over the target, then the directory fsynced so the
 * rename itself survives a power loss. rename() replaces a symlink at the target rather than
 * writing through it, and O_EXCL|O_NOFOLLOW means the temp file cannot be a planted link.
 */
export interface WriteOptions {
  /**
   * false skips both fsyncs: the rename still makes the write atomic against a crash of the
   * process (the page cache survives it), only a power loss may lose it. Used for one-shot
   * files, which hold diagnosis data, not the conversation.
   */
  durable?: boolean;
}

/**
 * One encode buffer for the process, grown on demand and reused: a fresh Buffer per save of a
 * 190 KB state costs ~1 ms in allocation and page faults (bench/: --cpu-prof of the state write).
 */
let scratch = Buffer.alloc(0);

/** UTF-8 of the parts, concatenated, in the reused scratch buffer (valid until the next call). */
function encodeParts(parts: readonly string[]): Buffer {
  let length = 0;
  for (const part of parts) {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    if (length + part.length * 3 > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * scratch.length, length + part.length * 3, 64 * 1024));
      scratch.copy(grown, 0, 0, length);
      scratch = grown;
    }
    length += scratch.write(part, length, 'utf8');
  }
  return scratch.subarray(0, length);
}

/** `data` may come in parts (written in order, as one string would be): see pretty-json.ts. */
export function writeFileAtomicSync(target: string, data: string | readonly string[], mode = 0o600, opts: WriteOptions = {}): void {
  const durable = opts.durable !== false;
  const dir = path.dirname(target);
  const tmp = path.join(dir, `${path.basename(target)}.tmp-${process.pid}-${randomHex(12)}`);
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW;
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, flags, mode);
    // The umask can only remove bits from `mode`; fchmod makes the mode exact either way.
    fs.fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : encodeParts(data);
    for (let offset = 0; offset < bytes.length; ) offset += fs.writeSync(fd, bytes, offset);
    // fdatasync: the data and the size that reaches it, without a second metadata write.
    if (durable) fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, target);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    unlinkQuiet(tmp);
    throw error;
  }
  if (durable) fsyncDirectory(dir);
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename has happened regardless.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

type Inspection =
  | { kind: 'absent' }
  /** `replaceable`: a link our rename may replace; otherwise the path must be left alone. */
  | { kind: 'untrusted'; reason: string; replaceable: boolean }
  | { kind: 'file'; readPath: string };

/** Decides whether the file at `p` may be read, following only symlinks that stay inside its directory. */
function inspect(p: string): Inspection {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { kind: 'absent' };
    return { kind: 'untrusted', reason: `cannot be examined (${errorCode(error) ?? 'error'})`, replaceable: false };
  }
  let readPath = p;
  if (st.isSymbolicLink()) {
    let real: string;
    try {
      real = fs.realpathSync(p);
    } catch {
      return { kind: 'untrusted', reason: 'is a symlink to nothing', replaceable: true };
    }
    const dir = fs.realpathSync(path.dirname(p));
    if (!real.startsWith(dir + path.sep)) {
      return { kind: 'untrusted', reason: 'is a symlink pointing outside this directory', replaceable: true };
    }
    st = fs.statSync(real);
    readPath = real;
  }
  if (!st.isFile()) return { kind: 'untrusted', reason: 'is not a regular file', replaceable: false };
  const uid = currentUid();
  if (uid !== undefined && st.uid !== uid) {
    return { kind: 'untrusted', reason: `is owned by another user (uid ${st.uid})`, replaceable: false };
  }
  return { kind: 'file', readPath };
}

/** Reads without following a link swapped in after inspection and without blocking on a FIFO. */
function readChecked(readPath: string, maxBytes = MAX_STATE_FILE_BYTES): { text: string; size: number } | { error: string } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(readPath, fs.constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { error: 'is not a regular file' };
    if (st.size > maxBytes) return { error: 'file is too large' };
    return { text: fs.readFileSync(fd, 'utf8'), size: st.size };
  } catch (error) {
    return { error: `unreadable (${errorCode(error) ?? 'error'})` };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Moves a bad file to `<path>.corrupt-<timestamp>[-n]`. link+unlink never replaces an existing
 * file (link fails with EEXIST), so an earlier corrupt copy is never clobbered.
 */
function moveAside(p: string, now: Date): string {
  const base = `${p}.corrupt-${fileStamp(now)}`;
  for (let n = 0; n < 1000; n++) {
    const dest = n === 0 ? base : `${base}-${n}`;
    try {
      fs.linkSync(p, dest);
      fs.unlinkSync(p);
      return dest;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') continue;
      // Filesystems without hard links: a checked rename is the best that remains.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw error;
      if (fs.existsSync(dest)) continue;
      fs.renameSync(p, dest);
      return dest;
    }
  }
  throw new Error(`no free name for ${base}`);
}

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
  // An oversized state file is repaired by trimming (trim.ts), not moved aside whole.
  const read = readChecked(found.readPath, REPAIRABLE_MAX_BYTES);
  const parsed = 'text' in read ? parseState(read.text, REPAIRABLE_MAX_BYTES) : { ok: false as const, reason: read.error };
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
  if (parsed.migrated) notices.push(`${name} was in an older format; it will be saved in the current one.`);
  if (parsed.warnings.length > 0) {
    notices.push(`${name}: reset invalid ${parsed.warnings.join(', ')} (original values kept under invalid_fields).`);
  }
  let state = parsed.state;
  if ('size' in read && read.size > MAX_STATE_FILE_BYTES) {
    const repair = trimStateToLimit(state, repairTarget(MAX_STATE_FILE_BYTES));
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

/** A path that is someone else's, or not a file or link, and so must never be replaced or removed. */
function untouchable(p: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  if (st.isSymbolicLink()) return false;
  const uid = currentUid();
  return !st.isFile() || (uid !== undefined && st.uid !== uid);
}

function assertReplaceable(p: string): void {
  if (untouchable(p)) throw new Error(`refusing to replace ${path.basename(p)}: it is owned by another user or not a regular file`);
}

export function saveState(p: string, state: SessionState, opts: WriteOptions = {}): void {
  assertReplaceable(p);
  // Same bytes as serializeState(state), built from small pieces (see pretty-json.ts).
  let parts = [...prettyJsonParts(stateForDisk(state)), '\n'];
  // Last line of defence (tool outputs have their own budget): never write a file over the limit.
  if (partsOverLimit(parts, MAX_STATE_FILE_BYTES)) {
    parts = [...prettyJsonParts(stateForDisk(trimStateToLimit(state, repairTarget(MAX_STATE_FILE_BYTES)).state)), '\n'];
  }
  writeFileAtomicSync(p, parts, 0o600, opts);
}

export function loadCheckpointWithNotices(dir: string): { checkpoint: Checkpoint | null; notices: string[] } {
  const found = inspect(path.join(dir, CHECKPOINT_FILE));
  if (found.kind === 'absent') return { checkpoint: null, notices: [] };
  if (found.kind === 'untrusted') return { checkpoint: null, notices: [`${CHECKPOINT_FILE} ${found.reason}: ignoring it.`] };
  const read = readChecked(found.readPath);
  const parsed = 'text' in read ? parseCheckpoint(read.text) : { ok: false as const, reason: read.error };
  // A bad checkpoint is left in place: it is a derived copy the next successful turn rewrites,
  // and one-shots running concurrently must not race to rename it.
  if (!parsed.ok) return { checkpoint: null, notices: [`${CHECKPOINT_FILE} could not be used (${parsed.reason}); starting fresh.`] };
  return { checkpoint: parsed.checkpoint, notices: [] };
}

export function loadCheckpoint(dir: string): Checkpoint | null {
  return loadCheckpointWithNotices(dir).checkpoint;
}

export function saveCheckpoint(dir: string, cp: Checkpoint): void {
  const p = path.join(dir, CHECKPOINT_FILE);
  assertReplaceable(p);
  writeFileAtomicSync(p, serializeCheckpoint(cp));
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

const ONESHOT_NAME = /^\.agentx_responseid\.oneshot-(\d+)-[0-9TZ-]+$/;
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
