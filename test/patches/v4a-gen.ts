// Builds a V4A update (hunks) that turns one text into another, for property tests: the line
// diff gives the changes, each hunk gets context and grows it (or an anchor) until the applier
// would place it exactly where it belongs. Random choices come from the caller's `pick`.
import { diffLines, splitLines } from '../../src/tools/patch/index.ts';
import type { Edit, Hunk, HunkLine } from '../../src/tools/patch/index.ts';
import { findAnchor, LineIndex, locate } from '../../src/tools/patch/match.ts';

export interface GenOptions {
  /** Context lines around each change before growing for uniqueness. */
  context: number;
  /** Try an `@@` anchor above a hunk when one identifies it. */
  anchors: boolean;
  /** Mark a hunk that reaches the end of the file with `*** End of File`. */
  endOfFile: boolean;
}

/** A span of old lines and the edits (each in exactly one region) it carries. */
interface Region {
  start: number;
  end: number;
  edits: Edit[];
}

function hunkLines(old: readonly string[], region: Region): HunkLine[] {
  const lines: HunkLine[] = [];
  let pos = region.start;
  for (const e of region.edits) {
    for (; pos < e.oldStart; pos++) lines.push({ kind: 'context', text: old[pos] as string });
    for (const text of e.oldLines) lines.push({ kind: 'delete', text });
    for (const text of e.newLines) lines.push({ kind: 'insert', text });
    pos = e.oldStart + e.oldLines.length;
  }
  for (; pos < region.end; pos++) lines.push({ kind: 'context', text: old[pos] as string });
  return lines;
}

function absorb(into: Region, next: Region): void {
  into.end = Math.max(into.end, next.end);
  into.edits.push(...next.edits);
}

/** Initial regions: each edit with `context` lines around it, overlapping ones merged. */
function regions(edits: readonly Edit[], total: number, context: number): Region[] {
  const out: Region[] = [];
  for (const e of edits) {
    const r = { start: Math.max(0, e.oldStart - context), end: Math.min(total, e.oldStart + e.oldLines.length + context), edits: [e] };
    const prev = out[out.length - 1];
    if (prev && r.start <= prev.end) absorb(prev, r);
    else out.push(r);
  }
  return out;
}

/** The hunks of an update from `before` to `after` (line contents; endings are the caller's). */
export function generateHunks(before: string, after: string, opts: GenOptions): Hunk[] {
  const old = splitLines(before).lines;
  const edits = diffLines(old, splitLines(after).lines);
  const index = new LineIndex(old);
  const todo = regions(edits, old.length, opts.context);
  const hunks: Hunk[] = [];
  let cursor = 0;
  while (todo.length > 0) {
    const region = todo.shift() as Region;
    let anchors: string[] = [];
    for (;;) {
      // A hunk with no old lines lands at the end of the file; elsewhere it needs context.
      if (region.start === region.end && region.end < old.length) region.end++;
      // Reaching the next region takes it over.
      while (todo[0] && todo[0].start <= region.end) absorb(region, todo.shift() as Region);
      const oldSide = old.slice(region.start, region.end);
      anchors = opts.anchors ? anchorFor(index, old, oldSide, cursor, region) : [];
      if (anchors.length > 0 || oldSide.length === 0) break;
      const found = locate(index, oldSide, cursor, true);
      if (found.found && found.at === region.start) break;
      if (region.start > cursor) region.start--;
      else region.end++;
    }
    const endOfFile = opts.endOfFile && region.end === old.length && region.end > region.start;
    hunks.push({ anchors, lines: hunkLines(old, region), endOfFile, patchLine: 0 });
    cursor = region.end;
  }
  return hunks;
}

/** An anchor line between the cursor and the hunk that makes the applier find it (else none). */
function anchorFor(index: LineIndex, old: readonly string[], oldSide: readonly string[], cursor: number, region: Region): string[] {
  for (let p = region.start - 1; p >= cursor; p--) {
    const text = old[p] as string;
    if (text.trim() === '' || findAnchor(index, text, cursor) !== p) continue;
    const found = oldSide.length === 0 ? { found: true, at: p + 1 } : locate(index, oldSide, p + 1, false);
    if (found.found && 'at' in found && found.at === region.start) return [text];
  }
  return [];
}
