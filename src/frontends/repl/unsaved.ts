// Starting the REPL where its session cannot be saved (a read-only checkout, a full disk):
// instead of refusing (exit 2), the session runs in memory and a banner says it will not be
// saved, as a one-shot already does. A lock that cannot be created there is no risk: another
// agentx cannot write in that directory either, so nothing can interleave.
import { acquireSessionLock, type SessionLock } from '../../store/store.ts';
import { errorCode } from '../../lib/fsutil.ts';

/** Errors meaning "nothing can be written here", as opposed to a broken setup worth stopping for. */
const UNWRITABLE: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
};

export type SessionLockOutcome =
  | { kind: 'locked'; release: () => void }
  | { kind: 'busy'; pid: number }
  /** The directory cannot be written: run in memory, say so with `banner`. */
  | { kind: 'unsaved'; reason: string }
  | { kind: 'error'; message: string };

export function lockForRepl(dir: string, acquire: (dir: string) => SessionLock = acquireSessionLock): SessionLockOutcome {
  try {
    const lock = acquire(dir);
    return lock.ok ? { kind: 'locked', release: lock.release } : { kind: 'busy', pid: lock.pid };
  } catch (err) {
    const code = errorCode(err);
    const reason = code === undefined ? undefined : UNWRITABLE[code];
    if (reason !== undefined) return { kind: 'unsaved', reason: `${reason}, ${code}` };
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}

export function unsavedBanner(dir: string, reason: string): string {
  return `cannot write in ${dir} (${reason}): this session will NOT be saved; it lasts until agentx exits.`;
}
