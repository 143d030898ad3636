// Workspace snapshots: the public API the engine and the REPL use (README, "Rollback with files").
//
//   const ws = await openWorkspaceSnapshots({ workspace: cwd, env: process.env, homeDir });
//   if (ws.notice) say(ws.notice);                  // once: git missing, home directory, /
//   say(await ws.resumeInterruptedRestore());      // at start, when non-null
//   const from = await ws.snapshot();              // before the first tool call of a turn that can write
//   const to = await ws.snapshot();                // at the end of that turn
//   checkpoint.files = { from: from.id, to: to.id };   // one span per turn
//   const plan = await ws.planRestore(spansAfterTheChosenCheckpoint);
//   formatPlan(plan) → preview; then await ws.applyRestore(plan);
//
// Without git every method is a no-op and `notice` says so.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { detectGit, isObjectId, type Env, type GitAvailability, type GitContext } from './git.ts';
import { DEFAULT_SKIP_DIRS } from './ignore-rules.ts';
import { ensureStore, projectKey, snapshotsRoot, storePaths, type StorePaths } from './store.ts';
import {
  TooManyFilesError,
  listSkippedDirectories,
  snapshotTree,
  takeSnapshot,
  type SkippedPath,
  type SnapshotConfig,
  type SnapshotResult,
} from './snapshot.ts';
import { diffSpans, diffTrees, summaryLines, unifiedDiff, unifiedDiffOfChanges, type FileChange, type Span } from './diff.ts';
import { formatPlan, planRestore, type RestorePlan } from './restore-plan.ts';
import { applyRestore, resumeRestore, type RestoreResult } from './restore-apply.ts';
import { enforceCap, pruneStore, type PruneResult } from './prune.ts';
import { acquireSharedLock } from './store-lock.ts';
import { resumeNotice } from './notices.ts';

export type { FileChange, Span, RestorePlan, RestoreResult, SnapshotResult, SkippedPath, PruneResult };
export { formatPlan, summaryLines };
export { describeSkipped, restoreSummary, restoredFilesMessage, snapshotFailedNotice } from './notices.ts';
export { RestoreLockedError } from './restore-apply.ts';
export { TooManyFilesError } from './snapshot.ts';
export { GIT_MISSING_NOTICE } from './git.ts';

export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_CAP_BYTES = 2 * 1024 ** 3;

export interface WorkspaceSnapshotsOptions {
  /** The session's start directory. */
  workspace: string;
  /** The process environment (XDG_STATE_HOME, PATH to find git). */
  env: Env;
  homeDir: string;
  gitBin?: string;
  /** Files larger than this are not snapshotted (default 5 MB). */
  maxFileBytes?: number;
  /** Size cap of all projects' stores together (default 2 GB). */
  capBytes?: number;
  /** Directory names never snapshotted (default: node_modules, build output, caches). */
  skipDirs?: readonly string[];
  /** Snapshots younger than this are never pruned: another process may not have recorded them yet (default 10 minutes). */
  graceMs?: number;
  /** How long a restore or prune waits for another process holding the store (default 30 s). */
  lockWaitMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** A snapshot adding more files than this is refused and rollback turned off (default 100,000). */
  maxNewFiles?: number;
}

export interface DiffResult {
  changes: FileChange[];
  /** `M src/a.ts` lines. */
  summary: string[];
  /** Plain unified diff (colour is the UI's job). */
  text: string;
}

export interface WorkspaceSnapshots {
  readonly available: boolean;
  /** To show once when non-null: why file rollback is unavailable. */
  readonly notice: string | null;
  /** This project's store directory (null when unavailable). */
  readonly storeDir: string | null;
  /**
   * Records the workspace now; the id goes into the checkpoint. Calls on one handle run one
   * after the other. Throws on failure (say snapshotFailedNotice(error)); after a
   * TooManyFilesError file rollback is off for this handle and later calls return null.
   */
  snapshot(): Promise<SnapshotResult | null>;
  /** What changed between two snapshots, or between a snapshot and the files now. */
  diff(from: string, to: string): Promise<DiffResult>;
  /** What the session's tool calls changed in these spans (before/after snapshot pairs, oldest first). */
  diffSpans(spans: readonly Span[]): Promise<DiffResult>;
  /** Which files a restore would write, delete or skip; writes nothing. */
  planRestore(spans: readonly Span[]): Promise<RestorePlan>;
  applyRestore(plan: RestorePlan): Promise<RestoreResult>;
  /** Finishes a restore a crash interrupted; a one-line notice, or null when there was none. */
  resumeInterruptedRestore(): Promise<string | null>;
  /** Drops snapshots not in `keepIds` (older than the grace period). */
  prune(keepIds: readonly string[]): Promise<PruneResult>;
  /** Applies the size cap across projects; a one-line notice when something was removed. */
  enforceCap(): Promise<string | null>;
}

