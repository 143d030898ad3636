// Carrying out a restore plan, crash-safe.
//
// The plan is journaled (restore.json in the store, written durably) before the first file is
// touched and removed after the last. Every file is replaced in one step (file-place.ts): the
// content, read from the store, goes to a temp file beside it and is renamed over it. Every
// action re-checks the file first: already the target →
// done; still what agentx recorded → apply; anything else → skipped. That makes running a
// journal again harmless, so a restore killed half-way is simply finished at the next start
// (resumeRestore), and what was already done is recognised from the files themselves.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObjectId, runGit, splitNul, type GitContext } from './git.ts';
import { BlobReader } from './blob-reader.ts';
import { placeEntry, removeDeadTemps, removeDirIfEmpty, removeEntry } from './file-place.ts';
import { errorMessage, fsyncDirectory, unlinkQuiet } from '../lib/fsutil.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { readTextOrNull } from './fs-util.ts';
import { sameEntry } from './diff.ts';
import { isUnsafePath, manualRestoreHint, type RestoreAction, type RestorePlan, type SkippedRestore } from './restore-plan.ts';
import { acquireStoreLock } from './store-lock.ts';
import type { StorePaths } from './store.ts';
import { entryInWorkspace, isDirectoryEntry } from './worktree-state.ts';

export interface RestoreDeps {
  ctx: GitContext;
  paths: StorePaths;
  maxFileBytes: number;
  /** How long to wait for another process holding the store lock. */
  lockWaitMs: number;
}

export interface RestoreResult {
  restored: RestoreAction[];
  skipped: SkippedRestore[];
  failed: Array<{ path: string; error: string }>;
}

interface Journal {
  version: 1;
  pid: number;
  startedAt: string;
  workspace: string;
  startSnapshot: string;
  actions: RestoreAction[];
}

export class RestoreLockedError extends Error {
  constructor(readonly pid: number) {
    super(`another agentx process${pid > 0 ? ` (pid ${pid})` : ''} is restoring or pruning this workspace's snapshots; try again when it is done`);
    this.name = 'RestoreLockedError';
  }
}

async function withLock<T>(deps: RestoreDeps, work: () => Promise<T>): Promise<T> {
  const lock = await acquireStoreLock(deps.paths.lockFile, deps.lockWaitMs);
  if (!lock.ok) throw new RestoreLockedError(lock.pid);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** Writes the plan's files. Throws RestoreLockedError when another process holds the store. */
export function applyRestore(deps: RestoreDeps, plan: RestorePlan, now: Date): Promise<RestoreResult> {
  if (plan.actions.length === 0) return Promise.resolve({ restored: [], skipped: [...plan.skipped], failed: [] });
  return withLock(deps, async () => {
    const journal: Journal = {
      version: 1,
      pid: process.pid,
      startedAt: now.toISOString(),
      workspace: plan.workspace,
      startSnapshot: plan.startSnapshot,
      actions: plan.actions,
    };
    writeFileAtomicSync(deps.paths.journalFile, `${JSON.stringify(journal)}\n`);
    const result = await execute(deps, journal);
    finishJournal(deps.paths);
    return { ...result, skipped: [...plan.skipped, ...result.skipped] };
  });
}

function finishJournal(paths: StorePaths): void {
  unlinkQuiet(paths.journalFile);
  fsyncDirectory(path.dirname(paths.journalFile));
}

export type ResumeOutcome = { kind: 'none' } | { kind: 'finished'; startedAt: string; result: RestoreResult } | { kind: 'unreadable'; reason: string };

function parseJournal(text: string): Journal | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const j: Partial<Record<keyof Journal, unknown>> = value;
  if (j.version !== 1 || typeof j.workspace !== 'string' || !isObjectId(j.startSnapshot) || typeof j.startedAt !== 'string') return null;
  if (!Array.isArray(j.actions) || !j.actions.every(isActionLike)) return null;
  return {
    version: 1,
    pid: typeof j.pid === 'number' ? j.pid : 0,
    startedAt: j.startedAt,
    workspace: j.workspace,
    startSnapshot: j.startSnapshot,
    actions: j.actions,
  };
}

function isEntryLike(x: unknown): boolean {
  if (x === null) return true;
  if (typeof x !== 'object') return false;
  const e: Record<string, unknown> = { ...x };
  return typeof e.mode === 'string' && /^(100644|100755|120000)$/.test(e.mode) && typeof e.id === 'string' && /^[0-9a-f]{40}$/.test(e.id);
}

function isActionLike(x: unknown): x is RestoreAction {
  if (typeof x !== 'object' || x === null) return false;
  const a: Record<string, unknown> = { ...x };
  return (
    typeof a.path === 'string' &&
    !isUnsafePath(a.path) &&
    (a.change === 'A' || a.change === 'M' || a.change === 'D') &&
    isEntryLike(a.target) &&
    isEntryLike(a.expected)
  );
}

