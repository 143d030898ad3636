// Keeping agentx's state files out of `git status` (README "Session state files"). On the first save in
// a git repository, the patterns go into the repository's own `.git/info/exclude` (never into
// the person's `.gitignore`, which is shared and reviewed), once: a marker line records that it
// was done, so deleting the patterns but keeping the marker opts out for good.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UnsafePathError, withParent } from '../lib/dir-walk.ts';

export const EXCLUDE_MARKER = '# agentx session state (added once by agentx; keep this line to stop it re-adding)';
/** Bare names match at any depth, so a session in a subdirectory is covered too. */
export const EXCLUDE_PATTERNS = ['.agentx_responseid*', '.agentx_checkpoint*'];

export type ExcludeResult = { kind: 'added'; excludePath: string } | { kind: 'present' } | { kind: 'not_a_repository' } | { kind: 'failed'; reason: string };

function readIfFile(p: string): string | undefined {
  try {
    return fs.lstatSync(p).isFile() ? fs.readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function realOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

function within(p: string, root: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Whether git itself made `gitDir` for the working tree at `tree`: a linked worktree's git dir
 * names its `.git` file in `gitdir`, a submodule's names its tree in `core.worktree`. A command
 * that plants `.git` (gitdir: /elsewhere) cannot write that back-pointer outside the workspace.
 */
function pointsBack(gitDir: string, tree: string): boolean {
  const back = readIfFile(path.join(gitDir, 'gitdir'))?.trim();
  if (back && realOrUndefined(path.resolve(gitDir, back)) === realOrUndefined(path.join(tree, '.git'))) return true;
  const worktree = /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(readIfFile(path.join(gitDir, 'config')) ?? '')?.[1];
  return worktree !== undefined && realOrUndefined(path.resolve(gitDir, worktree)) === realOrUndefined(tree);
}

/**
 * Whether anyone may create entries in `dir` (world-writable, or sticky like /tmp): a `.git`
 * found there, above the workspace, may be another user's or a command's plant — a command in a
 * workspace under the temp dir can write the temp dir itself.
 */
function openToAll(dir: string): boolean {
  try {
    const mode = fs.statSync(dir).mode;
    return (mode & 0o002) !== 0 || (mode & 0o1000) !== 0;
  } catch {
    return true;
  }
}

/**
 * The directory holding `info/exclude` for the repository containing `dir`: `.git` itself, or
 * for a linked worktree or submodule (`.git` is a file saying `gitdir: …`) the common git dir.
 *
 * Files inside the workspace (`dir`) may have been written by a command, so a redirection they
 * make (a `.git` file, a `commondir`) is followed out of the workspace only when git's own
 * back-pointer confirms it (issue 23 §6: a planted gitlink made agentx write anywhere).
 * undefined: no repository, or one agentx must not touch.
 */
export function findGitCommonDir(dir: string): string | undefined {
  const workspace = realOrUndefined(dir) ?? path.resolve(dir);
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    let gitDir: string | undefined;
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(dotGit);
    } catch {
      // No .git here: look one level up.
    }
    if (st?.isDirectory()) gitDir = realOrUndefined(dotGit);
    else if (st?.isFile()) {
      const line = /^gitdir:\s*(.+?)\s*$/m.exec(readIfFile(dotGit) ?? '')?.[1];
      const target = line === undefined ? undefined : realOrUndefined(path.resolve(at, line));
      if (target === undefined) return undefined;
      if (!within(target, workspace) && !pointsBack(target, at)) return undefined;
      gitDir = target;
    }
    if (st !== undefined && (st.isDirectory() || st.isFile())) {
      if (gitDir === undefined) return undefined;
      // Above the workspace, in a directory open to all: not a repository agentx may write to.
      if (!within(at, workspace) && openToAll(at)) return undefined;
      const common = readIfFile(path.join(gitDir, 'commondir'))?.trim();
      if (!common) return gitDir;
      const commonDir = realOrUndefined(path.resolve(gitDir, common));
      // A commondir inside the workspace (or a directory open to all) is as plantable as a .git file.
      if (commonDir === undefined || ((within(gitDir, workspace) || openToAll(path.dirname(gitDir))) && !within(commonDir, workspace))) return undefined;
      return commonDir;
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** Adds the patterns to the repository's info/exclude unless the marker is already there. Never throws. */
export function ensureGitExclude(dir: string): ExcludeResult {
  const gitDir = findGitCommonDir(dir);
  if (gitDir === undefined) return { kind: 'not_a_repository' };
  const excludePath = path.join(gitDir, 'info', 'exclude');
  try {
    // Through the opened git dir, one component at a time, never following a link (lib/dir-walk.ts):
    // `info` or `exclude` swapped for a link meanwhile would carry the write elsewhere.
    return withParent(gitDir, 'info/exclude', true, ({ dir, name }) => dir.at(name, (p) => appendOnce(p, excludePath)));
  } catch (err) {
    if (err instanceof UnsafePathError) return { kind: 'failed', reason: `${path.dirname(excludePath)} is not a directory` };
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

const C = fs.constants;

/** Reads `p` (no link followed) and appends the patterns unless the marker is there. */
function appendOnce(p: string, excludePath: string): ExcludeResult {
  let existing = '';
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    // A link or something odd in place of the file is someone's deliberate setup: leave it.
    if (code === 'ELOOP') return { kind: 'failed', reason: `${excludePath} is not a regular file` };
    if (code !== 'ENOENT') throw err;
  }
  if (fd !== undefined) {
    try {
      if (!fs.fstatSync(fd).isFile()) return { kind: 'failed', reason: `${excludePath} is not a regular file` };
      existing = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  }
  if (existing.split('\n').some((l) => l.trim() === EXCLUDE_MARKER)) return { kind: 'present' };
  const lead = existing === '' || existing.endsWith('\n') ? '' : '\n';
  const out = fs.openSync(p, C.O_WRONLY | C.O_APPEND | C.O_CREAT | C.O_NOFOLLOW | C.O_NONBLOCK, 0o644);
  try {
    if (!fs.fstatSync(out).isFile()) return { kind: 'failed', reason: `${excludePath} is not a regular file` };
    fs.writeSync(out, `${lead}${EXCLUDE_MARKER}\n${EXCLUDE_PATTERNS.join('\n')}\n`);
  } finally {
    fs.closeSync(out);
  }
  return { kind: 'added', excludePath };
}

/** The one line said when the patterns were added, or undefined when there is nothing to say. */
export function excludeNotice(result: ExcludeResult): string | undefined {
  if (result.kind !== 'added') return undefined;
  return `added ${EXCLUDE_PATTERNS.join(' and ')} to ${result.excludePath} so agentx's state stays out of git status`;
}
