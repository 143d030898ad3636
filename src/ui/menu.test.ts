import { describe, expect, it } from 'vitest';
import { MenuModel, parseKeys, selectFromMenu, type KeySource } from './menu.ts';
import { PLAIN_THEME } from './theme.ts';

function fakeKeys(): KeySource & { send(data: string): void; resume(): void; listeners: number } {
  let handler: ((d: string) => void) | undefined;
  let onResume: (() => void) | undefined;
  return {
    subscribe(h) {
      handler = h;
      return () => {
        handler = undefined;
      };
    },
    subscribeResume(h) {
      onResume = h;
      return () => {
        onResume = undefined;
      };
    },
    send(d) {
      handler?.(d);
    },
    resume() {
      onResume?.();
    },
    get listeners() {
      return handler ? 1 : 0;
    },
  };
}

/** A menu on a fake terminal: what it wrote, and whether it has answered. */
function openMenu(items: Parameters<typeof selectFromMenu>[1]['items'], initial = 0) {
  const keys = fakeKeys();
  let screen = '';
  let answered = false;
  const result = selectFromMenu(
    {
      out: {
        write: (s: string) => {
          screen += s;
        },
      },
      keys,
      theme: PLAIN_THEME,
    },
    { title: 'Pick', items, initial },
  );
  void result.then(() => {
    answered = true;
  });
  return { keys, result, screen: () => screen, answered: () => answered };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('parseKeys', () => {
  it('reads arrows, digits, enter, esc and ctrl-c', () => {
    expect(parseKeys('\x1b[A\x1bOB12\r').map((k) => k.kind)).toEqual(['up', 'down', 'char', 'char', 'enter']);
    expect(parseKeys('\x1b')).toEqual([{ kind: 'cancel' }]);
    expect(parseKeys('\x03')).toEqual([{ kind: 'cancel' }]);
    expect(parseKeys('\x1b[15~')).toEqual([{ kind: 'other' }]);
  });
  it('reads letters as text, not as moves', () => {
    expect(parseKeys('jk')).toEqual([
      { kind: 'char', char: 'j' },
      { kind: 'char', char: 'k' },
    ]);
  });
  it('reads a bracketed paste as text whose newlines are not Enter', () => {
    const kinds = parseKeys('\x1b[200~clear it\nnow\x1b[201~').map((k) => k.kind);
    expect(kinds).not.toContain('enter');
    expect(kinds).toHaveLength('clear it now'.length);
  });
});

describe('MenuModel', () => {
  it('selects by typed number and follows it with the highlight', () => {
    const m = new MenuModel(20);
    m.press({ kind: 'char', char: '1' });
    m.press({ kind: 'char', char: '2' });
    expect(m.selected).toBe(11);
    expect(m.press({ kind: 'enter' })).toBe('choose');
    expect(m.selected).toBe(11);
  });
  it('wraps arrows; Enter with nothing typed takes the highlighted choice', () => {
    const m = new MenuModel(3);
    m.press({ kind: 'up' });
    expect(m.selected).toBe(2);
    m.press({ kind: 'down' });
    expect(m.selected).toBe(0);
    expect(m.press({ kind: 'enter' })).toBe('choose');
  });
  it('rejects text that is not a listed number instead of guessing', () => {
    for (const typed of ['hello there', '0', '4', '25', '1a', 'clear']) {
      const m = new MenuModel(3, 1);
      for (const ch of typed) m.press({ kind: 'char', char: ch });
      expect(m.press({ kind: 'enter' }), typed).toBe('invalid');
      expect(m.selected, typed).toBe(typed === '1a' ? 0 : 1);
    }
  });
});

describe('selectFromMenu', () => {
  it('resolves with the chosen index and releases the keys', async () => {
    const m = openMenu(['a', 'b', 'c']);
    m.keys.send('\x1b[B');
    m.keys.send('\x1b[B');
    m.keys.send('\r');
    await expect(m.result).resolves.toBe(2);
    expect(m.keys.listeners).toBe(0);
    expect(m.screen()).toContain('❯ 3. c');
  });

  it('cancels on Esc', async () => {
    const m = openMenu(['a']);
    m.keys.send('\x1b');
    await expect(m.result).resolves.toBeNull();
  });

  it('rejects a typed sentence with a hint and asks again', async () => {
    const m = openMenu(['Retry', 'Clear'], 0);
    m.keys.send('please keep my session');
    m.keys.send('\r');
    await tick();
    expect(m.answered()).toBe(false);
    expect(m.screen()).toContain('"please keep my session" is not a choice: type a number from 1 to 2');
    m.keys.send('1\r');
    await expect(m.result).resolves.toBe(0);
  });

  it('asks for "yes" before a destructive choice; anything else goes back to the menu', async () => {
    const m = openMenu(['Retry', { label: 'Clear', confirm: 'Delete the session?' }]);
    m.keys.send('2\r');
    await tick();
    expect(m.answered()).toBe(false);
    expect(m.screen()).toContain('Delete the session? Type "yes" to confirm');
    m.keys.send('y\r');
    await tick();
    expect(m.answered()).toBe(false);
    expect(m.screen()).toContain('Not confirmed: nothing was done');
    m.keys.send('\r'); // Clear is still highlighted: asks again
    m.keys.send('\x1b'); // Esc goes back to the menu, it does not choose
    await tick();
    expect(m.answered()).toBe(false);
    m.keys.send('2\ryes\r');
    await expect(m.result).resolves.toBe(1);
  });

  it('shows labels without their escape sequences', async () => {
    const m = openMenu(['"\x1b]0;title\x07hi\x1b[2J" → "ok"']);
    m.keys.send('\r');
    await m.result;
    expect(m.screen()).not.toContain('\x1b]0');
    expect(m.screen()).not.toContain('\x1b[2J');
    expect(m.screen()).toContain('"hi" → "ok"');
  });

  it('draws itself again after the terminal comes back (fg)', async () => {
    const m = openMenu(['a', 'b']);
    const before = m.screen().split('1. a').length;
    m.keys.resume();
    expect(m.screen().split('1. a').length).toBe(before + 1);
    m.keys.send('\r');
    await expect(m.result).resolves.toBe(0);
  });
});
