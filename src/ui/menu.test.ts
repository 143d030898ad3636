import { describe, expect, it } from 'vitest';
import { MenuModel, parseKeys, selectFromMenu, type KeySource } from './menu.ts';
import { PLAIN_THEME } from './theme.ts';

function fakeKeys(): KeySource & { send(data: string): void; listeners: number } {
  let handler: ((d: string) => void) | undefined;
  return {
    subscribe(h) { handler = h; return () => { handler = undefined; }; },
    send(d) { handler?.(d); },
    get listeners() { return handler ? 1 : 0; },
  };
}

describe('parseKeys', () => {
  it('reads arrows, digits, enter, esc and ctrl-c', () => {
    expect(parseKeys('\x1b[A\x1bOB12\r').map((k) => k.kind)).toEqual(['up', 'down', 'digit', 'digit', 'enter']);
    expect(parseKeys('\x1b')).toEqual([{ kind: 'cancel' }]);
    expect(parseKeys('\x03')).toEqual([{ kind: 'cancel' }]);
    expect(parseKeys('\x1b[15~')).toEqual([{ kind: 'other' }]);
  });
});

describe('MenuModel', () => {
  it('selects by typed number, restarting on an impossible one', () => {
    const m = new MenuModel(20);
    m.press({ kind: 'digit', digit: '1' });
    m.press({ kind: 'digit', digit: '2' });
    expect(m.selected).toBe(11);
    m.press({ kind: 'digit', digit: '5' });
    expect(m.typed).toBe('5');
    expect(m.selected).toBe(4);
  });
  it('wraps arrows and ignores 0', () => {
    const m = new MenuModel(3);
    m.press({ kind: 'up' });
    expect(m.selected).toBe(2);
    m.press({ kind: 'down' });
    expect(m.selected).toBe(0);
    m.press({ kind: 'digit', digit: '0' });
    expect(m.selected).toBe(0);
    expect(m.press({ kind: 'enter' })).toBe('choose');
  });
});

describe('selectFromMenu', () => {
  it('resolves with the chosen index and releases the keys', async () => {
    const keys = fakeKeys();
    let screen = '';
    const p = selectFromMenu({ out: { write: (s: string) => { screen += s; } }, keys, theme: PLAIN_THEME }, { title: 'Pick', items: ['a', 'b', 'c'] });
    keys.send('\x1b[B');
    keys.send('\x1b[B');
    keys.send('\r');
    await expect(p).resolves.toBe(2);
    expect(keys.listeners).toBe(0);
    expect(screen).toContain('❯ 3. c');
  });
  it('cancels on Esc', async () => {
    const keys = fakeKeys();
    const p = selectFromMenu({ out: { write: () => undefined }, keys, theme: PLAIN_THEME }, { title: 'Pick', items: ['a'] });
    keys.send('\x1b');
    await expect(p).resolves.toBeNull();
  });
});
