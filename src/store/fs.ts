// File-system primitives of the session store: crash-safe atomic replace, and the trust checks
// that decide whether a path may be read, replaced or moved aside (docs/SPEC.md §6).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { currentUid, errorCode, fileStamp, fsyncDirectory, randomHex, unlinkQuiet } from '../lib/fsutil.ts';

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

export type Inspection =
  | { kind: 'absent' }
  /** `replaceable`: a link our rename may replace; otherwise the path must be left alone. */
  | { kind: 'untrusted'; reason: string; replaceable: boolean }
  | { kind: 'file'; readPath: string };

/** Decides whether the file at `p` may be read, following only symlinks that stay inside its directory. */
export function inspect(p: string): Inspection {
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
export function readChecked(readPath: string, maxBytes: number): { text: string; size: number } | { error: string } {
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
export function moveAside(p: string, now: Date, why: 'corrupt' | 'untrusted' = 'corrupt'): string {
  const base = `${p}.${why}-${fileStamp(now)}`;
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

/** A path that is someone else's, or not a file or link, and so must never be replaced or removed. */
export function untouchable(p: string): boolean {
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

export function assertReplaceable(p: string): void {
  if (untouchable(p)) throw new Error(`refusing to replace ${path.basename(p)}: it is owned by another user or not a regular file`);
}

