// "Is this patch already applied?" — asked before retrying a patch call that was started but
// never completed (agentx was killed in between), so the retry answers "already applied"
// instead of failing or applying twice.
//
// The check works backwards from the disk. Walking the operations from last to first, each one
// is undone on an in-memory view: an added file must equal its content, a deleted file must be
// absent, and an updated file must be the result of the update applied to SOME pre-image. That
// pre-image is found by applying the hunks in reverse (added and removed lines swapped, first
// match taken) and is then verified by applying the hunks forwards again: the patch counts as
// applied to that file only if this reproduces the current content byte for byte. A file whose
// pre-image cannot be recovered counts as not applied, so the caller runs the patch normally
// (and a patch whose old lines are gone then fails cleanly instead of applying twice).
// Limit: a hunk that only removes lines, with neither context nor anchor, leaves no trace of
// where it was; it is undone at the end of the previous hunk, and when that guess does not
// verify, the file counts as not applied.
import { applyHunks, reverseHunks } from './apply.ts';
import { DEFAULT_MAX_BYTES, readDiskFile } from './fsio.ts';
import { resolvePatchPath, workspaceRoots } from './paths.ts';
import type { WorkspaceRoots } from './paths.ts';
import { addedFileText } from './text.ts';
import type { FileOperation } from './types.ts';

export interface AppliedCheck {
  /** Every operation's effect is already on disk: answer "already applied", do not re-run. */
  applied: boolean;
  /** Per operation, in patch order (a partly applied patch has some true, some false). */
  operations: boolean[];
}

/** A file in the backwards walk; 'any' = a later operation overwrote it, its earlier state is unknown. */
type View = { kind: 'missing' } | { kind: 'text'; text: string } | { kind: 'unreadable' } | { kind: 'any' };

class Views {
  private readonly views = new Map<string, View>();

  constructor(
    private readonly roots: WorkspaceRoots,
    private readonly maxBytes: number,
  ) {}

  /** The workspace-relative path (resolved and checked): the key of its view. */
  async rel(path: string): Promise<string> {
    return (await resolvePatchPath(this.roots, path)).display;
  }

  get(rel: string): View {
    const known = this.views.get(rel);
    if (known) return known;
    const disk = readDiskFile(this.roots.real, rel, this.maxBytes);
    const view: View = disk.kind === 'missing' ? disk : disk.kind === 'file' && disk.text !== null ? { kind: 'text', text: disk.text } : { kind: 'unreadable' };
    this.views.set(rel, view);
    return view;
  }

  set(rel: string, view: View): void {
    this.views.set(rel, view);
  }
}

/** The pre-image from which `hunks` produce exactly `text`, or null when there is none. */
export function preImage(text: string, op: Extract<FileOperation, { type: 'update' }>, path: string): string | null {
  try {
    const before = applyHunks(text, reverseHunks(op.hunks), { path, firstMatch: true, bareInsertAt: 'cursor' }).text;
    return applyHunks(before, op.hunks, { path }).text === text ? before : null;
  } catch {
    return null;
  }
}

/** Undoes one operation on the views; returns whether its effect was present. */
async function undo(views: Views, op: FileOperation): Promise<boolean> {
  const rel = await views.rel(op.path);
  if (op.type === 'add') {
    const now = views.get(rel);
    views.set(rel, { kind: 'any' });
    return now.kind === 'any' || (now.kind === 'text' && now.text === addedFileText(op.lines));
  }
  if (op.type === 'delete') {
    const now = views.get(rel);
    views.set(rel, { kind: 'any' });
    return now.kind === 'any' || now.kind === 'missing';
  }
  const target = op.moveTo === null ? rel : await views.rel(op.moveTo);
  const moved = target !== rel;
  const result = views.get(target);
  const source = moved ? views.get(rel) : result;
  if (moved) views.set(target, { kind: 'any' });
  if (result.kind === 'any') {
    views.set(rel, { kind: 'any' });
    return !moved || source.kind === 'missing' || source.kind === 'any';
  }
  const before = result.kind === 'text' ? preImage(result.text, op, op.path) : null;
  views.set(rel, before === null ? { kind: 'any' } : { kind: 'text', text: before });
  return before !== null && (!moved || source.kind === 'missing' || source.kind === 'any');
}

/**
 * Whether the files already equal what applying `ops` would produce (see the top of this file).
 * Never throws: a path that cannot be resolved or read counts as not applied.
 */
export async function alreadyApplied(
  ops: readonly FileOperation[],
  opts: { root: string; cwd?: string; maxBytes?: number; hidden?: (realPath: string) => boolean },
): Promise<AppliedCheck> {
  const operations = ops.map(() => false);
  let roots: WorkspaceRoots;
  try {
    roots = await workspaceRoots(opts.root, opts.cwd, opts.hidden);
  } catch {
    return { applied: false, operations };
  }
  const views = new Views(roots, opts.maxBytes ?? DEFAULT_MAX_BYTES);
  for (const [i, op] of [...ops.entries()].reverse()) {
    try {
      operations[i] = await undo(views, op);
    } catch {
      operations[i] = false;
    }
  }
  return { applied: operations.length > 0 && operations.every(Boolean), operations };
}
