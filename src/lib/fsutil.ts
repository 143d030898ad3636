// Small filesystem and process helpers shared by the session store and its lock.

import * as fs from 'node:fs';
import { isExitedProcess } from './zombie.ts';

export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return typeof error.code === 'string' ? error.code : undefined;
  }
  return undefined;
}

/** The message of anything thrown (an Error's message, otherwise its string form). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Signal 0 probes without delivering anything. EPERM means the pid exists but belongs to
 * someone else, so it counts as alive; ESRCH or a zombie state proves it gone. A reused pid
 * reads as alive, which errs on the side of leaving files and locks alone.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    // A zombie answers the probe but will never run again (zombie.ts).
    return !isExitedProcess(pid);
  } catch (error) {
    return errorCode(error) !== 'ESRCH' && !isExitedProcess(pid);
  }
}

/**
 * Random hex for temp-file names and lock tokens. They need uniqueness, not secrecy (temp files
 * are also created O_EXCL; a lock token is checked together with the pid), so Math.random does:
 * node:crypto would cost ~10 ms of module loading on every start (bench/, --cpu-prof).
 */
export function randomHex(chars: number): string {
  let s = '';
  while (s.length < chars)
    s += Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return s.slice(0, chars);
}

/** An ISO time that is safe in file names on every platform (no `:`). */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

export function unlinkQuiet(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Already gone, or never created: either way there is nothing left to remove.
  }
}

/** Synchronous sleep for short lock back-offs; the lock API is synchronous by design. */
export function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The current user's uid, or undefined where the platform has none (Windows). */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** An existing regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    fs.accessSync(path, fs.constants.X_OK);
    return fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Makes a rename in `dir` durable. Some filesystems refuse fsync on a directory; the rename is atomic regardless. */
export function fsyncDirectory(dir: string): void {
  fsyncQuiet(dir);
}

/** fsyncs the file or directory at `p`, best effort: whether it was synced (false: gone, or refused). */
export function fsyncQuiet(p: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, 'r');
    fs.fsyncSync(fd);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** readRegularFileText found something other than a regular file at the path (a FIFO, a device, a directory). */
export class NotRegularFileError extends Error {}

/**
 * The text of the regular file at `path`. Opened with O_NONBLOCK and checked with fstat before
 * reading: a FIFO or a device in place of a settings file would otherwise block the read (and
 * the start) forever. Throws NotRegularFileError for those, and open's own errors (ENOENT…) as they are.
 */
export function readRegularFileText(path: string): string {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    if (!fs.fstatSync(fd).isFile()) throw new NotRegularFileError(`${path} is not a regular file`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
