// Session start-up and clean-up for both front-ends (SPEC §1, §3.4, §5). The order matters and is
// the same in both, so it is written down here once:
//   1. the seal key (useSessionSeal) — before the lock or any state is read: both carry seals;
//   2. the REPL locks the directory's session (lockSession); a one-shot takes no lock, it owns an
//      isolated state file;
//   3. the session is loaded and stale one-shot files are pruned: the REPL loads its state file,
//      then drops one-shot leftovers of the last hour silently (loadReplSession); a one-shot drops
//      leftovers older than a week, saying so, then reads the checkpoint it branches from
//      (loadOneshotStart);
//   4. the project's conversation log opens, once for the session (openConversationLog), and the
//      store opens with it (openSessionStore): tool outputs go to that log, and the first save adds
//      the agentx files to .git/info/exclude. The engine is given the same log (runtime.ts): one
//      in-memory index of the file, one repair of a torn tail, said once in the caller's channel;
//   5. a rollback or restore a killed session left half done is finished before the first turn
//      (REPL: repl/rollback.ts finishLeftRollback, through the engine; one-shot:
//      workspace-session.ts finishInterruptedRestore) — both need the engine or the snapshot
//      settings, built after this, so they stay where they are;
//   6. clean-up: a one-shot that succeeded removes its state file (finishOneshot); the REPL
//      releases its lock. Clearing the conversation or starting a new session is a REPL command
//      on a running engine (repl/recovery.ts), not start-up.
// Lines for the person go through the callers' sinks, which sanitize (REPL: sanitizeLines in its
// theme; one-shot: stderrLine).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode, unlinkQuiet } from '../lib/fsutil.ts';
import { conversationLogPath, homeDir, sessionArchiveDir, stateKeyPath } from '../paths.ts';
import { ensureGitExclude, excludeNotice } from '../store/git-exclude.ts';
import { ConversationLog, type LogOptions } from '../store/log/conversation-log.ts';
import { sessionFilePins, statePins } from '../store/log-pins.ts';
import { pruneOldOneshots } from '../store/oneshot-files.ts';
import { useStateKey } from '../store/seal.ts';
import { SessionStore, type Persistence } from '../store/session-store.ts';
import { ROLLBACK_IN_PROGRESS_KEY, type SessionState } from '../store/state.ts';
import type { Checkpoint } from '../store/checkpoint.ts';
import {
  acquireSessionLock,
  cleanupStaleOneshots,
  loadCheckpointWithNotices,
  loadState,
  oneshotStatePath,
  STATE_FILE,
  type LoadResult,
  type SessionLock,
} from '../store/store.ts';

/** Step 1: the key that seals the lock, the state file and the checkpoint (store/seal.ts). */
export function useSessionSeal(env: NodeJS.ProcessEnv): void {
  useStateKey(stateKeyPath(env, homeDir(env)));
}

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
  /** The directory cannot be written: run in memory, say so with `unsavedBanner`. */
  | { kind: 'unsaved'; reason: string }
  | { kind: 'error'; message: string };

/**
 * Step 2 (REPL): one interactive session per directory. Where the session cannot be saved (a
 * read-only checkout, a full disk) the REPL runs in memory instead of refusing, as a one-shot
 * already does; a lock that cannot be created there is no risk, since another agentx cannot write
 * in that directory either, so nothing can interleave.
 */
