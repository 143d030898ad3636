// Where the private snapshot stores live and how one is created.
//
//   $XDG_STATE_HOME/agentx/snapshots/          (default ~/.local/state/agentx/snapshots/)
//     <name>-<hash of the workspace path>/
//       git/             bare object store (objects, refs/agentx/snapshots/<id>, info/exclude)
//       workspace        the workspace's real path, for notices and the size cap
//       index.cache      the shared stat cache (a git index), replaced atomically
//       last             "<commit> <tree>" of the newest snapshot, to reuse an unchanged one
//       lock             the store lock (prune, cap, restore)
//       restore.json     the journal of a restore in progress

import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGit, type GitContext } from './git.ts';
import { randomHex } from '../lib/fsutil.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { readTextOrNull } from './fs-util.ts';

export interface StorePaths {
  /** All projects' stores. */
  root: string;
  /** This project's directory. */
  projectDir: string;
  gitDir: string;
  cacheIndex: string;
  lastFile: string;
  lockFile: string;
  journalFile: string;
  workspaceFile: string;
}

export { snapshotsRoot } from '../paths.ts';
import { projectName } from '../paths.ts';

/** A readable, collision-free directory name for a workspace's real path (paths.ts: one spelling for every store). */
export const projectKey = projectName;

export function storePaths(root: string, key: string): StorePaths {
  const projectDir = path.join(root, key);
  return {
    root,
    projectDir,
    gitDir: path.join(projectDir, 'git'),
    cacheIndex: path.join(projectDir, 'index.cache'),
    lastFile: path.join(projectDir, 'last'),
    lockFile: path.join(projectDir, 'lock'),
    journalFile: path.join(projectDir, 'restore.json'),
    workspaceFile: path.join(projectDir, 'workspace'),
  };
}

/**
 * Content and line endings are stored byte for byte: no eol conversion, clean/smudge filter,
 * ident expansion or encoding from the workspace's .gitattributes. info/attributes outranks
 * every .gitattributes file.
 */
const STORE_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

/**
 * `git init` into a private temp directory, then one rename into place: two processes creating
 * the store at once each build their own, and the loser's rename fails harmlessly.
 */
async function createStore(paths: StorePaths, ctx: GitContext): Promise<void> {
  fs.mkdirSync(paths.projectDir, { recursive: true, mode: 0o700 });
  const tmp = `${paths.gitDir}.tmp-${process.pid}-${randomHex(8)}`;
  try {
    await runGit({ ...ctx, workTree: paths.projectDir }, ['init', '--quiet', '--bare', '--object-format=sha1', tmp], { bare: true });
    fs.renameSync(tmp, paths.gitDir);
  } catch (error) {
    if (!fs.existsSync(path.join(paths.gitDir, 'HEAD'))) throw error;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Creates the bare store if needed. Safe when several processes do it at once. */
export async function ensureStore(paths: StorePaths, ctx: GitContext, workspace: string): Promise<void> {
  if (!fs.existsSync(path.join(paths.gitDir, 'HEAD'))) await createStore(paths, ctx);
  const attributes = path.join(paths.gitDir, 'info', 'attributes');
  if (readTextOrNull(attributes) !== STORE_ATTRIBUTES) {
    fs.mkdirSync(path.dirname(attributes), { recursive: true });
    writeFileAtomicSync(attributes, STORE_ATTRIBUTES, 0o600, { durable: false });
  }
  if (readTextOrNull(paths.workspaceFile) !== `${workspace}\n`) writeFileAtomicSync(paths.workspaceFile, `${workspace}\n`, 0o600, { durable: false });
}

/** The ref that keeps a snapshot alive: one loose ref file per snapshot (refs are never packed). */
export function snapshotRefFile(paths: StorePaths, id: string): string {
  return path.join(paths.gitDir, 'refs', 'agentx', 'snapshots', id);
}

export function writeSnapshotRef(paths: StorePaths, id: string): void {
  const file = snapshotRefFile(paths, id);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, `${id}\n`, 0o600, { durable: false });
}

export function hasSnapshotRef(paths: StorePaths, id: string): boolean {
  return fs.existsSync(snapshotRefFile(paths, id));
}

/** Ids of every snapshot this store keeps. */
export function listSnapshotRefs(paths: StorePaths): string[] {
  try {
    return fs.readdirSync(path.join(paths.gitDir, 'refs', 'agentx', 'snapshots')).filter((n) => /^[0-9a-f]{40,64}$/.test(n));
  } catch {
    return [];
  }
}

export interface LastSnapshot {
  commit: string;
  tree: string;
}

export function readLast(paths: StorePaths): LastSnapshot | null {
  const [commit, tree] = (readTextOrNull(paths.lastFile) ?? '').trim().split(' ');
  if (commit === undefined || tree === undefined || !/^[0-9a-f]{40,64}$/.test(commit) || !/^[0-9a-f]{40,64}$/.test(tree)) return null;
  return { commit, tree };
}

export function writeLast(paths: StorePaths, last: LastSnapshot): void {
  writeFileAtomicSync(paths.lastFile, `${last.commit} ${last.tree}\n`, 0o600, { durable: false });
}
