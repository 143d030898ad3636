// The composer's state and the pure edits on it: multi-line text with a cursor (an index into
// the text), history browsing, the Ctrl-R search, pasted blocks shown as placeholders.

export interface ComposerState {
  readonly text: string;
  /** Index into `text` (0…text.length). */
  readonly cursor: number;
  /** -1 while editing the draft; otherwise the history entry shown (0 = newest). */
  readonly historyIndex: number;
  /** What was typed before ↑ started browsing; ↓ past the newest entry brings it back. */
  readonly draft: string;
  readonly search?: HistorySearch;
  /** Candidates of the last Tab with several matches, shown until the next key. */
  readonly completions?: readonly string[];
  /** The previous key was a lone Esc (Esc-Esc clears the composer). */
  readonly escArmed: boolean;
  /** The `@` file finder, open while the word at the cursor starts with `@` (finder.ts). */
  readonly finder?: FileFinder;
  /** Where the `@` word starts whose finder Esc closed (it stays closed for that word). */
  readonly finderClosed?: number;
}

export interface FileFinder {
  /** Index just after the `@`. */
  readonly start: number;
  readonly query: string;
  /** Best first; undefined while the project's file list is still being read. */
  readonly matches: readonly string[] | undefined;
  readonly selected: number;
}

export interface HistorySearch {
  readonly query: string;
  /** History index of the match shown, if any. */
  readonly match: number | undefined;
  /** The composer as it was when the search began (Esc gives it back). */
  readonly before: { text: string; cursor: number };
}

export const EMPTY: ComposerState = { text: '', cursor: 0, historyIndex: -1, draft: '', escArmed: false };

export function withText(s: ComposerState, text: string, cursor = text.length): ComposerState {
  return { ...s, text, cursor: Math.max(0, Math.min(cursor, text.length)) };
}

export function insert(s: ComposerState, piece: string): ComposerState {
  return withText(s, s.text.slice(0, s.cursor) + piece + s.text.slice(s.cursor), s.cursor + piece.length);
}

export function deleteRange(s: ComposerState, from: number, to: number): ComposerState {
  const a = Math.max(0, Math.min(from, to));
  const b = Math.min(s.text.length, Math.max(from, to));
  return withText(s, s.text.slice(0, a) + s.text.slice(b), a);
}

/** Start and end index of the logical line holding `at`. */
export function lineBounds(text: string, at: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const nl = text.indexOf('\n', at);
  return { start, end: nl === -1 ? text.length : nl };
}

/** The cursor one logical line up or down at the same column (clamped); undefined at the edge. */
export function verticalMove(text: string, cursor: number, direction: -1 | 1): number | undefined {
  const { start, end } = lineBounds(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return undefined;
    const prev = lineBounds(text, start - 1);
    return Math.min(prev.start + column, prev.end);
  }
  if (end === text.length) return undefined;
  const next = lineBounds(text, end + 1);
  return Math.min(next.start + column, next.end);
}

const WORD = /[\p{L}\p{N}_]/u;

export function wordStartBefore(text: string, cursor: number): number {
  let i = cursor;
  while (i > 0 && !WORD.test(text[i - 1] ?? '')) i--;
  while (i > 0 && WORD.test(text[i - 1] ?? '')) i--;
  return i;
}

export function wordEndAfter(text: string, cursor: number): number {
  let i = cursor;
  while (i < text.length && !WORD.test(text[i] ?? '')) i++;
  while (i < text.length && WORD.test(text[i] ?? '')) i++;
  return i;
}

/** One step in the history (+1 older, -1 newer); the draft is kept while browsing. */
export function browse(s: ComposerState, history: readonly string[], step: 1 | -1): ComposerState {
  const next = s.historyIndex + step;
  if (next >= history.length || next < -1) return s;
  const draft = s.historyIndex === -1 ? s.text : s.draft;
  const text = next === -1 ? draft : (history[next] ?? '');
  return { ...withText(s, text), historyIndex: next, draft };
}

/** The newest history entry at or older than `from` that contains `query` (case-insensitive). */
export function findInHistory(history: readonly string[], query: string, from: number): number | undefined {
  if (query === '') return undefined;
  const q = query.toLowerCase();
  for (let i = Math.max(0, from); i < history.length; i++) if ((history[i] ?? '').toLowerCase().includes(q)) return i;
  return undefined;
}
