// Differences between snapshots, as a list of changed files and as a plain unified diff.
//
// A "span" is a pair of snapshots taken around the session's own tool calls (before the first
// tool call of a turn that could write, and at the turn's end). What the session changed since
// a checkpoint is the union of the spans after it; changes made between spans (by the person,
// between turns) are not part of it.

import * as path from 'node:path';
import { joinNul, runGit, splitNul, type GitContext } from './git.ts';
import { randomHex, unlinkQuiet } from '../lib/fsutil.ts';

/** A file's content in a snapshot: git mode ('100644', '100755', '120000' symlink) and blob id. */
export interface Entry {
  mode: string;
  id: string;
}

export interface FileChange {
  /** A: created since `from`, D: deleted since `from`, M: content, mode or type changed. */
  status: 'A' | 'M' | 'D';
  /** Relative to the workspace, '/'-separated. */
  path: string;
  /** The file in `from` (null when created). */
  before: Entry | null;
  /** The file in `to` (null when deleted). */
  after: Entry | null;
  binary: boolean;
  /** Executable bit flipped, content otherwise the same or also changed. */
  modeChanged: boolean;
  /** A symlink on either side. */
  symlink: boolean;
}

export interface Span {
  from: string;
  to: string;
}

const ZERO_ID = /^0+$/;
const SYMLINK_MODE = '120000';

function entryOf(mode: string, id: string): Entry | null {
  return mode === '000000' || ZERO_ID.test(id) ? null : { mode, id };
}

function changeOf(p: string, before: Entry | null, after: Entry | null, binary: boolean): FileChange {
  const status = before === null ? 'A' : after === null ? 'D' : 'M';
  const regular = (e: Entry | null): boolean => e !== null && e.mode !== SYMLINK_MODE;
  return {
    status,
    path: p,
    before,
    after,
    binary,
    modeChanged: regular(before) && regular(after) && before?.mode !== after?.mode,
    symlink: before?.mode === SYMLINK_MODE || after?.mode === SYMLINK_MODE,
  };
}

/** Parses `diff-tree -r -z --raw --numstat --no-renames` output. */
export function parseRawNumstat(output: Buffer): FileChange[] {
  const tokens = splitNul(output);
  const raw: Array<{ path: string; before: Entry | null; after: Entry | null }> = [];
  const binary = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    if (token.startsWith(':')) {
      const [oldMode = '', newMode = '', oldId = '', newId = ''] = token.slice(1).split(' ');
      const p = tokens[++i] ?? '';
      raw.push({ path: p, before: entryOf(oldMode, oldId), after: entryOf(newMode, newId) });
      continue;
    }
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(token);
    if (m?.[1] === '-' && m[3] !== undefined) binary.add(m[3]);
  }
  return raw.map((r) => changeOf(r.path, r.before, r.after, binary.has(r.path)));
}

/** The files that differ between two snapshots (or trees). */
export async function diffTrees(ctx: GitContext, from: string, to: string): Promise<FileChange[]> {
  const res = await runGit(ctx, ['diff-tree', '-r', '-z', '--raw', '--numstat', '--no-renames', '--no-ext-diff', from, to]);
  return parseRawNumstat(res.stdout);
}

/** Plain unified diff (no colour) between two trees, limited to `maxBytes`. */
export async function unifiedDiff(ctx: GitContext, from: string, to: string, maxBytes: number): Promise<string> {
  const res = await runGit(ctx, ['diff-tree', '-r', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--no-commit-id', from, to]);
  const text = res.stdout.toString('utf8');
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const cut = res.stdout
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\n[^\n]*$/, '\n');
  return `${cut}[diff truncated at ${maxBytes} bytes]\n`;
}

/**
 * What the spans changed, per path: the file before the first span that touched it and after
 * the last one. Paths that end as they began (created then deleted) are left out.
 */
export function mergeSpanChanges(perSpan: readonly FileChange[][]): FileChange[] {
  const first = new Map<string, FileChange>();
  const last = new Map<string, FileChange>();
  for (const changes of perSpan) {
    for (const c of changes) {
      if (!first.has(c.path)) first.set(c.path, c);
      last.set(c.path, c);
    }
  }
  const merged: FileChange[] = [];
  for (const [p, head] of first) {
    const tail = last.get(p) ?? head;
    if (sameEntry(head.before, tail.after)) continue;
    merged.push(changeOf(p, head.before, tail.after, head.binary || tail.binary));
  }
  return merged.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function sameEntry(a: Entry | null, b: Entry | null): boolean {
  if (a === null || b === null) return a === b;
  return a.mode === b.mode && a.id === b.id;
}

/** The changes of several spans, merged. */
export async function diffSpans(ctx: GitContext, spans: readonly Span[]): Promise<FileChange[]> {
  const perSpan: FileChange[][] = [];
  for (const span of spans) perSpan.push(await diffTrees(ctx, span.from, span.to));
  return mergeSpanChanges(perSpan);
}

/**
 * A tree holding exactly `entries` (path → file): the two sides of merged changes are written
 * as trees so git can render the unified diff between them.
 */
export async function treeOfEntries(ctx: GitContext, scratchDir: string, entries: ReadonlyArray<readonly [string, Entry]>): Promise<string> {
  const indexFile = path.join(scratchDir, `index.diff-${process.pid}-${randomHex(8)}`);
  try {
    const lines = entries.map(([p, e]) => `${e.mode} ${e.id}\t${p}`);
    if (lines.length > 0) await runGit(ctx, ['update-index', '-z', '--index-info'], { indexFile, input: joinNul(lines), throwawayIndex: true });
    return (await runGit(ctx, ['write-tree'], { indexFile, throwawayIndex: true })).stdout.toString('utf8').trim();
  } finally {
    unlinkQuiet(indexFile);
  }
}

/** The unified diff of merged changes (before side against after side). */
export async function unifiedDiffOfChanges(ctx: GitContext, scratchDir: string, changes: readonly FileChange[], maxBytes: number): Promise<string> {
  if (changes.length === 0) return '';
  const pick = (side: 'before' | 'after'): Array<readonly [string, Entry]> =>
    changes.flatMap((c) => {
      const e = c[side];
      return e === null ? [] : [[c.path, e] as const];
    });
  const from = await treeOfEntries(ctx, scratchDir, pick('before'));
  const to = await treeOfEntries(ctx, scratchDir, pick('after'));
  return unifiedDiff(ctx, from, to, maxBytes);
}

/** One line per change, as previews and /diff summaries show them: `M src/a.ts`. */
export function summaryLines(changes: readonly FileChange[]): string[] {
  return changes.map((c) => {
    const notes = [c.binary ? 'binary' : '', c.symlink ? 'symlink' : '', c.modeChanged ? `mode ${c.before?.mode ?? ''} → ${c.after?.mode ?? ''}` : ''].filter(
      Boolean,
    );
    return `${c.status} ${c.path}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  });
}
