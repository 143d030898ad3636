// The `@` file finder as pure state: while the word at the cursor starts with `@`, the best
// project paths for what follows it are listed under the composer; ↑/↓ choose, Tab or Enter put
// the chosen path in the message (`@path `), Esc closes the list for that word. Tab and Enter
// act as usual when nothing is listed (no match, or the file list is still being read).
import type { KeyName } from './keys.ts';
import { withText, type ComposerState, type FileFinder } from './state.ts';

/** Rows the finder shows at most. */
export const FINDER_ROWS = 8;

export interface FinderEnv {
  /** Best first, at most `limit`; undefined while the list is not known yet. Absent: no finder. */
  findFiles?(query: string, limit: number): readonly string[] | undefined;
}

/** The `@word` the cursor is in or right after: where its query starts, and the query so far. */
export function mentionAt(text: string, cursor: number): { start: number; query: string } | undefined {
  let at = cursor;
  while (at > 0 && !/\s/.test(text[at - 1] ?? '')) at--;
  if (text[at] !== '@') return undefined;
  const query = text.slice(at + 1, cursor);
  // Absolute and home paths are Tab's (completion from the file system), not the project list's.
  if (query.startsWith('/') || query.startsWith('~')) return undefined;
  return { start: at + 1, query };
}

/** The finder for the state's text and cursor (recomputed when the word changed, or `force`). */
export function withFinder(state: ComposerState, env: FinderEnv, force = false): ComposerState {
  const word = env.findFiles && !state.search ? mentionAt(state.text, state.cursor) : undefined;
  if (!word) return state.finder === undefined && state.finderClosed === undefined ? state : { ...state, finder: undefined, finderClosed: undefined };
  if (state.finderClosed === word.start) return state.finder === undefined ? state : { ...state, finder: undefined };
  const prev = state.finder;
  const same = prev !== undefined && prev.start === word.start && prev.query === word.query;
  if (same && !force && prev.matches !== undefined) return state;
  const matches = env.findFiles?.(word.query, FINDER_ROWS);
  const selected = same && matches !== undefined ? Math.min(prev.selected, Math.max(0, matches.length - 1)) : 0;
  return { ...state, finder: { ...word, matches, selected }, finderClosed: undefined };
}

/** A key while the finder is open; undefined when the key is not the finder's (it acts as usual). */
export function finderKey(s: ComposerState, finder: FileFinder, name: KeyName): ComposerState | undefined {
  const count = finder.matches?.length ?? 0;
  switch (name) {
    case 'up':
    case 'down': {
      if (count === 0) return undefined;
      const step = name === 'up' ? -1 : 1;
      return { ...s, finder: { ...finder, selected: (finder.selected + step + count) % count } };
    }
    case 'tab':
    case 'enter': {
      const picked = finder.matches?.[finder.selected];
      return picked === undefined ? undefined : pick(s, finder.start, picked);
    }
    case 'esc':
      return { ...s, finder: undefined, finderClosed: finder.start };
    default:
      return undefined;
  }
}

/** The `@word` (all of it, also past the cursor) becomes `@path `. */
function pick(s: ComposerState, start: number, path: string): ComposerState {
  let end = s.cursor;
  while (end < s.text.length && !/\s/.test(s.text[end] ?? '')) end++;
  const rest = s.text.slice(end);
  const tail = rest.startsWith(' ') ? '' : ' ';
  const text = s.text.slice(0, start) + path + tail + rest;
  return { ...withText(s, text, start + path.length + tail.length), finder: undefined, finderClosed: start };
}
