// Finding a hunk's lines in a file. Matching gets looser in a fixed order and stops at the first
// level that finds something: exact → ignoring trailing whitespace → ignoring surrounding
// whitespace → also folding common Unicode look-alikes (dashes, quotes, odd spaces) to ASCII.
import { itemAt } from '../../lib/item-at.ts';

export const LEVELS = [0, 1, 2, 3] as const;
export type Level = (typeof LEVELS)[number];

/** The level each looser one loosens. */
const BELOW: Record<Exclude<Level, 0>, Level> = { 1: 0, 2: 1, 3: 2 };

const NON_ASCII = /[^\x00-\x7f]/;
const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018-\u201b]/g;
const DOUBLE_QUOTES = /[\u201c-\u201f]/g;
const SPACES = /[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

/** Folds typographic dashes, quotes and non-breaking/odd-width spaces to their ASCII forms. */
export function foldLookalikes(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(SPACES, ' ');
}

export function normalize(line: string, level: Level): string {
  switch (level) {
    case 0:
      return line;
    case 1:
      return line.trimEnd();
    case 2:
      return line.trim();
    case 3:
      return foldLookalikes(line).trim();
  }
}

/**
 * A cheap fingerprint of a line (FNV-1a over its length, first 8 and last 24 characters): equal
 * lines have equal fingerprints, so a scan compares numbers and only rarely whole strings.
 */
export function lineHash(line: string): number {
  const n = line.length;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  const head = n <= 32 ? n : 8;
  for (let i = 0; i < head; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  for (let i = n <= 32 ? n : n - 24; i < n; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * A file's lines with each looser form and its line hashes, computed once on first use, so
 * placing many hunks in a large file costs one pass over its text plus cheap number scans.
 */
export class LineIndex {
  readonly lines: readonly string[];
  private readonly forms: Array<readonly string[] | undefined> = [];
  private readonly hashes: Array<Int32Array | undefined> = [];
  /** Per level: whether every line reads the same as at the level below (nothing to loosen). */
  private readonly unchanged: Array<boolean | undefined> = [];

  constructor(lines: readonly string[]) {
    this.lines = lines;
  }

  get length(): number {
    return this.lines.length;
  }

  at(level: Level): readonly string[] {
    if (level === 0) return this.lines;
    let form = this.forms[level];
    if (!form) {
      form = this.lines.map((l) => normalize(l, level));
      this.forms[level] = form;
    }
    return form;
  }

  /** True when this level's form of the file equals the previous level's (searching it finds nothing new). */
  sameAsBelow(level: Level): boolean {
    if (level === 0) return false;
    let same = this.unchanged[level];
    if (same === undefined) {
      const below = this.at(BELOW[level]);
      same = this.at(level).every((l, i) => l === below[i]);
      this.unchanged[level] = same;
    }
    return same;
  }

  hashesAt(level: Level): Int32Array {
    let hashes = this.hashes[level];
    if (!hashes) {
      const lines = this.at(level);
      hashes = new Int32Array(lines.length);
      let i = 0;
      for (const line of lines) hashes[i++] = lineHash(line);
      this.hashes[level] = hashes;
    }
    return hashes;
  }
}

function matchesAt(lines: readonly string[], pattern: readonly string[], at: number): boolean {
  for (let k = 0; k < pattern.length; k++) if (lines[at + k] !== pattern[k]) return false;
  return true;
}

/** First index ≥ from where `pattern` occurs at this level, or -1. */
export function findSequence(index: LineIndex, pattern: readonly string[], from: number, level: Level): number {
  const wanted = level === 0 ? pattern : pattern.map((l) => normalize(l, level));
  const first = wanted[0];
  if (first === undefined) return -1;
  const lines = index.at(level);
  const hashes = index.hashesAt(level);
  const head = lineHash(first);
  const last = lines.length - wanted.length;
  for (let i = Math.max(0, from); i <= last; i++) {
    if (hashes[i] === head && matchesAt(lines, wanted, i)) return i;
  }
  return -1;
}

export type Located = { found: true; at: number; level: Level } | { found: false; ambiguous: [number, number] | null };

/**
 * Where `pattern` sits, searching from `from`. With `unique`, a second match at the same level
 * makes the result ambiguous instead of taking the first one.
 */
export function locate(index: LineIndex, pattern: readonly string[], from: number, unique: boolean): Located {
  for (const level of LEVELS) {
    // A level that loosens neither the file nor the pattern would repeat the previous search.
    if (level !== 0 && index.sameAsBelow(level) && pattern.every((l) => normalize(l, level) === normalize(l, BELOW[level]))) continue;
    const at = findSequence(index, pattern, from, level);
    if (at < 0) continue;
    if (unique) {
      const again = findSequence(index, pattern, at + 1, level);
      if (again >= 0) return { found: false, ambiguous: [at, again] };
    }
    return { found: true, at, level };
  }
  return { found: false, ambiguous: null };
}

/**
 * Where `pattern` sits when it must end the file: at the very end, or followed only by blank
 * lines (a trailing empty line the model did not see as a line).
 */
export function locateAtEnd(index: LineIndex, pattern: readonly string[], from: number): Located {
  const lines = index.lines;
  let end = lines.length;
  for (;;) {
    const at = end - pattern.length;
    if (at >= from) {
      for (const level of LEVELS) {
        const wanted = pattern.map((l) => normalize(l, level));
        if (matchesAt(index.at(level), wanted, at)) return { found: true, at, level };
      }
    }
    const previous = lines[end - 1]; // undefined once end reaches 0
    if (previous === undefined || previous.trim() !== '') return { found: false, ambiguous: null };
    end--;
  }
}

/**
 * The line an `@@ anchor` names, from `from` on: equal at the usual levels, then a line that
 * starts with the anchor (models often shorten a signature). -1 when none.
 */
export function findAnchor(index: LineIndex, anchor: string, from: number): number {
  for (const level of LEVELS) {
    const at = findSequence(index, [anchor], from, level);
    if (at >= 0) return at;
  }
  const wanted = normalize(anchor, 3);
  const folded = index.at(3);
  for (let i = Math.max(0, from); i < folded.length; i++) if (itemAt(folded, i).startsWith(wanted)) return i;
  return -1;
}

/** The last line before `before` that an anchor names (a later hunk in the same function). */
export function findAnchorBefore(index: LineIndex, anchor: string, before: number): number {
  const wanted = normalize(anchor, 3);
  const folded = index.at(3);
  for (let i = Math.min(before, folded.length) - 1; i >= 0; i--) {
    const line = itemAt(folded, i);
    if (line === wanted || line.startsWith(wanted)) return i;
  }
  return -1;
}

export interface Closest {
  /** 0-based file line where the best partial match starts. */
  at: number;
  /** How many leading pattern lines match there (at the loosest level). */
  matched: number;
  /** The pattern line that differs (index into the pattern). */
  patternIndex: number;
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const g = text.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

/** Dice similarity of two strings' character bigrams, in [0, 1]. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const ga = bigrams(a);
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const n = ga.get(g) ?? 0;
    if (n > 0) {
      shared++;
      ga.set(g, n - 1);
    }
  }
  return (2 * shared) / (a.length - 1 + b.length - 1);
}

/**
 * The best near miss for a pattern that was not found, to tell the model what the file really
 * says: the longest run of leading pattern lines found, else the line most like a pattern line.
 */
export function closest(index: LineIndex, pattern: readonly string[]): Closest | null {
  const lines = index.at(3);
  const wanted = pattern.map((l) => normalize(l, 3));
  let best: Closest | null = null;
  for (let i = 0; i < lines.length; i++) {
    let k = 0;
    while (k < wanted.length && i + k < lines.length && lines[i + k] === wanted[k]) k++;
    // A blank first line matches everywhere; it is no hint.
    if (k > 0 && (k > 1 || wanted[0] !== '') && (!best || k > best.matched)) best = { at: i, matched: k, patternIndex: k };
  }
  if (best) return best;
  const target = wanted.findIndex((l) => l !== '');
  if (target < 0) return null;
  const probe = itemAt(wanted, target);
  let score = 0;
  for (const [i, line] of lines.entries()) {
    const s = similarity(probe, line);
    if (s > score) {
      score = s;
      best = { at: i, matched: 0, patternIndex: target };
    }
  }
  return score >= 0.3 ? best : null;
}
