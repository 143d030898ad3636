// The store lock: snapshots share the store; a restore, a prune or the size cap has it alone.
//
// Exclusive: the lock file holds "<pid>\n<token>\n" and appears complete or not at all
// (lib/atomic-file.ts createFileExclusive, shared with the session lock). A lock whose
// process is dead is taken over in two steps so that two takers cannot both win: a taker first
// creates the claim file `<lock>.claim-<inode>-<n>` exclusively, re-reads the lock, and only if
// it is still the same stale file renames a fresh lock over it (lib/lock-takeover.ts, shared with
// the session lock). Having the lock file, the holder then waits until no live process is
// registered as a reader.
//
// Shared: a snapshot registers `<lock>.readers/<pid>-<token>` first and then looks at the lock
// file; if a live holder is there it unregisters and waits. Each side writes its own mark before
// reading the other's, so either the snapshot sees the lock or the lock holder sees the reader:
// a prune never deletes objects under a snapshot that is being written, and a snapshot never
// records a half-restored tree.

import * as fs from 'node:fs';
import { createFileExclusive } from '../lib/atomic-file.ts';
import { isPidAlive, randomHex, unlinkQuiet } from '../lib/fsutil.ts';
import { takeOverStaleLock, type LockFiles, type LockInfo } from '../lib/lock-takeover.ts';

export type LockResult = { ok: true; release: () => void } | { ok: false; pid: number };

/** An unparsable lock this young may still be being written by hand or by a foreign tool. */
const UNPARSABLE_GRACE_MS = 10_000;
const POLL_MS = 25;

function readInfo(lockFile: string): LockInfo | null {
  try {
    const st = fs.lstatSync(lockFile);
    const [pidLine = '', token = ''] = st.isFile() ? fs.readFileSync(lockFile, 'utf8').slice(0, 200).split('\n') : [];
    return { ino: st.ino, pid: /^\d+$/.test(pidLine) ? Number(pidLine) : null, token, mtimeMs: st.mtimeMs };
  } catch {
    return null;
  }
}

function isStale(info: LockInfo, now: number): boolean {
  if (info.pid === null) return now - info.mtimeMs > UNPARSABLE_GRACE_MS;
  return info.pid !== process.pid && !isPidAlive(info.pid);
}

const FILES: LockFiles = { readInfo };

function tryAcquire(lockFile: string, token: string): { ok: true } | { ok: false; pid: number } {
  const text = `${process.pid}\n${token}\n`;
  if (createFileExclusive(lockFile, text)) return { ok: true };
  const info = readInfo(lockFile);
  if (info === null) return { ok: false, pid: 0 };
  if (isStale(info, Date.now()) && takeOverStaleLock(lockFile, info, text, 'claim', FILES)) return { ok: true };
  return { ok: false, pid: info.pid ?? 0 };
}

function readersDir(lockFile: string): string {
  return `${lockFile}.readers`;
}

/** Whether any live process is registered as a reader; entries of dead ones are removed. */
function liveReaders(lockFile: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(readersDir(lockFile));
  } catch {
    return false;
  }
  let live = false;
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1] ?? 0);
    if (pid === process.pid || isPidAlive(pid)) live = true;
    else unlinkQuiet(`${readersDir(lockFile)}/${name}`);
  }
  return live;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock alone, waiting up to `waitMs` for a live holder or live readers to finish.
 * Never waits on a dead process: its lock is taken over and its reader entry removed.
 */
export async function acquireStoreLock(lockFile: string, waitMs: number): Promise<LockResult> {
  const token = randomHex(16);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const attempt = tryAcquire(lockFile, token);
    if (attempt.ok) {
      const release = (): void => {
        if (readInfo(lockFile)?.token === token) unlinkQuiet(lockFile);
      };
      while (liveReaders(lockFile)) {
        if (Date.now() >= deadline) {
          release();
          return { ok: false, pid: 0 };
        }
        await sleep(POLL_MS / 5);
      }
      return { ok: true, release: once(release) };
    }
    if (Date.now() >= deadline) return { ok: false, pid: attempt.pid };
    await sleep(POLL_MS);
  }
}

/** Shares the store with other readers (snapshots), waiting up to `waitMs` for a live lock holder. */
export async function acquireSharedLock(lockFile: string, waitMs: number): Promise<LockResult> {
  const dir = readersDir(lockFile);
  fs.mkdirSync(dir, { recursive: true });
  const mark = `${dir}/${process.pid}-${randomHex(12)}`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    fs.writeFileSync(mark, '', { flag: 'wx' });
    const holder = readInfo(lockFile);
    if (holder === null || isStale(holder, Date.now())) return { ok: true, release: once(() => unlinkQuiet(mark)) };
    unlinkQuiet(mark);
    if (Date.now() >= deadline) return { ok: false, pid: holder.pid ?? 0 };
    await sleep(POLL_MS);
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
