// Validates a whole patch and computes every resulting file before anything is written. The
// operations run in order against an in-memory view of the touched files, so a later section
// sees the effect of an earlier one (delete then add, two updates of one file, a move).
import { stat } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { applyHunks } from './apply.ts';
import type { Edit } from './apply.ts';
import { countChanges, diffLines, refineEdits, unifiedDiff } from './diff.ts';
import { readDiskFile } from './fsio.ts';
import type { DiskFile } from './fsio.ts';
import { resolvePatchPath } from './paths.ts';
import type { ResolvedPath, WorkspaceRoots } from './paths.ts';
import { addedFileText, splitLines } from './text.ts';
import { PatchError } from './types.ts';
import type { FileOperation } from './types.ts';
import { formatBytes } from '../../lib/text.ts';
import type { FileChange } from '../file-change.ts';

export type { FileChange } from '../file-change.ts';

/** A touched file as the patch sees it while its operations run. */
export type FileState =
  | { kind: 'missing' }
  | { kind: 'dir' }
  | { kind: 'other' }
  | { kind: 'file'; text: string | null; unreadable: 'binary' | 'too_large' | null; mode: number | null; size: number };

export interface Entry extends ResolvedPath {
  /** What is on disk now (kept to write only what changed and to roll back). */
  disk: DiskFile;
  /** The state after the operations planned so far. */
  state: FileState;
}

export interface Plan {
  changes: FileChange[];
  /** Every touched file in first-touch order, with its disk and final state. */
  entries: Entry[];
}

export interface PlanOptions {
  maxBytes: number;
}

function fromDisk(disk: DiskFile): FileState {
  if (disk.kind !== 'file') return disk;
  return { kind: 'file', text: disk.text, unreadable: disk.unreadable, mode: disk.mode, size: disk.size };
}

/** The touched files of one patch, loaded from disk on first use. */
class Overlay {
  private readonly entries = new Map<string, Entry>();
  /** Paths resolved and read ahead, all at once (a 200-file patch waits for the disk once). */
  private readonly loading = new Map<string, Promise<{ resolved: ResolvedPath; disk: DiskFile }>>();

  constructor(
    private readonly roots: WorkspaceRoots,
    private readonly opts: PlanOptions,
  ) {}

  /** Starts resolving and reading every path; errors surface when the operation needing it runs. */
  prefetch(paths: readonly string[]): void {
    for (const path of paths) void this.load(path);
  }

  /** The path's resolution and read, started on first use. */
  private load(path: string): Promise<{ resolved: ResolvedPath; disk: DiskFile }> {
    let load = this.loading.get(path);
    if (!load) {
      load = resolvePatchPath(this.roots, path).then((resolved) => ({ resolved, disk: readDiskFile(this.roots.real, resolved.display, this.opts.maxBytes) }));
      load.catch(() => undefined); // handled when awaited in get()
      this.loading.set(path, load);
    }
    return load;
  }

  async get(path: string): Promise<Entry> {
    const { resolved, disk } = await this.load(path);
    const known = this.entries.get(resolved.abs);
    if (known) return known;
    const entry: Entry = { ...resolved, disk, state: fromDisk(disk) };
    this.entries.set(resolved.abs, entry);
    return entry;
  }

  /** A new file needs directories (or nothing yet) above it, on disk and in the planned state. */
  async checkParents(entry: Entry): Promise<void> {
    for (let dir = dirname(entry.abs); dir.length > this.roots.real.length; dir = dirname(dir)) {
      const planned = this.entries.get(dir)?.state.kind;
      const kind =
        planned ??
        (await stat(dir).then(
          (s) => (s.isDirectory() ? 'dir' : 'file'),
          () => 'missing',
        ));
      if (kind === 'dir') return;
      if (kind !== 'missing') {
        const display = relative(this.roots.real, dir).split(sep).join('/');
        throw new PatchError('path', `cannot create ${entry.display}: ${display} is a file, not a directory`);
      }
    }
  }

  all(): Entry[] {
    return [...this.entries.values()];
  }
}

/** The text of an existing file, or the error saying why it cannot be patched. */
function readableText(entry: Entry, verb: string, maxBytes: number): { text: string; mode: number | null } {
  const s = entry.state;
  if (s.kind === 'missing') {
    const hint = verb === 'update' ? ` (use '*** Add File: ${entry.display}' to create it)` : '';
    throw new PatchError('missing', `cannot ${verb} ${entry.display}: no such file${hint}`);
  }
  if (s.kind === 'dir') throw new PatchError('not_text', `cannot ${verb} ${entry.display}: it is a directory`);
  if (s.kind === 'other') throw new PatchError('not_text', `cannot ${verb} ${entry.display}: it is not a regular file`);
  if (s.unreadable === 'too_large') {
    throw new PatchError(
      'too_large',
      `cannot ${verb} ${entry.display}: the file is ${formatBytes(s.size)}, over the ${formatBytes(maxBytes)} limit for patches`,
    );
  }
  if (s.text === null)
    throw new PatchError('not_text', `cannot ${verb} ${entry.display}: it is a binary file (or not UTF-8 text); patches change text files only`);
  return { text: s.text, mode: s.mode };
}

