import { describe, expect, it } from 'vitest';
import { parseKeys } from './keys.ts';
import { expandPastes, type PasteStore } from './paste.ts';
import { reduce, type ComposerEnv, type Effect } from './reduce.ts';
import { EMPTY, type ComposerState } from './state.ts';

function env(history: string[] = [], candidates: string[] = []): ComposerEnv {
  return { history, pastes: new Map(), complete: (_t, cursor) => ({ start: cursor - (candidates[0] === undefined ? 0 : 1), candidates }) };
}

/** Feeds raw terminal input through the parser and the reducer. */
function type(raw: string, e = env(), from: ComposerState = EMPTY): { state: ComposerState; effects: Effect[] } {
  let state = from;
  const effects: Effect[] = [];
  for (const key of parseKeys(raw)) {
    const step = reduce(state, key, e);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

describe('parseKeys', () => {
  it('keeps escape sequences whole and text together', () => {
    expect(parseKeys('ab\x1b[Dc\x1b\r\r')).toEqual([
      { kind: 'text', text: 'ab' },
      { kind: 'key', name: 'left' },
      { kind: 'text', text: 'c' },
      { kind: 'key', name: 'newline' },
      { kind: 'key', name: 'enter' },
    ]);
    expect(parseKeys('\x1b')).toEqual([{ kind: 'key', name: 'esc' }]);
    expect(parseKeys('\x1b[1;5D\x1b[15~x')).toEqual([
      { kind: 'key', name: 'wordLeft' },
      { kind: 'text', text: 'x' },
    ]);
  });
});

describe('composer keys', () => {
  it('Enter sends; Alt-Enter, Ctrl-J and \\+Enter insert a newline', () => {
    const r = type('one\x1b\rtwo\nthree\\\rfour\r');
    expect(r.effects).toEqual([{ kind: 'submit', text: 'one\ntwo\nthree\nfour' }]);
    expect(r.state).toEqual(EMPTY);
  });

  it('arrows move over lines at the same column, history only at the edges', () => {
    const e = env(['older']);
    let r = type('abcd\nxy\x1b[A', e);
    expect(r.state.cursor).toBe(2);
    r = type('\x1b[C\x1b[B', e, r.state);
    expect(r.state.cursor).toBe(7);
    r = type('\x1b[A\x1b[A', e, r.state);
    expect(r.state.text).toBe('older');
    r = type('\x1b[B', e, r.state);
    expect(r.state.text).toBe('abcd\nxy');
  });

  it('Ctrl-R finds older entries containing the query; Esc gives the draft back', () => {
    const e = env(['git status', 'make test', 'git push']);
    let r = type('draft\x12git', e);
    expect(r.state.text).toBe('git status');
    r = type('\x12', e, r.state);
    expect(r.state.text).toBe('git push');
    const taken = type('\r', e, r.state);
    expect(taken.effects).toEqual([]);
    expect(taken.state.text).toBe('git push');
    expect(taken.state.search).toBeUndefined();
    r = type('\x1b', e, r.state);
    expect(r.state.text).toBe('draft');
  });

  it('Ctrl-C clears a non-empty line and says so; Ctrl-D on an empty one is end of input', () => {
    expect(type('abc\x03').effects).toEqual([{ kind: 'interrupt', hadText: true }]);
    expect(type('\x03').effects).toEqual([{ kind: 'interrupt', hadText: false }]);
    expect(type('\x04').effects).toEqual([{ kind: 'eof' }]);
    expect(type('ab\x01\x04').state.text).toBe('b');
  });

  it('Esc-Esc empties the composer; one Esc does not', () => {
    expect(type('hello\x1b').state.text).toBe('hello');
    expect(type('hello\x1b\x1b').state.text).toBe('');
    expect(type('hello\x1bx\x1b').state.text).toBe('hellox');
  });

  it('Ctrl-U, Ctrl-K, Ctrl-W and Home/End act on the current line', () => {
    expect(type('abc\ndef\x15').state.text).toBe('abc\n');
    expect(type('abc def\x17').state.text).toBe('abc ');
    expect(type('abc\x01\x0b').state.text).toBe('');
    expect(type('ab\ncd\x1b[Hx\x1b[Fy').state.text).toBe('ab\nxcdy');
  });

  it('Tab completes one candidate with a space, lists several', () => {
    expect(type('x\t', env([], ['xyz'])).state.text).toBe('xyz ');
    expect(type('x\t', env([], ['dir/'])).state.text).toBe('dir/');
    const several = type('x\t', env([], ['xa', 'xb']));
    expect(several.state.completions).toEqual(['xa', 'xb']);
    expect(type('q', env(), several.state).state.completions).toBeUndefined();
  });

  it('a large paste shows as a placeholder and is sent in full', () => {
    const pastes: PasteStore = new Map();
    const e = { ...env(), pastes };
    const big = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    let s = type('see ', e).state;
    s = reduce(s, { kind: 'paste', text: big }, e).state;
    expect(s.text).toBe('see [pasted: 12 lines, 85 bytes]');
    const sent = type('\r', e, s).effects[0];
    expect(sent?.kind === 'submit' && expandPastes(sent.text, pastes)).toBe(`see ${big}`);
    const small = reduce(EMPTY, { kind: 'paste', text: 'a\nb' }, e).state;
    expect(small.text).toBe('a\nb');
  });

  it('different pastes of the same size get different placeholders', () => {
    const pastes: PasteStore = new Map();
    const e = { ...env(), pastes };
    const a = reduce(EMPTY, { kind: 'paste', text: 'a'.repeat(2000) }, e).state;
    const b = reduce(a, { kind: 'paste', text: 'b'.repeat(2000) }, e).state;
    expect(b.text).toBe('[pasted: 1 line, 2 KB][pasted #2: 1 line, 2 KB]');
    expect(expandPastes(b.text, pastes)).toBe('a'.repeat(2000) + 'b'.repeat(2000));
  });
});
