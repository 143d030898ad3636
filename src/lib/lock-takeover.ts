// Taking over a stale lock file without a race, for both lock files that hold "<pid>\n<token>\n"
// (store/lock.ts, the session lock; workspace/store-lock.ts, the snapshot store lock). Both create
// files with lib/atomic-file.ts (complete or not at all, also without hard links); each brings its
// own way of reading a lock (the session lock checks a seal). The protocol is this one:
//  1. Takers claim the stale lock by creating `<lock>.<claim>-<inode>-<n>` exclusively, so
//     exactly one of them holds a claim on that particular stale file. A claim whose owner died
//     mid-takeover is skipped by moving on to the next n, never deleted by others.
//  2. The claim holder re-reads the lock; if it is still the same stale file (inode, pid and
//     token) it renames a complete new lock over it. rename() replaces in one step, so there is
//     no moment without a lock in which a fresh acquirer could slip in.
//  3. It then removes its claims. A slow taker that claims afterwards fails the re-check in
//     step 2, because the lock it saw is gone (token compared too, in case the inode is reused).

import { createFileExclusive, writeFileAtomicSync, type WriteOptions } from './atomic-file.ts';
import { isPidAlive, unlinkQuiet } from './fsutil.ts';

export interface LockInfo {
  ino: number;
  /** Null when the file does not start with a pid line (being written, or not ours). */
  pid: number | null;
  token: string;
  mtimeMs: number;
}

export interface LockFiles {
  /** The lock or claim file at `file`, null when there is none. */
  readInfo(file: string): LockInfo | null;
}

const MAX_CLAIMS = 16;

/** Whether another live process holds this claim (ours, from an earlier attempt, does not count). */
function claimHolderAlive(claim: LockInfo | null): boolean {
  const pid = claim?.pid ?? 0;
  return pid !== process.pid && isPidAlive(pid);
}

/**
 * Replaces the stale lock `stale` at `lockFile` by one holding `text`. False when another
 * process is taking it over, or the lock changed since `stale` was read. `write` says whether
 * the claims and the new lock are fsynced (the session lock: not, see store/lock.ts).
 */
export function takeOverStaleLock(lockFile: string, stale: LockInfo, text: string, claimName: string, files: LockFiles, write: WriteOptions = {}): boolean {
  const claimOf = (n: number): string => `${lockFile}.${claimName}-${stale.ino}-${n}`;
  for (let n = 0; n < MAX_CLAIMS; n++) {
    if (!createFileExclusive(claimOf(n), `${process.pid}\n`, 0o600, write)) {
      if (claimHolderAlive(files.readInfo(claimOf(n)))) return false;
      continue;
    }
    try {
      const now = files.readInfo(lockFile);
      if (now === null || now.ino !== stale.ino || now.pid !== stale.pid || now.token !== stale.token) return false;
      writeFileAtomicSync(lockFile, text, 0o600, write);
      return true;
    } finally {
      for (let k = 0; k <= n; k++) unlinkQuiet(claimOf(k));
    }
  }
  return false;
}