export function lockSession(dir: string, acquire: (dir: string) => SessionLock = acquireSessionLock): SessionLockOutcome {
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

/** The REPL's state file in the session's directory. */
export function replStatePath(dir: string): string {
  return join(dir, STATE_FILE);
}

/** Step 3 (REPL): its state file, then one-shot leftovers of the last hour dropped silently. */
export function loadReplSession(dir: string, now: Date): LoadResult {
  const loaded = loadState(replStatePath(dir), now);
  try {
    cleanupStaleOneshots(dir, now);
  } catch {
    // An unreadable directory listing only means stale files stay; the session is unaffected.
  }
  return loaded;
}

export interface OneshotStart {
  /** Where this one-shot's isolated state lives (removed by finishOneshot when it succeeds). */
  statePath: string;
  /** The interactive session's checkpoint to branch from; null with --fresh or when unusable. */
  checkpoint: Checkpoint | null;
  /** Lines for the person, in order: what pruning removed, why the checkpoint is not used. */
  notices: string[];
}

/**
 * Step 3 (one-shot): leftovers older than a week pruned (said), then the checkpoint read. An
 * unusable checkpoint means this one-shot starts a fresh chain instead of branching from the
 * interactive session: its notice says so, or the lost context would go unexplained. `fresh`
 * (--fresh) does not read it at all.
 */
export function loadOneshotStart(dir: string, started: Date, pid: number, fresh: boolean): OneshotStart {
  const pruned = pruneOldOneshots(dir, started);
  const { checkpoint, notices } = fresh ? { checkpoint: null, notices: [] } : loadCheckpointWithNotices(dir);
  const rollback = unfinishedRollbackNotice(dir, fresh);
  return {
    statePath: oneshotStatePath(dir, pid, started),
    checkpoint,
    notices: [...(pruned === undefined ? [] : [pruned]), ...notices, ...(rollback === undefined ? [] : [rollback])],
  };
}

/**
 * A /rollback of the interactive session here that has not finished (engine/rollback.ts journals
 * it in the state file while files are restored): a REPL killed during one finishes it at its next
 * start, and until then the checkpoint is still the one from before the rollback and the files
 * may be half restored. A one-shot goes on (the restore skips files changed meanwhile) but says
 * so. The file is only searched for the key, not trusted: a forged mark adds a notice, no more.
 */
function unfinishedRollbackNotice(dir: string, fresh: boolean): string | undefined {
  let text: string;
  try {
    text = readFileSync(replStatePath(dir), 'utf8');
  } catch {
    return undefined;
  }
  if (!text.includes(`"${ROLLBACK_IN_PROGRESS_KEY}"`)) return undefined;
  const from = fresh ? 'this one-shot starts a new conversation' : 'this one-shot continues from the checkpoint before it';
  return `a /rollback of the interactive session here has not finished (stopped during it, or running now), so files may be half restored; ${from} — start agentx here to finish the rollback`;
}

/**
 * Step 4a: the project's conversation log, one per session: the store keeps tool outputs in it
 * and the engine appends and replays exchanges through it (runtime.ts). Two instances would be
 * two indexes of one file, each re-reading it whole after the other repaired or pruned it.
 * `notice` is where a repaired log is said — the front-end's channel for it: the REPL's warning
 * lines, a one-shot's `context_notice` event (a `--json` line, or stderr). A prune keeps what the
 * project's session files point at (store/log-pins.ts): this directory's, and the archived
 * sessions `/resume` offers. `options`: the prune threshold (tests make it small).
 */
export function openConversationLog(env: NodeJS.ProcessEnv, dir: string, notice: (line: string) => void, options: LogOptions = {}): ConversationLog {
  const home = homeDir(env);
  const log = new ConversationLog(conversationLogPath(env, home, dir), notice, options);
  const archiveDir = sessionArchiveDir(env, home, dir);
  log.pinWith(() => sessionFilePins(dir, archiveDir));
  return log;
}

export interface SessionStoreSetup {
  dir: string;
  path: string;
  initial: SessionState;
  /** The session's conversation log (openConversationLog), shared with the engine. */
  log: ConversationLog;
  persistence: Persistence;
  /** The REPL publishes the checkpoint one-shots branch from; a one-shot does not. */
  publishesCheckpoint: boolean;
  /** The store's warnings (the log says its own through its notice). */
  warn: (line: string) => void;
  /** The .git/info/exclude notice, if the first save had one. */
  excluded: (line: string) => void;
}

/**
 * Step 4b: the session's store. Completed tool outputs go to the session's conversation log (the
 * state file points at them); the first save adds agentx's files to .git/info/exclude. A prune of
 * the log keeps what the state in memory points at too (a session that cannot write its file).
 */
export function openSessionStore(setup: SessionStoreSetup): SessionStore {
  const store = new SessionStore({
    dir: setup.dir,
    path: setup.path,
    initial: setup.initial,
    persistence: setup.persistence,
    publishesCheckpoint: setup.publishesCheckpoint,
    warn: setup.warn,
    outputLog: setup.log,
  });
  setup.log.pinWith(() => statePins(store.state));
  store.onFirstSave = () => {
    const notice = excludeNotice(ensureGitExclude(setup.dir));
    if (notice !== undefined) setup.excluded(notice);
  };
  return store;
}

/** Step 6 (one-shot): it answered, so its isolated state is not needed for diagnosis. */
export function finishOneshot(statePath: string): void {
  // unlink, not rmSync: rmSync loads Node's recursive-removal module for one file.
  unlinkQuiet(statePath);
}
