// Taking a snapshot: the workspace's files as one git tree in the private store.
//
// Each snapshot works on its own temporary index, seeded with a copy of the shared cached
// index (a stat cache: files whose size and times did not change are not read again), and
// replaces the cache by an atomic rename when done. Two processes snapshotting at once each
// write a complete index of their own; whichever rename comes last wins, and both are valid.
//
//   ls-files -o -m -d      what is new, changed or gone since the cache (one walk of the tree)
//   update-index           hashes just those files into the store
//   write-tree             the tree (unchanged subtrees come from the index's cache-tree)
//   commit-tree            a commit, so the snapshot has a time; kept by refs/agentx/snapshots/<id>

import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitError, joinNul, runGit, splitNul, type GitContext } from './git.ts';
import { randomHex, unlinkQuiet } from '../lib/fsutil.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { lstatOrNull, readTextOrNull } from './fs-util.ts';
import { buildExcludeText, isSkipDir } from './ignore-rules.ts';
import { hasSnapshotRef, readLast, writeLast, writeSnapshotRef, type StorePaths } from './store.ts';

export interface SnapshotConfig {
  ctx: GitContext;
  paths: StorePaths;
  /** The workspace's real path. */
  workspace: string;
  /** Files larger than this are left out (and reported). */
  maxFileBytes: number;
  skipDirs: readonly string[];
  /** The clock (snapshot times order the size cap's removals). */
  now: () => Date;
  /** More new files than this in one snapshot: refused (a huge tree, not a project). */
  maxNewFiles: number;
}

export class TooManyFilesError extends Error {
  constructor(readonly count: number) {
    super(`${count.toLocaleString('en')} new files, more than file rollback handles: add generated or vendored directories to .gitignore`);
    this.name = 'TooManyFilesError';
  }
}

export type SkipReason = 'too-large' | 'skipped-directory' | 'nested-repository';

export interface SkippedPath {
  /** Relative to the workspace, '/'-separated; directories end with '/'. */
  path: string;
  reason: SkipReason;
  /** The file's size, for 'too-large'. */
  bytes?: number;
}

export interface SnapshotResult {
  /** The snapshot id (a commit in the store); what checkpoints record. */
  id: string;
  /** Its tree: equal trees mean identical workspace content. */
  tree: string;
  skipped: SkippedPath[];
}

interface TreeResult {
  tree: string;
  skipped: SkippedPath[];
}

function writeExcludeIfChanged(cfg: SnapshotConfig): void {
  const file = path.join(cfg.paths.gitDir, 'info', 'exclude');
  const text = buildExcludeText({ workspace: cfg.workspace, storeRoot: cfg.paths.root, skipDirs: cfg.skipDirs });
  if (readTextOrNull(file) === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, text, 0o600, { durable: false });
}

/**
 * A private copy of the cached index. The copy keeps the cache's mtime: git trusts an entry's
 * stat data only if the file is older than the index ("racy git"), so a copy with a newer time
 * would hide a change made in the same second the cache was written.
 */
function seedIndex(cfg: SnapshotConfig, tmpIndex: string): boolean {
  const cache = lstatOrNull(cfg.paths.cacheIndex);
  if (cache === null || !cache.isFile()) return false;
  try {
    fs.copyFileSync(cfg.paths.cacheIndex, tmpIndex);
    fs.utimesSync(tmpIndex, cache.atime, cache.mtime);
    return true;
  } catch {
    unlinkQuiet(tmpIndex);
    return false;
  }
}

interface Classified {
  update: string[];
  remove: string[];
  skipped: SkippedPath[];
}

/** Sorts git's candidate paths by what is on disk now. */
function classify(cfg: SnapshotConfig, candidates: Iterable<string>): Classified {
  const out: Classified = { update: [], remove: [], skipped: [] };
  for (const rel of candidates) {
    if (rel.endsWith('/')) {
      out.skipped.push({ path: rel, reason: 'nested-repository' });
      continue;
    }
    const st = lstatOrNull(path.join(cfg.workspace, rel));
    if (st === null) out.remove.push(rel);
    else if (st.isSymbolicLink()) out.update.push(rel);
    else if (!st.isFile())
      out.remove.push(rel); // now a directory (its files are listed themselves), a fifo, a socket
    else if (st.size > cfg.maxFileBytes) {
      out.remove.push(rel);
      out.skipped.push({ path: rel, reason: 'too-large', bytes: st.size });
    } else out.update.push(rel);
  }
  return out;
}

