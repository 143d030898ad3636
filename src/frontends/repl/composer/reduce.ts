// The composer as a pure reducer: state + key → state + effects. No terminal here: the screen
// (prompt-input.ts) draws the state, the REPL acts on the effects.
import type { Key, KeyName } from './keys.ts';
import { finderKey, withFinder, type FinderEnv } from './finder.ts';
import { isLargePaste, placeholderFor, type PasteStore } from './paste.ts';
import {
  browse,
  deleteRange,
  EMPTY,
  findInHistory,
  insert,
  lineBounds,
  verticalMove,
  withText,
  wordEndAfter,
  wordStartBefore,
  type ComposerState,
} from './state.ts';

export type Effect =
  | { kind: 'submit'; text: string }
  | { kind: 'eof' }
  | { kind: 'interrupt'; hadText: boolean }
  | { kind: 'showLastOutput' }
  | { kind: 'clearScreen' };

export interface Completion {
  /** Index where the completed word starts. */
  start: number;
  candidates: string[];
}

export interface ComposerEnv extends FinderEnv {
  /** Newest first. */
  readonly history: readonly string[];
  readonly pastes: PasteStore;
  complete(text: string, cursor: number): Completion;
}

export interface Step {
  state: ComposerState;
  effects: Effect[];
}

export function reduce(state: ComposerState, key: Key, env: ComposerEnv): Step {
  const step = edit(state, key, env);
  return { ...step, state: withFinder(step.state, env) };
}

function edit(state: ComposerState, key: Key, env: ComposerEnv): Step {
  const s: ComposerState = { ...state, completions: undefined, escArmed: false };
  if (s.search) return searchKey(s, key, env);
  if (key.kind === 'text') return only(insert(s, key.text));
  if (key.kind === 'paste') return only(insert(s, isLargePaste(key.text) ? placeholderFor(key.text, env.pastes) : key.text));
  const inFinder = state.finder ? finderKey(s, state.finder, key.name) : undefined;
  if (inFinder) return only(inFinder);
  return named(s, key.name, env, state.escArmed);
}

function only(state: ComposerState, ...effects: Effect[]): Step {
  return { state, effects };
}

function named(s: ComposerState, name: KeyName, env: ComposerEnv, escArmed: boolean): Step {
  const { text, cursor } = s;
  switch (name) {
    case 'enter':
      // `\` + Enter: a newline, as in a shell.
      if (cursor > 0 && text[cursor - 1] === '\\') return only(insert(deleteRange(s, cursor - 1, cursor), '\n'));
      return only(EMPTY, { kind: 'submit', text });
    case 'newline':
      return only(insert(s, '\n'));
    case 'backspace':
      return only(deleteRange(s, cursor - 1, cursor));
    case 'delete':
      return only(deleteRange(s, cursor, cursor + 1));
    case 'left':
      return only(withText(s, text, cursor - 1));
    case 'right':
      return only(withText(s, text, cursor + 1));
    case 'home':
      return only(withText(s, text, lineBounds(text, cursor).start));
    case 'end':
      return only(withText(s, text, lineBounds(text, cursor).end));
    case 'wordLeft':
      return only(withText(s, text, wordStartBefore(text, cursor)));
    case 'wordRight':
      return only(withText(s, text, wordEndAfter(text, cursor)));
    case 'deleteWordBack':
      return only(deleteRange(s, wordStartBefore(text, cursor), cursor));
    case 'killLineStart': {
      const start = lineBounds(text, cursor).start;
      // At a line start, Ctrl-U joins it with the line above (else it could never empty a message).
      return only(deleteRange(s, start === cursor ? Math.max(0, start - 1) : start, cursor));
    }
    case 'killLineEnd': {
      const end = lineBounds(text, cursor).end;
      return only(deleteRange(s, cursor, end === cursor ? Math.min(text.length, end + 1) : end));
    }
    case 'up': {
      const to = verticalMove(text, cursor, -1);
      return only(to === undefined ? browse(s, env.history, 1) : withText(s, text, to));
    }
    case 'down': {
      const to = verticalMove(text, cursor, 1);
      return only(to === undefined ? browse(s, env.history, -1) : withText(s, text, to));
    }
    case 'ctrlC':
      return only(EMPTY, { kind: 'interrupt', hadText: text.length > 0 });
    case 'ctrlD':
      if (text.length === 0) return only(s, { kind: 'eof' });
      return only(deleteRange(s, cursor, cursor + 1));
    case 'ctrlR':
      return only({ ...s, search: { query: '', match: undefined, before: { text, cursor } } });
    case 'ctrlL':
      return only(s, { kind: 'clearScreen' });
    case 'ctrlO':
      return only(s, { kind: 'showLastOutput' });
    case 'ctrlG':
      return only(s);
    case 'tab':
      return complete(s, env);
    case 'esc':
      // Esc-Esc empties the composer (a queued message taken back lands here too).
      if (escArmed) return only({ ...EMPTY, historyIndex: -1 });
      return only({ ...s, escArmed: true });
  }
}

function complete(s: ComposerState, env: ComposerEnv): Step {
  const { start, candidates } = env.complete(s.text, s.cursor);
  if (candidates.length === 0) return only(s);
  const typed = s.text.slice(start, s.cursor);
  const common = commonPrefix(candidates);
  const rest = s.text.slice(s.cursor);
  if (candidates.length === 1) {
    const done = candidates[0] ?? '';
    // A directory stays open for the next Tab; a finished word gets its space.
    const tail = done.endsWith('/') || rest.startsWith(' ') ? '' : ' ';
    return only(withText(s, s.text.slice(0, start) + done + tail + rest, start + done.length + tail.length));
  }
  if (common.length > typed.length) return only(withText(s, s.text.slice(0, start) + common + rest, start + common.length));
  return only({ ...s, completions: candidates });
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? '';
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** Ctrl-R: typing narrows, Ctrl-R goes older, Enter or a movement key takes the match, Esc/Ctrl-G cancel. */
function searchKey(s: ComposerState, key: Key, env: ComposerEnv): Step {
  const search = s.search;
  if (!search) return only(s);
  const show = (query: string, from: number): Step => {
    const match = findInHistory(env.history, query, from);
    const shown = match === undefined ? s : withText(s, env.history[match] ?? '');
    return only({ ...shown, search: { ...search, query, match: match ?? (query === search.query ? search.match : undefined) } });
  };
  if (key.kind === 'text' || key.kind === 'paste') return show(search.query + key.text.replace(/\n/g, ' '), 0);
  switch (key.name) {
    case 'ctrlR':
      return show(search.query, (search.match ?? -1) + 1);
    case 'backspace':
      return show(search.query.slice(0, -1), 0);
    case 'esc':
    case 'ctrlG':
    case 'ctrlC':
      return only({ ...withText(s, search.before.text, search.before.cursor), search: undefined });
    case 'enter':
      return only({ ...s, search: undefined, historyIndex: search.match ?? s.historyIndex });
    default: {
      // Any other key takes the match and then acts as usual.
      const taken: ComposerState = { ...s, search: undefined };
      return reduce(taken, key, env);
    }
  }
}