const MAX_DIFF_BYTES = 2 * 1024 * 1024;
const availability = new Map<string, Promise<GitAvailability>>();

/** `git --version` once per executable and process. */
export function gitAvailability(gitBin: string, env: Env): Promise<GitAvailability> {
  let known = availability.get(gitBin);
  if (known === undefined) {
    known = detectGit(gitBin, env);
    availability.set(gitBin, known);
  }
  return known;
}

function disabled(notice: string): WorkspaceSnapshots {
  const emptyDiff: DiffResult = { changes: [], summary: [], text: '' };
  return {
    available: false,
    notice,
    storeDir: null,
    snapshot: () => Promise.resolve(null),
    diff: () => Promise.resolve(emptyDiff),
    diffSpans: () => Promise.resolve(emptyDiff),
    planRestore: () => Promise.resolve({ workspace: '', startSnapshot: '', actions: [], skipped: [] }),
    applyRestore: () => Promise.resolve({ restored: [], skipped: [], failed: [] }),
    resumeInterruptedRestore: () => Promise.resolve(null),
    prune: () => Promise.resolve({ removed: 0, kept: 0 }),
    enforceCap: () => Promise.resolve(null),
  };
}

function refusal(workspace: string, homeDir: string): string | null {
  if (path.dirname(workspace) === workspace) return 'file rollback is off in the filesystem root: start agentx in a project directory';
  if (homeDir !== '' && workspace === safeRealpath(homeDir)) return 'file rollback is off in your home directory: start agentx in a project directory';
  return null;
}

function safeRealpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function checkIds(...ids: string[]): void {
  for (const id of ids) if (!isObjectId(id)) throw new Error(`not a snapshot id: ${JSON.stringify(id)}`);
}

/**
 * Whether a restore of this workspace was interrupted (its journal is still there): cheap, no git,
 * for a session that otherwise would not open the store (a one-shot) and must finish it first.
 */
export function restoreInterrupted(opts: Pick<WorkspaceSnapshotsOptions, 'workspace' | 'env' | 'homeDir'>): boolean {
  const root = snapshotsRoot(opts.env, opts.homeDir);
  if (!fs.existsSync(root)) return false;
  return fs.existsSync(storePaths(root, projectKey(safeRealpath(opts.workspace))).journalFile);
}

export async function openWorkspaceSnapshots(opts: WorkspaceSnapshotsOptions): Promise<WorkspaceSnapshots> {
  const gitBin = opts.gitBin ?? 'git';
  const git = await gitAvailability(gitBin, opts.env);
  if (!git.ok) return disabled(git.notice);
  const workspace = safeRealpath(opts.workspace);
  const refused = refusal(workspace, opts.homeDir);
  if (refused !== null) return disabled(refused);
  const root = snapshotsRoot(opts.env, opts.homeDir);
  const paths = storePaths(root, projectKey(workspace));
  const ctx: GitContext = { gitBin, gitDir: paths.gitDir, workTree: workspace, env: opts.env };
  return new Store(ctx, paths, workspace, opts);
}

class Store implements WorkspaceSnapshots {
  readonly available = true;
  readonly notice = null;
  readonly storeDir: string;
  private readonly cfg: SnapshotConfig;
  private ready: Promise<void> | null = null;
  private skippedDirs: SkippedPath[] | null = null;
  /** Snapshots of this handle, one after the other: a second one reuses the first one's cache. */
  private queue: Promise<unknown> = Promise.resolve();
  private off = false;

