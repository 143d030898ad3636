// Resolving a path the model wrote to a file inside the workspace, or refusing it. A path must
// stay inside after `..` is resolved (lexically) and after symbolic links are followed (the real
// path of its deepest existing ancestor); containment is checked by path segments, never by
// string prefix, so `/w/proj2` is not inside `/w/proj`.
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { PatchError } from './types.ts';

export interface WorkspaceRoots {
  /** The workspace root as given (it may itself be reached through a symbolic link). */
  given: string;
  /** Its real path: every resolved file lies inside this. */
  real: string;
  /** The directory relative paths start from (real path, inside the workspace). */
  cwd: string;
  /**
   * Real paths the sandbox hides from commands (credentials, agentx's own files): a patch is
   * written by agentx itself, outside the sandbox, so it refuses them too (a workspace that is the
   * home directory contains ~/.ssh and ~/.agentx).
   */
  hidden?: (realPath: string) => boolean;
}

export interface ResolvedPath {
  /** The absolute real path to read and write. */
  abs: string;
  /** The path relative to the workspace root, with '/' separators (for messages and diffs). */
  display: string;
}

/** True when `child` is `parent` or lies below it, compared by path segments. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function errno(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** Resolves the workspace root and the working directory once per patch. */
export async function workspaceRoots(root: string, cwd?: string, hidden?: (realPath: string) => boolean): Promise<WorkspaceRoots> {
  const given = resolve(root);
  let real: string;
  try {
    real = await realpath(given);
    if (!(await stat(real)).isDirectory()) throw new PatchError('path', `the workspace root ${given} is not a directory`);
  } catch (err) {
    if (err instanceof PatchError) throw err;
    throw new PatchError('path', `the workspace root ${given} cannot be used (${errno(err) ?? String(err)})`);
  }
  const lexicalCwd = resolve(given, cwd ?? given);
  const cwdReal = await realpath(lexicalCwd).catch(() => lexicalCwd);
  // A working directory outside the workspace falls back to the root: paths are then relative to it.
  return { given, real, cwd: isInside(real, cwdReal) ? cwdReal : real, ...(hidden ? { hidden } : {}) };
}

function outside(path: string, roots: WorkspaceRoots, why: string): PatchError {
  return new PatchError('path', `${JSON.stringify(path)} ${why}; patches may only change files inside the workspace ${roots.real}`);
}

/** The deepest existing ancestor of `abs` (itself included) and the missing segments below it. */
async function deepestExisting(abs: string): Promise<{ existing: string; missing: string[] }> {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      await lstat(current);
      return { existing: current, missing };
    } catch (err) {
      if (errno(err) !== 'ENOENT' && errno(err) !== 'ENOTDIR') throw err;
      const parent = dirname(current);
      if (parent === current) return { existing: current, missing };
      missing.unshift(basename(current));
      current = parent;
    }
  }
}

/** agentx's session files in a project (SPEC §3): written by agentx alone, sealed (store/seal.ts). */
const AGENTX_SESSION_FILE = /^\.agentx_(?:responseid|checkpoint)(?:$|\.)/;

/** Resolves one path of the patch against the workspace. Throws PatchError('path') when unsafe. */
export async function resolvePatchPath(roots: WorkspaceRoots, path: string): Promise<ResolvedPath> {
  if (path.includes('\0')) throw new PatchError('path', `${JSON.stringify(path)} contains a NUL byte`);
  const lexical = isAbsolute(path) ? normalize(path) : resolve(roots.cwd, path);
  // An absolute path may name the root as given (a symlinked checkout) or its real path.
  const base = isInside(roots.real, lexical) ? roots.real : isInside(roots.given, lexical) ? roots.given : null;
  if (base === null) {
    throw outside(path, roots, isAbsolute(path) ? 'is an absolute path outside the workspace' : 'leads outside the workspace through ".."');
  }
  const candidate = join(roots.real, relative(base, lexical));
  const { existing, missing } = await deepestExisting(candidate);
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch {
    throw outside(path, roots, 'is a symbolic link whose target does not exist (it may point outside the workspace)');
  }
  if (!isInside(roots.real, realExisting)) {
    throw outside(path, roots, `leads outside the workspace through a symbolic link (to ${realExisting})`);
  }
  const abs = missing.length > 0 ? join(realExisting, ...missing) : realExisting;
  if (roots.hidden?.(abs) === true) {
    throw new PatchError('path', `${JSON.stringify(path)} is hidden by the sandbox (credentials and agentx's own files); patches may not change it`);
  }
  if (AGENTX_SESSION_FILE.test(basename(abs))) {
    throw new PatchError(
      'path',
      `${JSON.stringify(path)} is one of agentx's own session files (state, checkpoint, one-shot or lock); patches may not change it`,
    );
  }
  const display = relative(roots.real, abs).split(sep).join('/');
  if (display === '') throw new PatchError('path', `${JSON.stringify(path)} is the workspace root, not a file`);
  return { abs, display };
}
