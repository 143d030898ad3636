// Applies the hunks of one update to a file's text. Pure. Hunks are placed in order, each after
// the previous one; context lines keep the file's own text (so loose matching never rewrites
// them), removed lines go, added lines take the file's line ending.
import { itemAt } from '../../lib/item-at.ts';
import { closest, findAnchor, findAnchorBefore, LineIndex, locate, locateAtEnd } from './match.ts';
import type { Located } from './match.ts';
import { joinLines, splitLines } from './text.ts';
import type { Eol } from './text.ts';
import { oldSide, PatchError } from './types.ts';
import type { Hunk } from './types.ts';

/** One changed region: 0-based starts in the old and the new text. */
export interface Edit {
  oldStart: number;
  oldLines: string[];
  newStart: number;
  newLines: string[];
}

export interface Applied {
  text: string;
  /** Old and new lines (endings stripped), for diffs and counts. */
  oldLines: readonly string[];
  newLines: readonly string[];
  edits: Edit[];
}

export interface ApplyOptions {
  /** The path named in error messages. */
  path: string;
  /** Take the first match even when a hunk without anchors matches more than once. */
  firstMatch?: boolean;
  /**
   * Where a hunk of only added lines, with no anchor and no context, goes: at the end of the file
   * (V4A's rule), or at the cursor (undoing a removal that had no context, see applied.ts).
   */
  bareInsertAt?: 'end' | 'cursor';
}

const PREVIEW_LINES = 4;

function quote(text: string, max = 100): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

const PREFIX = { context: ' ', delete: '-', insert: '+' } as const;

/** "hunk 2 of 3 (patch line 14)" and its first lines, as the model wrote them. */
export function describeHunk(hunk: Hunk, no: number, total: number): string {
  const shown = [...hunk.anchors.map((a) => `@@ ${a}`), ...hunk.lines.map((l) => `${PREFIX[l.kind]}${l.text}`)];
  const preview = shown.slice(0, PREVIEW_LINES).map((l) => `    ${l}`);
  if (shown.length > PREVIEW_LINES) preview.push(`    … (${shown.length - PREVIEW_LINES} more lines)`);
  return `hunk ${no} of ${total} (patch line ${hunk.patchLine}):\n${preview.join('\n')}`;
}

function nearMiss(index: LineIndex, pattern: readonly string[]): string {
  const near = closest(index, pattern);
  if (!near) return 'No line of the file resembles it.';
  if (near.matched === 0) {
    return `No line matches it; the line most like ${quote(pattern[near.patternIndex] ?? '')} is line ${near.at + 1}: ${quote(index.lines[near.at] ?? '')}.`;
  }
  const end = near.at + near.matched;
  const span = near.matched === 1 ? `line ${near.at + 1} matches` : `lines ${near.at + 1}-${end} match`;
  const found = index.lines[end];
  const then =
    found === undefined
      ? 'then the file ends'
      : `then line ${end + 1} differs:\n  expected: ${quote(pattern[near.patternIndex] ?? '')}\n  found:    ${quote(found)}`;
  return `Closest: ${span} its first ${near.matched} of ${pattern.length} old lines, ${then}`;
}

const RESEND = 'Re-read the file and resend the hunk with its current lines (context and removed lines must match the file).';

/** Hunk lines without trailing blank context lines (separators the model left in). */
function withoutTrailingBlanks(hunk: Hunk): Hunk | null {
  let end = hunk.lines.length;
  while (end > 0 && hunk.lines[end - 1]?.kind === 'context' && hunk.lines[end - 1]?.text.trim() === '') end--;
  return end < hunk.lines.length && end > 0 ? { ...hunk, lines: hunk.lines.slice(0, end) } : null;
}

interface Placement {
  hunk: Hunk;
  at: number;
}

function findOld(index: LineIndex, hunk: Hunk, from: number, unique: boolean): Located {
  const old = oldSide(hunk);
  return hunk.endOfFile ? locateAtEnd(index, old, from) : locate(index, old, from, unique);
}

