// Workspace snapshots for a session (REPL and one-shot): the library (src/workspace/) is loaded
// lazily and opened in the background, so `agentx --version` and the first prompt do not wait for
// it; the engine gets a WorkspaceFiles that waits for it when a turn first needs it. Failures are
// said once and the session goes on without file rollback for that turn.
import type { SnapshotSettings } from '../config/snapshots.ts';
import type { WorkspaceFiles } from '../engine/files.ts';
import { existsSync } from 'node:fs';
import { errorMessage } from '../lib/fsutil.ts';
import { snapshotsRoot } from '../paths.ts';
import type { DiffResult, RestorePlan, RestoreResult, WorkspaceSnapshots } from '../workspace/index.ts';

export interface SnapshotSessionOptions {
  /** The session's start directory (the workspace). */
  dir: string;
  env: NodeJS.ProcessEnv;
  homeDir: string;
  /** The AGENTX_SNAPSHOT* settings, resolved with the rest of the configuration (config.ts). */
  settings: SnapshotSettings;
  /** One line for the person (notices, failures). */
  say(line: string): void;
  /**
   * Open the store only when first needed (a one-shot: most ask no tool that writes, and opening
   * costs a `git` start and the workspace library; the REPL: once its prompt is drawn, through
   * startBackgroundUpkeep); otherwise in the background at once.
   */
  lazy?: boolean;
}

export interface SnapshotSession {
  /** Resolves to the opened store, or null when file rollback is off or unavailable (opens it if lazy). */
  readonly ready: Promise<WorkspaceSnapshots | null>;
  /** What the engine uses; every call waits for `ready`. */
  readonly files: WorkspaceFiles;
  readonly settings: SnapshotSettings;
}

const EMPTY_DIFF: DiffResult = { changes: [], summary: [], text: '' };

/**
 * A session that opens the store lazily (a one-shot) finishes a restore that a killed session left
 * half done before its turn starts, so the model never reads a half-restored tree. Cheap when
 * there is nothing to finish: no snapshot store at all, or no journal in this project's.
 */
export async function finishInterruptedRestore(opts: SnapshotSessionOptions): Promise<void> {
  if (!opts.settings.enabled || !existsSync(snapshotsRoot(opts.env, opts.homeDir))) return;
  const { restoreInterrupted } = await import('../workspace/index.ts');
  if (!restoreInterrupted({ workspace: opts.dir, env: opts.env, homeDir: opts.homeDir })) return;
  // Opening the store finishes the restore and says so (open() below).
  await startSnapshotSession({ ...opts, lazy: false })?.ready;
}

/** Null when AGENTX_SNAPSHOTS=off (a bad setting was already refused by resolveConfig). */
export function startSnapshotSession(opts: SnapshotSessionOptions): SnapshotSession | null {
  const settings = opts.settings;
  if (!settings.enabled) return null;
  let opening: Promise<WorkspaceSnapshots | null> | undefined;
  const opened = (): Promise<WorkspaceSnapshots | null> => (opening ??= open(opts, settings));
  if (opts.lazy !== true) void opened();
  let failureSaid = false;
  let skippedSaid = false;
  const files: WorkspaceFiles = {
    async snapshot() {
      const ws = await opened();
      if (ws === null) return null;
      try {
        const result = await ws.snapshot();
        if (result !== null && !skippedSaid) {
          skippedSaid = true;
          const { describeSkipped } = await import('../workspace/index.ts');
          const line = describeSkipped(result.skipped, settings.maxFileBytes);
          if (line !== null) opts.say(line);
        }
        return result;
      } catch (err) {
        if (!failureSaid) {
          failureSaid = true;
          const { snapshotFailedNotice } = await import('../workspace/index.ts');
          opts.say(snapshotFailedNotice(err));
        }
        return null;
      }
    },
    async diffSpans(spans) {
      const ws = await opened();
      return ws === null ? EMPTY_DIFF : ws.diffSpans(spans);
    },
    async planRestore(spans): Promise<RestorePlan> {
      const ws = await opened();
      return ws === null ? { workspace: '', startSnapshot: '', actions: [], skipped: [] } : ws.planRestore(spans);
    },
    async applyRestore(plan): Promise<RestoreResult> {
      const ws = await opened();
      return ws === null ? { restored: [], skipped: [], failed: [] } : ws.applyRestore(plan);
    },
  };
  return {
    get ready() {
      return opened();
    },
    files,
    settings,
  };
}

async function open(opts: SnapshotSessionOptions, settings: SnapshotSettings): Promise<WorkspaceSnapshots | null> {
  try {
    const { openWorkspaceSnapshots } = await import('../workspace/index.ts');
    const ws = await openWorkspaceSnapshots({
      workspace: opts.dir,
      env: opts.env,
      homeDir: opts.homeDir,
      maxFileBytes: settings.maxFileBytes,
      capBytes: settings.storeMaxBytes,
    });
    if (ws.notice !== null) opts.say(ws.notice);
    if (!ws.available) return null;
    const resumed = await ws.resumeInterruptedRestore();
    if (resumed !== null) opts.say(resumed);
    return ws;
  } catch (err) {
    opts.say(`file rollback is unavailable: ${errorMessage(err)}`);
    return null;
  }
}

/**
 * REPL only, in the background: the first snapshot (slow: it reads every file once, later ones
 * read only what changed), the size cap across projects, and pruning of what nothing refers to.
 */
export function startBackgroundUpkeep(session: SnapshotSession, keepIds: () => readonly string[], say: (line: string) => void): Promise<void> {
  return (async () => {
    await session.files.snapshot();
    const ws = await session.ready;
    if (ws === null) return;
    try {
      const notice = await ws.enforceCap();
      if (notice !== null) say(notice);
      await ws.prune(keepIds());
    } catch (err) {
      say(`snapshot store upkeep failed: ${errorMessage(err)}`);
    }
  })();
}

/** Drops snapshots nothing refers to any more (after history lost its oldest entries). */
export async function pruneSnapshots(session: SnapshotSession, keepIds: readonly string[], say: (line: string) => void): Promise<void> {
  const ws = await session.ready;
  if (ws === null) return;
  try {
    await ws.prune(keepIds);
  } catch (err) {
    say(`snapshot store upkeep failed: ${errorMessage(err)}`);
  }
}
