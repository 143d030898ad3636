// Keeping the store small: pruning with the session history, and a size cap across projects.
//
// A snapshot lives as long as its ref (refs/agentx/snapshots/<id>) exists. prune() removes the
// refs no checkpoint refers to, then `git prune` drops the objects nothing refers to any more.
// Objects younger than the grace period are never dropped, so a snapshot another process is
// writing at this moment (objects written, ref not yet) survives; the newest snapshot is kept too.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObjectId, runGit, type Env, type GitContext } from './git.ts';
import { diskUsage, formatBytes, isPidAlive, randomHex, unlinkQuiet } from './fs-util.ts';
import { listSnapshotRefs, readLast, snapshotRefFile, storePaths, type StorePaths } from './store.ts';
import { acquireStoreLock } from './store-lock.ts';

export interface PruneResult {
  removed: number;
  kept: number;
}

export interface StoreSnapshot {
  id: string;
  /** Commit time, seconds since the epoch. */
  time: number;
}

function contextFor(paths: StorePaths, gitBin: string, env: Env): GitContext {
  return { gitBin, gitDir: paths.gitDir, workTree: paths.projectDir, env };
}

/** Every snapshot kept by the store, with its time. */
export async function listSnapshots(ctx: GitContext): Promise<StoreSnapshot[]> {
  const res = await runGit(ctx, ['for-each-ref', '--format=%(objectname) %(committerdate:unix)', 'refs/agentx/snapshots/']);
  return res.stdout.toString('utf8').split('\n').flatMap((line) => {
    const [id, time] = line.split(' ');
    return isObjectId(id) && time !== undefined && /^\d+$/.test(time) ? [{ id, time: Number(time) }] : [];
  });
}

function expireArg(graceMs: number): string {
  return graceMs <= 0 ? '--expire=now' : `--expire=${Math.ceil(graceMs / 1000)}.seconds.ago`;
}

/** Temp files (indexes, half-written files, a half-made store) of processes that died. */
function removeDeadTemps(paths: StorePaths): void {
  for (const name of fs.readdirSync(paths.projectDir)) {
    const pid = /(?:\.tmp|^index\.(?:empty|diff))-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !isPidAlive(Number(pid))) fs.rmSync(path.join(paths.projectDir, name), { recursive: true, force: true });
  }
}

/** Drops the snapshots, older than `graceMs`, that are neither in `keep` nor the newest one. Caller holds the lock. */
async function dropSnapshots(ctx: GitContext, paths: StorePaths, drop: ReadonlySet<string>, graceMs: number): Promise<number> {
  for (const id of drop) unlinkQuiet(snapshotRefFile(paths, id));
  await runGit(ctx, ['prune', expireArg(graceMs)]);
  removeDeadTemps(paths);
  return drop.size;
}

export async function pruneStore(ctx: GitContext, paths: StorePaths, keep: readonly string[], now: Date, graceMs: number, lockWaitMs: number): Promise<PruneResult> {
  const lock = await acquireStoreLock(paths.lockFile, lockWaitMs);
  if (!lock.ok) return { removed: 0, kept: listSnapshotRefs(paths).length };
  try {
    const keepSet = new Set(keep);
    const newest = readLast(paths)?.commit;
    if (newest !== undefined) keepSet.add(newest);
    const cutoff = (now.getTime() - graceMs) / 1000;
    const all = await listSnapshots(ctx);
    const drop = new Set(all.filter((s) => !keepSet.has(s.id) && s.time <= cutoff).map((s) => s.id));
    const removed = drop.size > 0 ? await dropSnapshots(ctx, paths, drop, graceMs) : 0;
    return { removed, kept: all.length - removed };
  } finally {
    lock.release();
  }
}

interface ProjectSnapshots {
  paths: StorePaths;
  ctx: GitContext;
  snapshots: StoreSnapshot[];
}

