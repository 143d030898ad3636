// Keeping the store small: pruning with the session history, and a size cap across projects.
//
// A snapshot lives as long as its ref (refs/agentx/snapshots/<id>) exists. prune() removes the
// refs no checkpoint refers to, then `git prune` drops the objects nothing refers to any more.
// Objects younger than the grace period are never dropped, so a snapshot another process is
// writing at this moment (objects written, ref not yet) survives; the newest snapshot is kept too.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObjectId, runGit, type Env, type GitContext } from './git.ts';
import { isPidAlive, randomHex, unlinkQuiet } from '../lib/fsutil.ts';
import { formatBytes } from '../lib/text.ts';
import { diskUsage } from './fs-util.ts';
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
  return res.stdout
    .toString('utf8')
    .split('\n')
    .flatMap((line) => {
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

/** Loose objects take at least a disk block each: packed once there are this many. */
const LOOSE_OBJECTS_TO_PACK = 1000;
/** This many packs are merged into one, which also drops what no snapshot refers to any more. */
const PACKS_TO_MERGE = 8;

function countIn(dir: string, keep: (name: string) => boolean): number {
  try {
    return fs.readdirSync(dir).filter(keep).length;
  } catch {
    return 0;
  }
}

function looseObjects(paths: StorePaths): number {
  const objects = path.join(paths.gitDir, 'objects');
  let n = 0;
  for (const dir of fs.readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(dir)) n += countIn(path.join(objects, dir), () => true);
  return n;
}

/**
 * Keeps the store compact (caller holds the lock): many loose objects go into a pack; many
 * packs, or `full` (the size cap), are merged into one holding only what snapshots refer to.
 */
async function compact(ctx: GitContext, paths: StorePaths, full: boolean): Promise<void> {
  if (full || countIn(path.join(paths.gitDir, 'objects', 'pack'), (n) => n.endsWith('.pack')) >= PACKS_TO_MERGE) {
    await runGit(ctx, ['repack', '-a', '-d', '-q']);
  } else if (looseObjects(paths) >= LOOSE_OBJECTS_TO_PACK) {
    await runGit(ctx, ['repack', '-d', '-q']);
  }
}

/** Drops the given snapshots and what only they referred to. Caller holds the lock. */
async function dropSnapshots(ctx: GitContext, paths: StorePaths, drop: ReadonlySet<string>, graceMs: number, full: boolean): Promise<number> {
  for (const id of drop) unlinkQuiet(snapshotRefFile(paths, id));
  if (drop.size > 0) await runGit(ctx, ['prune', expireArg(graceMs)]);
  await compact(ctx, paths, full && drop.size > 0);
  removeDeadTemps(paths);
  return drop.size;
}

export async function pruneStore(
  ctx: GitContext,
  paths: StorePaths,
  keep: readonly string[],
  now: Date,
  graceMs: number,
  lockWaitMs: number,
): Promise<PruneResult> {
  const lock = await acquireStoreLock(paths.lockFile, lockWaitMs);
  if (!lock.ok) return { removed: 0, kept: listSnapshotRefs(paths).length };
  try {
    const keepSet = new Set(keep);
    const newest = readLast(paths)?.commit;
    if (newest !== undefined) keepSet.add(newest);
    const cutoff = (now.getTime() - graceMs) / 1000;
    const all = await listSnapshots(ctx);
    const drop = new Set(all.filter((s) => !keepSet.has(s.id) && s.time <= cutoff).map((s) => s.id));
    const removed = await dropSnapshots(ctx, paths, drop, graceMs, false);
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
    const candidates = projects
      .flatMap((p) => {
        const newest = readLast(p.paths)?.commit;
        const protect = p.paths.projectDir === input.currentProjectDir ? newest : undefined;
        return p.snapshots.filter((s) => s.id !== protect).map((s) => ({ project: p, snap: s }));
      })
      .sort((a, b) => a.snap.time - b.snap.time);
    if (candidates.length === 0) break;
    const batch = candidates.slice(0, Math.max(1, Math.ceil(candidates.length / 4)));
    let progressed = false;
    for (const project of new Set(batch.map((c) => c.project))) {
      const lock = await acquireStoreLock(project.paths.lockFile, 0);
      if (!lock.ok) continue;
      try {
        const drop = new Set(batch.filter((c) => c.project === project).map((c) => c.snap.id));
        removed += await dropSnapshots(project.ctx, project.paths, drop, input.graceMs, true);
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