/** Where a hunk goes, searching from `cursor` (the end of the previous hunk). Throws PatchError. */
function place(index: LineIndex, hunk: Hunk, cursor: number, label: () => string, opts: ApplyOptions): Placement {
  let from = cursor;
  for (const [k, anchor] of hunk.anchors.entries()) {
    let at = findAnchor(index, anchor, from);
    // A later hunk may name the same function as the previous one, which lies behind the cursor.
    if (at < 0 && k === 0) at = findAnchorBefore(index, anchor, from);
    if (at < 0) {
      const where = from > 0 ? ` after line ${from}` : '';
      throw new PatchError(
        'match',
        `${opts.path}: ${label()}\nIts anchor ${quote(`@@ ${anchor}`)} was not found${where}. ${nearMiss(index, [anchor])}\n${RESEND}`,
      );
    }
    from = Math.max(at + 1, cursor);
  }
  if (oldSide(hunk).length === 0) {
    // Only added lines: after the last anchor, else at the end of the file.
    if (hunk.endOfFile) return { hunk, at: index.length };
    return { hunk, at: hunk.anchors.length > 0 || opts.bareInsertAt === 'cursor' ? from : index.length };
  }
  const unique = !opts.firstMatch && hunk.anchors.length === 0;
  let located = findOld(index, hunk, from, unique);
  let used = hunk;
  const trimmed = located.found ? null : withoutTrailingBlanks(hunk);
  if (trimmed) {
    const retry = findOld(index, trimmed, from, unique);
    if (retry.found) [located, used] = [retry, trimmed];
  }
  if (located.found) return { hunk: used, at: located.at };
  if (located.ambiguous) {
    const [a, b] = located.ambiguous;
    throw new PatchError(
      'match',
      `${opts.path}: ${label()}\nIt matches more than once (at lines ${a + 1} and ${b + 1}), so the place to change is ambiguous. ` +
        "Add an '@@ <line>' anchor naming a line above the change (such as the enclosing function or class) or more context lines.",
    );
  }
  const old = oldSide(hunk);
  if (hunk.endOfFile) {
    const tail = index.lines
      .slice(-Math.min(3, index.length))
      .map((l) => `    ${l}`)
      .join('\n');
    throw new PatchError(
      'match',
      `${opts.path}: ${label()}\nIt is marked '*** End of File' but its old lines are not the last lines of the file, which ends with:\n${tail}\n${RESEND}`,
    );
  }
  const after = from > 0 ? ` after line ${from}` : '';
  throw new PatchError('match', `${opts.path}: ${label()}\nIts old lines were not found${after}. ${nearMiss(index, old)}\n${RESEND}`);
}

/** Applies hunks to `text` (an update's pre-image) and returns the new text. Throws PatchError. */
export function applyHunks(text: string, hunks: readonly Hunk[], opts: ApplyOptions): Applied {
  const file = splitLines(text);
  const index = new LineIndex(file.lines);
  const outLines: string[] = [];
  const outEols: Eol[] = [];
  const edits: Edit[] = [];
  let pos = 0;
  let open: Edit | null = null;
  const copyThrough = (end: number): void => {
    for (; pos < end; pos++) {
      outLines.push(itemAt(file.lines, pos));
      outEols.push(itemAt(file.eols, pos));
    }
  };
  for (const [i, raw] of hunks.entries()) {
    const { hunk, at } = place(index, raw, pos, () => describeHunk(raw, i + 1, hunks.length), opts);
    copyThrough(at);
    for (const line of hunk.lines) {
      if (line.kind === 'context') {
        open = null;
        copyThrough(pos + 1);
        continue;
      }
      if (!open) {
        open = { oldStart: pos, oldLines: [], newStart: outLines.length, newLines: [] };
        edits.push(open);
      }
      if (line.kind === 'delete') {
        open.oldLines.push(itemAt(file.lines, pos));
        pos++;
      } else {
        open.newLines.push(line.text);
        outLines.push(line.text);
        outEols.push('');
      }
    }
    open = null;
  }
  copyThrough(file.lines.length);
  return { text: joinLines(outLines, outEols, file), oldLines: file.lines, newLines: outLines, edits };
}

/** Hunks that only add lines at the end of the file, one after the other, act as one. */
function mergeAppends(hunks: readonly Hunk[]): Hunk[] {
  const merged: Hunk[] = [];
  for (const hunk of hunks) {
    const prev = merged[merged.length - 1];
    const isAppend = (h: Hunk): boolean => h.anchors.length === 0 && oldSide(h).length === 0;
    if (prev && isAppend(prev) && isAppend(hunk)) merged[merged.length - 1] = { ...prev, lines: [...prev.lines, ...hunk.lines] };
    else merged.push(hunk);
  }
  return merged;
}

/**
 * The hunks that undo these: added and removed lines swap sides. A hunk that appended at the
 * end of the file must be found at the end when undone.
 */
export function reverseHunks(hunks: readonly Hunk[]): Hunk[] {
  return mergeAppends(hunks).map((hunk) => ({
    ...hunk,
    endOfFile: hunk.endOfFile || (hunk.anchors.length === 0 && oldSide(hunk).length === 0),
    lines: hunk.lines.map((l) => (l.kind === 'context' ? l : { kind: l.kind === 'insert' ? 'delete' : 'insert', text: l.text })),
  }));
}
