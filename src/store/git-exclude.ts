// Keeping agentx's state files out of `git status` (README "Session state files"). On the first save in
// a git repository, the patterns go into the repository's own `.git/info/exclude` (never into
// the person's `.gitignore`, which is shared and reviewed), once: a marker line records that it
// was done, so deleting the patterns but keeping the marker opts out for good.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const EXCLUDE_MARKER = '# agentx session state (added once by agentx; keep this line to stop it re-adding)';
/** Bare names match at any depth, so a session in a subdirectory is covered too. */
export const EXCLUDE_PATTERNS = ['.agentx_responseid*', '.agentx_checkpoint*'];

export type ExcludeResult =
  | { kind: 'added'; excludePath: string }
  | { kind: 'present' }
  | { kind: 'not_a_repository' }
  | { kind: 'failed'; reason: string };

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
      const common = readIfFile(path.join(gitDir, 'commondir'))?.trim();
      if (!common) return gitDir;
      const commonDir = realOrUndefined(path.resolve(gitDir, common));
      // A commondir inside the workspace is as plantable as a .git file.
      if (commonDir === undefined || (within(gitDir, workspace) && !within(commonDir, workspace))) return undefined;
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
    // `info` as a link would carry the write elsewhere, like a linked exclude file.
    const info = fs.lstatSync(path.dirname(excludePath), { throwIfNoEntry: false });
    if (info !== undefined && !info.isDirectory()) return { kind: 'failed', reason: `${path.dirname(excludePath)} is not a directory` };
    let existing = '';
    try {
      const st = fs.lstatSync(excludePath);
      // A link or something odd in place of the file is someone's deliberate setup: leave it.
      if (!st.isFile()) return { kind: 'failed', reason: `${excludePath} is not a regular file` };
      existing = fs.readFileSync(excludePath, 'utf8');
    } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'ENOENT')) throw err;
    }
    if (existing.split('\n').some((l) => l.trim() === EXCLUDE_MARKER)) return { kind: 'present' };
    fs.mkdirSync(path.dirname(excludePath), { recursive: true });
    const lead = existing === '' || existing.endsWith('\n') ? '' : '\n';
    fs.appendFileSync(excludePath, `${lead}${EXCLUDE_MARKER}\n${EXCLUDE_PATTERNS.join('\n')}\n`);
    return { kind: 'added', excludePath };
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The one line said when the patterns were added, or undefined when there is nothing to say. */
export function excludeNotice(result: ExcludeResult): string | undefined {
  if (result.kind !== 'added') return undefined;
  return `added ${EXCLUDE_PATTERNS.join(' and ')} to ${result.excludePath} so agentx's state stays out of git status`;
}
