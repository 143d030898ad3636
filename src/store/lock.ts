// The interactive session lock, `.agentx_responseid.lock` (SPEC §3.1: a second interactive
// agentx in the same directory never interleaves writes).
//
// The lock file holds "<pid>\n<token>\n<start time>\nseal:<hmac>\n" (seal.ts). It is created complete
// (lib/atomic-file.ts createFileExclusive: a temp file hard-linked into place, or an O_EXCL
// create where there are no hard links), so nobody reads a half-written lock. The random token
// tells our lock from one left by an earlier process that had the same pid (common in containers, where agentx may always be pid 1).
//
// A lock whose pid is dead (or unparsable and old) is taken over without a race by claiming it
// first (lib/lock-takeover.ts); the claims here are `<lock>.takeover-<inode>-<n>`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { createFileExclusive } from '../lib/atomic-file.ts';
import { errorCode, isPidAlive, randomHex, sleepMs, unlinkQuiet } from '../lib/fsutil.ts';
import { takeOverStaleLock, type LockFiles, type LockInfo } from '../lib/lock-takeover.ts';
import { procStartTime } from '../lib/zombie.ts';
import { sealLock, unsealLock } from './seal.ts';

export const LOCK_FILE = '.agentx_responseid.lock';

// `release` is a property, not a method, so it can be passed around unbound.
export type SessionLock = { ok: true; release: () => void } | { ok: false; pid: number };

/** An unparsable lock younger than this may still be being written by a foreign tool. */
const UNPARSABLE_GRACE_MS = 10_000;
const MAX_ATTEMPTS = 100;

/**
 * Lock files are written without fsync (two fdatasyncs off every interactive start, ~10 ms): a
 * lock says "a live process holds this", and a power loss ends its holder as well. What a power
 * loss can leave — no lock, an empty one with an old time, or a complete one naming a dead pid —
 * is stale either way (isLive) and taken over at the next start.
 */
const NOT_DURABLE = { durable: false } as const;

/** Tokens of locks this process holds, to tell them from leftovers of an earlier same-pid process. */
const heldTokens = new Set<string>();

function newToken(): string {
  return randomHex(16);
}

/** The lock's text, sealed (seal.ts): a lock nobody but agentx can write. */
function content(lockPath: string, token: string): string {
  // The owner's start time (lib/zombie.ts) names the process, not just its pid: see isLive.
  return sealLock(lockPath, `${process.pid}\n${token}\n${procStartTime(process.pid) ?? ''}\n`);
}

/** A lock's info and the start time its owner recorded ('' when it recorded none: an older agentx, or no /proc). */
type SessionLockInfo = LockInfo & { startTime: string };

function readInfo(p: string): SessionLockInfo | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    const st = fs.fstatSync(fd);
    const raw = fs.readFileSync(fd, 'utf8').slice(0, 512);
    const text = unsealLock(p, raw);
    // A lock that has text but no seal that verifies was not written by agentx (a command
    // wrote `1` into it, say): stale at once, whatever pid it names. An empty one may be a
    // lock being created without hard links, and gets the grace period.
    if (text === null) return { ino: st.ino, pid: null, token: '', mtimeMs: raw === '' ? st.mtimeMs : 0, startTime: '' };
    const [pidLine = '', token = '', startTime = ''] = text.split('\n');
    const pid = /^\d+$/.test(pidLine) ? Number(pidLine) : null;
    return { ino: st.ino, pid, token, mtimeMs: st.mtimeMs, startTime };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    // Not a readable regular file (a planted symlink, say): describe it as an unparsable lock.
    try {
      const st = fs.lstatSync(p);
      return { ino: st.ino, pid: null, token: '', mtimeMs: st.mtimeMs, startTime: '' };
    } catch {
      return null;
    }
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function isLive(info: SessionLockInfo): boolean {
  if (info.pid === null) return Date.now() - info.mtimeMs < UNPARSABLE_GRACE_MS;
  if (info.pid === process.pid) return heldTokens.has(info.token);
  if (!isPidAlive(info.pid)) return false;
  // A live pid that started at another time is not the owner: the kernel reused the dead owner's
  // pid (another program, or another agentx). Its lock would otherwise lock the person out.
  if (info.startTime !== '') {
    const now = procStartTime(info.pid);
    if (now !== undefined && now !== info.startTime) return false;
  }
  return true;
}

const FILES: LockFiles = { readInfo };

function held(lockPath: string, token: string): SessionLock {
  heldTokens.add(token);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    heldTokens.delete(token);
    // Only our own lock is removed; if it was (wrongly) taken over, the new holder keeps it.
    if (readInfo(lockPath)?.token === token) unlinkQuiet(lockPath);
  };
  process.on('exit', release);
  return { ok: true, release };
}

/**
 * Takes the session lock of `dir`, or reports the pid holding it. Also released on process
 * exit; after a crash (even SIGKILL) the dead pid makes the lock stale and the next start takes it.
 */
export function acquireSessionLock(dir: string): SessionLock {
  const lockPath = path.join(dir, LOCK_FILE);
  let last: SessionLockInfo | null = null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const token = newToken();
    if (createFileExclusive(lockPath, content(lockPath, token), 0o600, NOT_DURABLE)) return held(lockPath, token);
    last = readInfo(lockPath);
    if (last === null) continue;
    if (isLive(last)) return { ok: false, pid: last.pid ?? 0 };
    if (takeOverStaleLock(lockPath, last, content(lockPath, token), 'takeover', FILES, NOT_DURABLE)) return held(lockPath, token);
    // Another process is mid-takeover; give it a moment to finish, then look again.
    sleepMs(2);
  }
  return { ok: false, pid: last?.pid ?? 0 };
}