/** A file an add or a move may write over: missing, or an existing text file. */
function writableTarget(entry: Entry, verb: string, maxBytes: number): FileState {
  const s = entry.state;
  if (s.kind === 'missing') return s;
  readableText(entry, verb, maxBytes);
  return s;
}

/**
 * A move never replaces a file: the destination's content would be gone without the patch (or its
 * diff) ever showing it. A file an earlier section of the same patch deleted or moved away is free.
 */
function refuseExisting(target: Entry, source: Entry): void {
  const kind = target.state.kind;
  if (kind === 'missing') return;
  const what = kind === 'dir' ? 'a directory' : kind === 'other' ? 'something other than a regular file' : 'a file';
  throw new PatchError(
    'path',
    `cannot move ${source.display} to ${target.display}: ${target.display} already exists (${what}); a move never replaces a file. Delete it first ('*** Delete File: ${target.display}') if it should go`,
  );
}

function checkSize(entry: Entry, text: string, maxBytes: number): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new PatchError('too_large', `${entry.display} would be ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} limit for patched files`);
  }
}

function describe(
  op: FileChange['operation'],
  path: string,
  movedTo: string | null,
  oldLines: readonly string[],
  edits: Edit[],
  oldIsNew: boolean,
): FileChange {
  const { added, removed } = countChanges(edits);
  const diff = unifiedDiff(oldLines, edits, { oldPath: oldIsNew ? null : path, newPath: op === 'delete' ? null : (movedTo ?? path) });
  return { operation: op, path, ...(movedTo === null ? {} : { movedTo }), added, removed, diff };
}

function linesOf(text: string | null): string[] {
  return text === null ? [] : splitLines(text).lines;
}

async function planOne(overlay: Overlay, op: FileOperation, opts: PlanOptions): Promise<FileChange> {
  const entry = await overlay.get(op.path);
  if (op.type === 'add') {
    const before = writableTarget(entry, 'add', opts.maxBytes);
    await overlay.checkParents(entry);
    const text = addedFileText(op.lines);
    checkSize(entry, text, opts.maxBytes);
    const oldText = before.kind === 'file' ? before.text : null;
    entry.state = { kind: 'file', text, unreadable: null, mode: before.kind === 'file' ? before.mode : null, size: Buffer.byteLength(text) };
    const oldLines = linesOf(oldText);
    return describe('create', entry.display, null, oldLines, diffLines(oldLines, op.lines), oldText === null);
  }
  if (op.type === 'delete') {
    const s = entry.state;
    if (s.kind === 'file' && s.text === null) {
      entry.state = { kind: 'missing' };
      const what = s.unreadable === 'too_large' ? `a ${formatBytes(s.size)} file` : 'a binary file';
      return { operation: 'delete', path: entry.display, added: 0, removed: 0, diff: '', note: `${what}, not shown` };
    }
    const { text } = readableText(entry, 'delete', opts.maxBytes);
    entry.state = { kind: 'missing' };
    const oldLines = linesOf(text);
    return describe('delete', entry.display, null, oldLines, diffLines(oldLines, []), false);
  }
  const { text, mode } = readableText(entry, 'update', opts.maxBytes);
  const applied = applyHunks(text, op.hunks, { path: entry.display });
  checkSize(entry, applied.text, opts.maxBytes);
  const edits = refineEdits(applied.edits);
  const target = op.moveTo === null ? entry : await overlay.get(op.moveTo);
  if (target === entry) {
    entry.state = { kind: 'file', text: applied.text, unreadable: null, mode, size: Buffer.byteLength(applied.text) };
    return describe('update', entry.display, null, applied.oldLines, edits, false);
  }
  refuseExisting(target, entry);
  await overlay.checkParents(target);
  entry.state = { kind: 'missing' };
  target.state = { kind: 'file', text: applied.text, unreadable: null, mode, size: Buffer.byteLength(applied.text) };
  return describe('update', entry.display, target.display, applied.oldLines, edits, false);
}

/** Plans every operation in order; throws PatchError at the first that cannot be applied. */
export async function planPatch(ops: readonly FileOperation[], roots: WorkspaceRoots, opts: PlanOptions): Promise<Plan> {
  const overlay = new Overlay(roots, opts);
  overlay.prefetch(ops.flatMap((op) => (op.type === 'update' && op.moveTo !== null ? [op.path, op.moveTo] : [op.path])));
  const changes: FileChange[] = [];
  for (const op of ops) changes.push(await planOne(overlay, op, opts));
  return { changes, entries: overlay.all() };
}