async function projectsOf(root: string, gitBin: string, env: Env): Promise<ProjectSnapshots[]> {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const out: ProjectSnapshots[] = [];
  for (const name of names) {
    const paths = storePaths(root, name);
    if (!fs.existsSync(path.join(paths.gitDir, 'HEAD'))) continue;
    const ctx = contextFor(paths, gitBin, env);
    out.push({ paths, ctx, snapshots: await listSnapshots(ctx).catch(() => []) });
  }
  return out;
}

export interface CapInput {
  root: string;
  capBytes: number;
  /** The current project's directory: its newest snapshot is never removed. */
  currentProjectDir: string;
  gitBin: string;
  env: Env;
  graceMs: number;
}

export interface CapResult {
  /** One line for the person, or null when the store was under its cap. */
  notice: string | null;
  bytesBefore: number;
  bytesAfter: number;
}

/** Removes the store of a project with no snapshot left: renamed away first, so it vanishes in one step. */
function removeProject(paths: StorePaths): void {
  const trash = path.join(paths.root, `.trash-${randomHex(12)}`);
  fs.renameSync(paths.projectDir, trash);
  fs.rmSync(trash, { recursive: true, force: true });
}

/**
 * Enforces the size cap across all projects, oldest snapshots first (a quarter of what is left
 * per round, then measured again). Projects being restored or pruned by another process are
 * left for later.
 */
export async function enforceCap(input: CapInput): Promise<CapResult> {
  const bytesBefore = diskUsage(input.root);
  let bytes = bytesBefore;
  let removed = 0;
  let newestRemoved = 0;
  const touchedProjects = new Set<string>();
  while (bytes > input.capBytes) {
    const projects = await projectsOf(input.root, input.gitBin, input.env);
    const candidates = projects.flatMap((p) => {
      const newest = readLast(p.paths)?.commit;
      const protect = p.paths.projectDir === input.currentProjectDir ? newest : undefined;
      return p.snapshots.filter((s) => s.id !== protect).map((s) => ({ project: p, snap: s }));
    }).sort((a, b) => a.snap.time - b.snap.time);
    if (candidates.length === 0) break;
    const batch = candidates.slice(0, Math.max(1, Math.ceil(candidates.length / 4)));
    let progressed = false;
    for (const project of new Set(batch.map((c) => c.project))) {
      const lock = await acquireStoreLock(project.paths.lockFile, 0);
      if (!lock.ok) continue;
      try {
        const drop = new Set(batch.filter((c) => c.project === project).map((c) => c.snap.id));
        removed += await dropSnapshots(project.ctx, project.paths, drop, input.graceMs);
        for (const c of batch) if (c.project === project) newestRemoved = Math.max(newestRemoved, c.snap.time);
        touchedProjects.add(project.paths.projectDir);
        progressed = true;
        if (project.paths.projectDir !== input.currentProjectDir && drop.size === project.snapshots.length) removeProject(project.paths);
      } finally {
        lock.release();
      }
    }
    if (!progressed) break;
    bytes = diskUsage(input.root);
  }
  if (removed === 0) return { notice: bytes > input.capBytes ? overCapNotice(bytes, input.capBytes) : null, bytesBefore, bytesAfter: bytes };
  const before = new Date(newestRemoved * 1000).toISOString().slice(0, 16).replace('T', ' ');
  const where = touchedProjects.size > 1 ? ` in ${touchedProjects.size} projects` : '';
  const notice = `snapshot store was ${formatBytes(bytesBefore)}, over its ${formatBytes(input.capBytes)} cap: removed the ${removed} oldest snapshot${removed === 1 ? '' : 's'}${where} (up to ${before} UTC); rolling back that far restores the conversation only`;
  return { notice, bytesBefore, bytesAfter: bytes };
}

function overCapNotice(bytes: number, cap: number): string {
  return `snapshot store is ${formatBytes(bytes)}, over its ${formatBytes(cap)} cap, and nothing more can be removed (the newest snapshot is kept)`;
}
