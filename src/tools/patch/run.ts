// Applies a parsed patch to the workspace, all or nothing: plan every file first (nothing is
// written if any section fails), then write each changed file atomically; if the disk refuses
// part-way, what was already written is put back.
import { openParent, tempNameFor, UnsafePathError } from '../../lib/dir-walk.ts';
import type { OpenDir } from '../../lib/dir-walk.ts';
import { DEFAULT_MAX_BYTES } from './fsio.ts';
import { workspaceRoots } from './paths.ts';
import { planPatch } from './plan.ts';
import type { Entry, FileChange } from './plan.ts';
import { PatchError } from './types.ts';
import type { FileOperation, PatchErrorKind } from './types.ts';

export interface PatchOptions {
  /** The workspace root: every path must resolve inside it. */
  root: string;
  /** The session's working directory, which relative paths start from (default: the root). */
  cwd?: string;
  /** Size cap for files read or written (default 10 MiB). */
  maxBytes?: number;
  /** fsync written files and their directories (default true; exactly-once relies on it). */
  durable?: boolean;
  /** Validate and compute everything (diffs, counts) but write nothing: the preview for --confirm. */
  dryRun?: boolean;
  /** Paths the sandbox hides (paths.ts WorkspaceRoots.hidden): refused like paths outside. */
  hidden?: (realPath: string) => boolean;
}

export type PatchResult = { ok: true; changes: FileChange[]; output: string } | { ok: false; error: { kind: PatchErrorKind; message: string }; output: string };

/** One line per file for the model and the terminal: "Updated a.ts (+3 -1)". */
export function summaryLine(change: FileChange): string {
  const counts = change.note ? `(${change.note})` : `(+${change.added} -${change.removed})`;
  switch (change.operation) {
    case 'create':
      return `Added ${change.path} ${counts}`;
    case 'delete':
      return `Deleted ${change.path} ${counts}`;
    case 'update':
      return change.movedTo === undefined ? `Updated ${change.path} ${counts}` : `Moved ${change.path} -> ${change.movedTo} ${counts}`;
  }
}

export function successOutput(changes: readonly FileChange[]): string {
  return changes.map(summaryLine).join('\n');
}

/** The model-facing text of a patch that was not applied. */
export function failureOutput(message: string): string {
  return `Patch not applied, no file was changed.\n${message}`;
}

export function failure(err: unknown): PatchResult {
  const error =
    err instanceof PatchError ? { kind: err.kind, message: err.message } : { kind: 'io' as const, message: err instanceof Error ? err.message : String(err) };
  return { ok: false, error, output: failureOutput(error.message) };
}

function changed(entry: Entry): boolean {
  const { disk, state } = entry;
  if (state.kind !== 'file' || state.text === null) return false;
  if (disk.kind !== 'file') return true;
  return disk.text !== state.text || (state.mode !== null && state.mode !== disk.mode);
}

const WRITE_CONCURRENCY = 8;

