// Terminal column widths: how many cells a character or a styled string takes, so lines can be
// folded and wrapped before the terminal wraps them itself. Approximate on purpose (no Unicode
// tables in the bundle): combining marks and zero-width characters take 0 cells, East Asian wide
// characters and emoji 2, everything else 1. A wrong guess only moves a fold by a cell.

/** Ranges [from, to] of code points that take no cell. */
const ZERO_WIDTH: readonly [number, number][] = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
  [0xfeff, 0xfeff],
  [0xe0100, 0xe01ef],
];

/** Ranges of code points that take two cells (CJK, Hangul, full-width forms, emoji). */
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f251],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

function inRanges(cp: number, ranges: readonly [number, number][]): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid];
    if (!r) return false;
    if (cp < r[0]) hi = mid - 1;
    else if (cp > r[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Cells one code point takes (controls are never measured here: the sanitiser removed them). */
export function charWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if (inRanges(cp, ZERO_WIDTH)) return 0;
  return inRanges(cp, WIDE) ? 2 : 1;
}

/** A CSI sequence (SGR among them): zero cells. */
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/y;

/** Cells a string takes on screen; SGR colour sequences in it take none. */
export function stringWidth(s: string): number {
  // Plain ASCII without escapes is the common case: its width is its length.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let width = 0;
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) === 0x1b) {
      CSI.lastIndex = i;
      const m = CSI.exec(s);
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    const cp = s.codePointAt(i) ?? 0;
    width += charWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return width;
}

/**
 * Splits a styled string into rows of at most `width` cells, breaking at spaces where it can and
 * inside a word only when the word alone is wider than a row. SGR sequences stay with the text
 * they style; the caller closes and reopens styles across rows if it needs to.
 */
export function wrapWords(s: string, width: number): string[] {
  const w = Math.max(1, width);
  if (stringWidth(s) <= w) return [s];
  const rows: string[] = [];
  let row = '';
  let rowWidth = 0;
  for (const token of s.split(/( +)/)) {
    if (token === '') continue;
    const tw = stringWidth(token);
    if (/^ +$/.test(token)) {
      // Spaces at a break vanish; elsewhere they separate words.
      if (rowWidth > 0 && rowWidth + tw < w) {
        row += token;
        rowWidth += tw;
      } else if (rowWidth > 0) {
        rows.push(row);
        row = '';
        rowWidth = 0;
      }
      continue;
    }
    if (rowWidth + tw <= w) {
      row += token;
      rowWidth += tw;
      continue;
    }
    if (rowWidth > 0) {
      rows.push(row.trimEnd());
      row = '';
      rowWidth = 0;
    }
    for (const piece of splitToWidth(token, w)) {
      if (rowWidth > 0) rows.push(row);
      row = piece;
      rowWidth = stringWidth(piece);
    }
  }
  if (row !== '' || rows.length === 0) rows.push(row.trimEnd());
  return rows;
}

/** Hard-splits one word into pieces of at most `width` cells, keeping escape sequences whole. */
export function splitToWidth(s: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let pieceWidth = 0;
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) === 0x1b) {
      CSI.lastIndex = i;
      const m = CSI.exec(s);
      if (m) {
        piece += m[0];
        i += m[0].length;
        continue;
      }
    }
    const cp = s.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    const cw = charWidth(cp);
    if (pieceWidth + cw > width && pieceWidth > 0) {
      pieces.push(piece);
      piece = '';
      pieceWidth = 0;
    }
    piece += ch;
    pieceWidth += cw;
    i += ch.length;
  }
  if (piece !== '' || pieces.length === 0) pieces.push(piece);
  return pieces;
}

/** Pads a styled string with spaces to `width` cells (for table columns). */
export function padToWidth(s: string, width: number, align: 'left' | 'right' | 'center' = 'left'): string {
  const gap = Math.max(0, width - stringWidth(s));
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(gap >> 1) + s + ' '.repeat(gap - (gap >> 1));
  return s + ' '.repeat(gap);
}