  constructor(
    private readonly ctx: GitContext,
    private readonly paths: StorePaths,
    private readonly workspace: string,
    private readonly opts: WorkspaceSnapshotsOptions,
  ) {
    this.storeDir = paths.projectDir;
    this.cfg = {
      ctx,
      paths,
      workspace,
      maxFileBytes: opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      skipDirs: opts.skipDirs ?? DEFAULT_SKIP_DIRS,
      now: opts.now ?? (() => new Date()),
      maxNewFiles: opts.maxNewFiles ?? 100_000,
    };
  }

  private ensure(): Promise<void> {
    this.ready ??= ensureStore(this.paths, this.ctx, this.workspace).catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private get restoreDeps() {
    return { ctx: this.ctx, paths: this.paths, maxFileBytes: this.cfg.maxFileBytes, lockWaitMs: this.lockWaitMs };
  }

  /** Runs `work` sharing the store with other snapshots, never during a restore or prune. */
  private async shared<T>(work: () => Promise<T>): Promise<T> {
    await this.ensure();
    const lock = await acquireSharedLock(this.paths.lockFile, this.lockWaitMs);
    if (!lock.ok) throw new Error(`the snapshot store is busy: agentx process ${lock.pid} is restoring files or pruning`);
    try {
      return await work();
    } finally {
      lock.release();
    }
  }

  private get lockWaitMs(): number {
    return this.opts.lockWaitMs ?? 30_000;
  }

  snapshot(): Promise<SnapshotResult | null> {
    const run = this.queue
      .then(() =>
        this.off
          ? null
          : this.shared(async () => {
              // The always-skipped directories present: one extra walk, once per session.
              this.skippedDirs ??= await listSkippedDirectories(this.cfg);
              return takeSnapshot(this.cfg, this.skippedDirs);
            }),
      )
      .catch((error: unknown) => {
        if (error instanceof TooManyFilesError) this.off = true;
        throw error;
      });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async diff(from: string, to: string): Promise<DiffResult> {
    checkIds(from);
    if (to !== 'worktree') checkIds(to);
    return this.shared(async () => {
      const target = to === 'worktree' ? (await snapshotTree(this.cfg)).tree : to;
      const changes = await diffTrees(this.ctx, from, target);
      return { changes, summary: summaryLines(changes), text: await unifiedDiff(this.ctx, from, target, MAX_DIFF_BYTES) };
    });
  }

  async diffSpans(spans: readonly Span[]): Promise<DiffResult> {
    for (const s of spans) checkIds(s.from, s.to);
    return this.shared(async () => {
      const changes = await diffSpans(this.ctx, spans);
      return { changes, summary: summaryLines(changes), text: await unifiedDiffOfChanges(this.ctx, this.paths.projectDir, changes, MAX_DIFF_BYTES) };
    });
  }

  async planRestore(spans: readonly Span[]): Promise<RestorePlan> {
    for (const s of spans) checkIds(s.from, s.to);
    return this.shared(() => planRestore(this.ctx, this.paths.gitDir, this.workspace, spans, this.cfg.maxFileBytes));
  }

  async applyRestore(plan: RestorePlan): Promise<RestoreResult> {
    if (plan.workspace !== this.workspace) throw new Error('the restore plan is for another directory');
    await this.ensure();
    return applyRestore(this.restoreDeps, plan, this.cfg.now());
  }

  async resumeInterruptedRestore(): Promise<string | null> {
    if (!fs.existsSync(this.paths.journalFile)) return null;
    return resumeNotice(await resumeRestore(this.restoreDeps));
  }

  async prune(keepIds: readonly string[]): Promise<PruneResult> {
    if (!fs.existsSync(path.join(this.paths.gitDir, 'HEAD'))) return { removed: 0, kept: 0 };
    return pruneStore(this.ctx, this.paths, keepIds.filter(isObjectId), this.cfg.now(), this.opts.graceMs ?? 10 * 60_000, this.lockWaitMs);
  }

  async enforceCap(): Promise<string | null> {
    const result = await enforceCap({
      root: this.paths.root,
      capBytes: this.opts.capBytes ?? DEFAULT_CAP_BYTES,
      currentProjectDir: this.paths.projectDir,
      gitBin: this.ctx.gitBin,
      env: this.ctx.env,
      graceMs: this.opts.graceMs ?? 10 * 60_000,
    });
    return result.notice;
  }
}
