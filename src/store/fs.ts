// File-system primitives of the session store: the trust checks that decide whether a path may
// be read, replaced or moved aside (docs/SPEC.md §6). The crash-safe replace they guard is
// lib/atomic-file.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { currentUid, errorCode, fileStamp } from '../lib/fsutil.ts';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

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