/**
 * Runs `fn` over `items` with at most `limit` at a time. On a failure it stops starting new ones,
 * waits for those in flight (so the caller can undo all that finished) and rethrows the first.
 */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = items.values(); // shared by the workers: each item is taken once
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (failures.length === 0) {
      const next = queue.next();
      if (next.done === true) return;
      try {
        await fn(next.value);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * The parent directories a patch writes in, each opened once from the workspace root one component
 * at a time without following symlinks (lib/dir-walk.ts): every write, rename and unlink of the
 * patch, its undo included, goes through the opened descriptor, so a directory swapped for a
 * symlink mid-patch cannot redirect it outside the workspace.
 */
class OpenedDirs {
  private readonly dirs = new Map<string, OpenDir>();
  /** Workspace-relative directories this patch created, outermost first. */
  readonly created: string[] = [];
  constructor(private readonly root: string) {}

  /** The opened parent of workspace-relative `rel` and the file's name in it. */
  parentOf(rel: string, create: boolean): { dir: OpenDir; name: string } {
    const key = relDir(rel);
    const name = rel.slice(key === '' ? 0 : key.length + 1);
    const known = this.dirs.get(key);
    if (known) return { dir: known, name };
    const opened = openParent(this.root, rel, create);
    this.created.push(...opened.created);
    this.dirs.set(key, opened.dir);
    return { dir: opened.dir, name };
  }

  syncAll(): void {
    for (const dir of this.dirs.values()) dir.sync();
  }

  closeAll(): void {
    for (const dir of this.dirs.values()) dir.close();
    this.dirs.clear();
  }
}

function relDir(rel: string): string {
  const cut = rel.lastIndexOf('/');
  return cut < 0 ? '' : rel.slice(0, cut);
}

const patchTemp = tempNameFor('.', '.agentx-tmp');
const parkTemp = tempNameFor('.', '.agentx-deleted');

/** Writes the planned state; on any failure undoes what was done and rethrows. */
async function commit(entries: readonly Entry[], durable: boolean, root: string): Promise<void> {
  const dirs = new OpenedDirs(root);
  try {
    await commitIn(dirs, entries, durable);
  } finally {
    dirs.closeAll();
  }
}

async function commitIn(dirs: OpenedDirs, entries: readonly Entry[], durable: boolean): Promise<void> {
  const undo: Array<() => void> = [];
  const parked: Array<{ dir: OpenDir; name: string }> = [];
  try {
    // A deleted file is first parked under a temp name, so it can be put back if a later step
    // fails (even one too large to hold in memory), and only unlinked once everything succeeded.
    // Parking comes first so a file can be replaced by a directory of the same name.
    for (const entry of entries) {
      if (entry.state.kind !== 'missing' || entry.disk.kind !== 'file') continue;
      const { dir, name } = dirs.parentOf(entry.display, false);
      const park = parkTemp(name);
      dir.rename(name, park);
      undo.push(() => dir.rename(park, name));
      parked.push({ dir, name: park });
    }
    const write = (entry: Entry): Promise<void> => {
      if (entry.state.kind !== 'file' || entry.state.text === null) return Promise.resolve();
      const { dir, name } = dirs.parentOf(entry.display, true);
      dir.writeFile(name, entry.state.text, { mode: entry.state.mode, durable, tempName: patchTemp });
      const { disk } = entry;
      undo.push(() =>
        disk.kind === 'file' && disk.bytes ? dir.writeFile(name, disk.bytes, { mode: disk.mode, durable, tempName: patchTemp }) : dir.unlink(name),
      );
      return Promise.resolve();
    };
    // Files are independent: several writes (and their fsyncs) in flight at once.
    await eachLimited(entries.filter(changed), WRITE_CONCURRENCY, write);
  } catch (err) {
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // best effort: every step stays inside the opened directories
      }
    }
    // Directories last, deepest first: files of other writes may have been in them.
    for (const rel of [...dirs.created].sort((a, b) => b.length - a.length)) {
      try {
        const { dir, name } = dirs.parentOf(rel, false);
        dir.rmdir(name);
      } catch {
        // best effort, as before
      }
    }
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof UnsafePathError) throw new PatchError('path', `writing the patch was refused (${message}); the files already written were restored`);
    throw new PatchError('io', `writing the patch failed (${message}); the files already written were restored`);
  }
  for (const park of parked) park.dir.unlinkQuiet(park.name);
  if (durable) dirs.syncAll();
}

/**
 * Applies file operations (from any of the three wire forms) inside the workspace. Never throws:
 * a failure comes back as `{ ok: false }` with a model-facing output, and no file changed.
 */
export async function applyPatch(ops: readonly FileOperation[], opts: PatchOptions): Promise<PatchResult> {
  try {
    const roots = await workspaceRoots(opts.root, opts.cwd, opts.hidden);
    const plan = await planPatch(ops, roots, { maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES });
    if (!opts.dryRun) await commit(plan.entries, opts.durable ?? true, roots.real);
    return { ok: true, changes: plan.changes, output: successOutput(plan.changes) };
  } catch (err) {
    return failure(err);
  }
}