async function buildTree(cfg: SnapshotConfig, indexFile: string): Promise<TreeResult> {
  const listed = await runGit(cfg.ctx, ['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard'], { indexFile });
  const { update, remove, skipped } = classify(cfg, new Set(splitNul(listed.stdout)));
  if (update.length > cfg.maxNewFiles) throw new TooManyFilesError(update.length);
  if (remove.length > 0) await runGit(cfg.ctx, ['update-index', '-z', '--force-remove', '--stdin'], { indexFile, input: joinNul(remove) });
  // --remove: a file deleted since ls-files looked is dropped instead of failing the snapshot.
  if (update.length > 0) await runGit(cfg.ctx, ['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], { indexFile, input: joinNul(update) });
  const tree = (await runGit(cfg.ctx, ['write-tree'], { indexFile })).stdout.toString('utf8').trim();
  return { tree, skipped };
}

/** The always-skipped directories present in the workspace (one extra walk; done once per session). */
export async function listSkippedDirectories(cfg: SnapshotConfig): Promise<SkippedPath[]> {
  writeExcludeIfChanged(cfg);
  const emptyIndex = path.join(cfg.paths.projectDir, `index.empty-${process.pid}-${randomHex(8)}`);
  try {
    const res = await runGit(cfg.ctx, ['ls-files', '-z', '--others', '--ignored', '--directory', '--exclude-standard'], {
      indexFile: emptyIndex,
      throwawayIndex: true,
    });
    return splitNul(res.stdout)
      .filter((entry) => isSkipDir(entry, cfg.skipDirs))
      .map((entry) => ({ path: entry, reason: 'skipped-directory' as const }));
  } finally {
    unlinkQuiet(emptyIndex);
  }
}

/**
 * The workspace's current tree, written to the store, with the stat cache updated. A cache that
 * git cannot use (its shared index expired, objects it names are gone) makes git fail: the tree
 * is then rebuilt from scratch.
 */
export async function snapshotTree(cfg: SnapshotConfig): Promise<TreeResult> {
  writeExcludeIfChanged(cfg);
  const tmpIndex = path.join(cfg.paths.projectDir, `index.tmp-${process.pid}-${randomHex(8)}`);
  try {
    let result: TreeResult;
    const seeded = seedIndex(cfg, tmpIndex);
    try {
      result = await buildTree(cfg, tmpIndex);
    } catch (error) {
      if (!seeded || !(error instanceof GitError)) throw error;
      // A cache whose shared index or objects are gone: start from nothing (every file is hashed again).
      unlinkQuiet(tmpIndex);
      result = await buildTree(cfg, tmpIndex);
    }
    fs.renameSync(tmpIndex, cfg.paths.cacheIndex);
    return result;
  } finally {
    unlinkQuiet(tmpIndex);
  }
}

function commitMessage(workspace: string, skipped: readonly SkippedPath[]): string {
  const lines = ['agentx snapshot', '', `workspace: ${workspace}`];
  if (skipped.length > 0) {
    lines.push(`not snapshotted: ${skipped.length}`);
    for (const s of skipped.slice(0, 50)) lines.push(`  ${s.path} (${s.reason}${s.bytes === undefined ? '' : `, ${s.bytes} bytes`})`);
    if (skipped.length > 50) lines.push(`  … and ${skipped.length - 50} more`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Takes a snapshot and keeps it (a ref in the store). When the tree is the same as the newest
 * snapshot's, that snapshot's id is returned again: a turn that changed nothing costs nothing.
 */
export async function takeSnapshot(cfg: SnapshotConfig, extraSkipped: readonly SkippedPath[] = []): Promise<SnapshotResult> {
  const { tree, skipped: found } = await snapshotTree(cfg);
  const skipped = [...extraSkipped, ...found];
  const last = readLast(cfg.paths);
  if (last !== null && last.tree === tree && hasSnapshotRef(cfg.paths, last.commit)) return { id: last.commit, tree, skipped };
  const committed = await runGit(cfg.ctx, ['commit-tree', tree, '-F', '-'], { input: commitMessage(cfg.workspace, skipped), date: cfg.now() });
  const id = committed.stdout.toString('utf8').trim();
  writeSnapshotRef(cfg.paths, id);
  writeLast(cfg.paths, { commit: id, tree });
  return { id, tree, skipped };
}