/**
 * Finishes a restore that was interrupted (killed, crashed, power cut). Call once at start,
 * before the first snapshot. Waits for a live process that is still restoring.
 */
export async function resumeRestore(deps: RestoreDeps): Promise<ResumeOutcome> {
  if (!fs.existsSync(deps.paths.journalFile)) return { kind: 'none' };
  return withLock(deps, async () => {
    const text = readTextOrNull(deps.paths.journalFile);
    if (text === null) return { kind: 'none' };
    const journal = parseJournal(text);
    if (journal === null || journal.workspace !== deps.ctx.workTree) {
      finishJournal(deps.paths);
      return { kind: 'unreadable', reason: journal === null ? 'the restore journal is damaged' : 'the restore journal is for another directory' };
    }
    removeDeadTemps(
      journal.workspace,
      journal.actions.map((a) => a.path),
    );
    const result = await execute(deps, journal);
    finishJournal(deps.paths);
    return { kind: 'finished', startedAt: journal.startedAt, result };
  });
}

/** Sorts actions by what the files hold now: done, to do, or changed by someone else. */
function triage(deps: RestoreDeps, ws: string, actions: readonly RestoreAction[], result: RestoreResult): RestoreAction[] {
  const todo: RestoreAction[] = [];
  for (const action of actions) {
    const { blocked, entry: current } = entryInWorkspace(ws, action.path, deps.maxFileBytes);
    if (!blocked && sameEntry(current, action.target)) result.restored.push(action);
    else if (!blocked && sameEntry(current, action.expected)) todo.push(action);
    else {
      const reason = blocked
        ? 'a parent directory is now a symlink or a file'
        : isDirectoryEntry(current)
          ? 'is a directory that still holds other files'
          : 'changed during the restore: not overwritten';
      result.skipped.push({ path: action.path, change: action.change, reason, hint: manualRestoreHint(deps.paths.gitDir, action.path, action.target) });
    }
  }
  return todo;
}

async function execute(deps: RestoreDeps, journal: Journal): Promise<RestoreResult> {
  const ws = journal.workspace;
  const result: RestoreResult = { restored: [], skipped: [], failed: [] };
  // Deletes first (deepest first), so a file can take the place of a directory or symlink that goes.
  const deletes = triage(
    deps,
    ws,
    journal.actions.filter((a) => a.target === null),
    result,
  ).sort((a, b) => depth(b.path) - depth(a.path));
  for (const a of deletes) {
    try {
      removeEntry(ws, a.path);
      result.restored.push(a);
    } catch (error) {
      result.failed.push({ path: a.path, error: errorMessage(error) });
    }
  }
  // Also for deletes an interrupted run already made: its directories may not be removed yet.
  const deleted = result.restored.filter((a) => a.target === null).map((a) => a.path);
  if (deleted.length > 0) await removeEmptiedDirs(deps.ctx, ws, journal.startSnapshot, deleted);
  const writes = triage(
    deps,
    ws,
    journal.actions.filter((a) => a.target !== null),
    result,
  );
  if (writes.length > 0) await applyWrites(deps.ctx, ws, writes, result);
  return result;
}

function depth(rel: string): number {
  return rel.split('/').length;
}

/** Directories emptied by the deletes that did not exist before the session: removed. */
async function removeEmptiedDirs(ctx: GitContext, ws: string, startSnapshot: string, deleted: readonly string[]): Promise<void> {
  const listed = await runGit(ctx, ['ls-tree', '-r', '-d', '-z', '--name-only', startSnapshot], { okCodes: [0, 128] });
  const keep = new Set(splitNul(listed.stdout));
  const candidates = new Set<string>();
  for (const rel of deleted) {
    for (let dir = path.posix.dirname(rel); dir !== '.'; dir = path.posix.dirname(dir)) candidates.add(dir);
  }
  for (const dir of [...candidates].sort((a, b) => depth(b) - depth(a))) {
    if (!keep.has(dir)) removeDirIfEmpty(ws, dir);
  }
}

async function applyWrites(ctx: GitContext, ws: string, writes: readonly RestoreAction[], result: RestoreResult): Promise<void> {
  const blobs = new BlobReader(ctx);
  try {
    for (const a of writes) {
      try {
        if (a.target === null) throw new Error('nothing to write');
        await placeEntry(ws, a.path, a.target, blobs);
        result.restored.push(a);
      } catch (error) {
        result.failed.push({ path: a.path, error: errorMessage(error) });
      }
    }
  } finally {
    blobs.close();
  }
}
