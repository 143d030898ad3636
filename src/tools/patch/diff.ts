// Line diffs for display: Myers' O(ND) algorithm (to tighten what a hunk really changed) and a
// plain unified diff renderer (no colours; the terminal adds them).
// Indexed reads inside bounds the loop has checked go through itemAt, or vAt for the Myers
// vectors: one inlinable compare each, and no cast.
import { itemAt } from '../../lib/item-at.ts';
import type { Edit } from './apply.ts';

/** Beyond this many differences a region is shown as one replacement (bounded time and memory). */
const MAX_DIFFERENCES = 1000;

type Op = 0 | 1 | 2; // equal, delete, insert

/**
 * v[i] of a Myers vector, which must exist (itemAt's contract for an Int32Array). Its own
 * function so the element load stays monomorphic: through the shared itemAt, which also sees
 * plain arrays, a large diff ran 15–20% slower.
 */
function vAt(v: Int32Array, i: number): number {
  const x = v[i];
  if (x === undefined) throw new RangeError(`index ${i} is out of range (length ${v.length})`);
  return x;
}

/** Myers' shortest edit script of the middle part, or null when it needs too many steps. */
function myers(a: readonly string[], b: readonly string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    if (d > MAX_DIFFERENCES) return null;
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && vAt(v, offset + k - 1) < vAt(v, offset + k + 1)) ? vAt(v, offset + k + 1) : vAt(v, offset + k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = itemAt(trace, d);
    const at = (k: number): number => vAt(v, k + d);
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(0);
      x--;
      y--;
    }
    if (d > 0) ops.push(x === prevX ? 2 : 1);
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** The changed regions between two line lists, smallest first-found edit script. */
export function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length === 0 && midB.length === 0) return [];
  const ops = myers(midA, midB);
  if (!ops) return [{ oldStart: start, oldLines: midA, newStart: start, newLines: midB }];
  const edits: Edit[] = [];
  let x = 0;
  let y = 0;
  let open: Edit | null = null;
  for (const op of ops) {
    if (op === 0) {
      open = null;
      x++;
      y++;
      continue;
    }
    if (!open) {
      open = { oldStart: start + x, oldLines: [], newStart: start + y, newLines: [] };
      edits.push(open);
    }
    if (op === 1) open.oldLines.push(itemAt(midA, x++));
    else open.newLines.push(itemAt(midB, y++));
  }
  return edits;
}

/** Splits each replacement into what really differs (a re-typed unchanged line is not a change). */
export function refineEdits(edits: readonly Edit[]): Edit[] {
  const out: Edit[] = [];
  for (const e of edits) {
    if (e.oldLines.length === 0 || e.newLines.length === 0) {
      out.push(e);
      continue;
    }
    for (const inner of diffLines(e.oldLines, e.newLines)) {
      out.push({ ...inner, oldStart: e.oldStart + inner.oldStart, newStart: e.newStart + inner.newStart });
    }
  }
  return out;
}

export function countChanges(edits: readonly Edit[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const e of edits) {
    added += e.newLines.length;
    removed += e.oldLines.length;
  }
  return { added, removed };
}

export interface UnifiedOptions {
  /** `a/…` path, or null for a created file (`/dev/null`). */
  oldPath: string | null;
  /** `b/…` path, or null for a deleted file. */
  newPath: string | null;
  context?: number;
}

function range(start: number, count: number): string {
  // A count of 0 names the line before the empty range, as diff(1) does.
  return `${count === 0 ? start : start + 1},${count}`;
}

/** A unified diff of `edits` (sorted, non-overlapping) between the two line lists. */
export function unifiedDiff(oldLines: readonly string[], edits: readonly Edit[], opts: UnifiedOptions): string {
  if (edits.length === 0) return '';
  const context = opts.context ?? 3;
  const out = [`--- ${opts.oldPath === null ? '/dev/null' : `a/${opts.oldPath}`}`, `+++ ${opts.newPath === null ? '/dev/null' : `b/${opts.newPath}`}`];
  let i = 0;
  while (i < edits.length) {
    let j = i;
    const end = (e: Edit): number => e.oldStart + e.oldLines.length;
    while (j + 1 < edits.length && itemAt(edits, j + 1).oldStart - end(itemAt(edits, j)) <= 2 * context) j++;
    const first = itemAt(edits, i);
    const last = itemAt(edits, j);
    const oldFrom = Math.max(0, first.oldStart - context);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const oldTo = Math.min(oldLines.length, end(last) + context);
    const newTo = last.newStart + last.newLines.length + (oldTo - end(last));
    out.push(`@@ -${range(oldFrom, oldTo - oldFrom)} +${range(newFrom, newTo - newFrom)} @@`);
    let pos = oldFrom;
    for (let k = i; k <= j; k++) {
      const e = itemAt(edits, k);
      for (; pos < e.oldStart; pos++) out.push(` ${itemAt(oldLines, pos)}`);
      for (const l of e.oldLines) out.push(`-${l}`);
      for (const l of e.newLines) out.push(`+${l}`);
      pos = end(e);
    }
    for (; pos < oldTo; pos++) out.push(` ${itemAt(oldLines, pos)}`);
    i = j + 1;
  }
  return `${out.join('\n')}\n`;
}
