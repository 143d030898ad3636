// The one selection menu (/rollback, pending tool calls, failed-request recovery): a numbered
// list; type a number and Enter, or move with the arrows and Enter; Esc or Ctrl-C cancels.
// It never guesses: text that is not a listed number is rejected with a hint and the menu asks
// again, and a destructive choice is only taken after the person types "yes".
// It reads raw key data from a KeySource, so the REPL decides who owns stdin at any moment.
import { sanitizeLine } from './sanitize.ts';
import type { Theme } from './theme.ts';

/** Raw terminal input, delivered as the chunks the terminal sent. */
export interface KeySource {
  subscribe(onData: (data: string) => void): () => void;
  /** Called after the terminal was given back and taken again (Ctrl-Z, then fg): redraw. */
  subscribeResume?(onResume: () => void): () => void;
}

export interface MenuIO {
  out: { write(s: string): unknown; columns?: number };
  keys: KeySource;
  theme: Theme;
}

export interface MenuItem {
  label: string;
  /**
   * Marks a destructive choice: the question asked before it is taken ("Delete …?"); the person
   * must type "yes". Anything else goes back to the menu.
   */
  confirm?: string;
}

export interface MenuOptions {
  title: string;
  items: (string | MenuItem)[];
  /** 0-based index highlighted at first. */
  initial?: number;
}

export type Key = { kind: 'char'; char: string } | { kind: 'up' | 'down' | 'enter' | 'cancel' | 'backspace' | 'home' | 'end' } | { kind: 'other' };

const SEQUENCES: [string, 'up' | 'down' | 'home' | 'end'][] = [
  ['\x1b[A', 'up'],
  ['\x1bOA', 'up'],
  ['\x1b[B', 'down'],
  ['\x1bOB', 'down'],
  ['\x1b[H', 'home'],
  ['\x1bOH', 'home'],
  ['\x1b[F', 'end'],
  ['\x1bOF', 'end'],
];
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

function printable(ch: string): boolean {
  return !/[\x00-\x1f\x7f-\x9f]/.test(ch);
}

/**
 * Splits one chunk of terminal input into keys. A lone ESC (no sequence after it) is Esc.
 * Pasted text (bracketed) is text: its newlines are spaces, never Enter.
 */
export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const rest = data.slice(i);
    if (rest.startsWith(PASTE_START)) {
      const end = rest.indexOf(PASTE_END);
      const body = rest.slice(PASTE_START.length, end === -1 ? undefined : end);
      for (const ch of body.replace(/[\r\n\t]+/g, ' ')) if (printable(ch)) keys.push({ kind: 'char', char: ch });
      i += end === -1 ? rest.length : end + PASTE_END.length;
      continue;
    }
    const seq = SEQUENCES.find(([s]) => rest.startsWith(s));
    if (seq) {
      keys.push({ kind: seq[1] });
      i += seq[0].length;
      continue;
    }
    const cp = data.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    if (ch === '\x1b') {
      // An unknown CSI/SS3 sequence (a function key) is skipped whole, not read as Esc + text.
      const m = /^\x1b[[O][0-9;]*[~A-Za-z]/.exec(rest);
      if (m) {
        keys.push({ kind: 'other' });
        i += m[0].length;
        continue;
      }
      keys.push({ kind: 'cancel' });
    } else if (ch === '\x03') keys.push({ kind: 'cancel' });
    else if (ch === '\r' || ch === '\n') {
      keys.push({ kind: 'enter' });
      if (ch === '\r' && data[i + 1] === '\n') i++;
    } else if (ch === '\x7f' || ch === '\b') keys.push({ kind: 'backspace' });
    else if (printable(ch)) keys.push({ kind: 'char', char: ch });
    else keys.push({ kind: 'other' });
    i += ch.length;
  }
  return keys;
}

const TYPED_MAX = 200;

/** The selection logic, separate from drawing so it can be tested key by key. */
export class MenuModel {
  selected: number;
  typed = '';

  constructor(
    readonly count: number,
    initial = 0,
  ) {
    this.selected = Math.min(Math.max(0, initial), Math.max(0, count - 1));
  }

  /**
   * Returns 'choose' or 'cancel' when the menu is done, 'invalid' when Enter was pressed on
   * text that is not a listed number (`typed` still holds it, for the hint), otherwise undefined.
   */
  press(key: Key): 'choose' | 'cancel' | 'invalid' | undefined {
    switch (key.kind) {
      case 'cancel':
        return 'cancel';
      case 'enter':
        if (this.count === 0) return 'cancel';
        if (this.typed.trim() === '') return 'choose';
        if (!this.valid(this.typed.trim())) return 'invalid';
        this.selected = Number(this.typed.trim()) - 1;
        return 'choose';
      case 'up':
        this.typed = '';
        this.selected = (this.selected - 1 + this.count) % this.count;
        break;
      case 'down':
        this.typed = '';
        this.selected = (this.selected + 1) % this.count;
        break;
      case 'home':
        this.typed = '';
        this.selected = 0;
        break;
      case 'end':
        this.typed = '';
        this.selected = this.count - 1;
        break;
      case 'backspace':
        this.typed = [...this.typed].slice(0, -1).join('');
        this.follow();
        break;
      case 'char':
        if (this.typed.length < TYPED_MAX) this.typed += key.char;
        this.follow();
        break;
      case 'other':
        break;
    }
    return undefined;
  }

  valid(s: string): boolean {
    return /^[1-9]\d*$/.test(s) && Number(s) <= this.count;
  }

  /** A typed number moves the highlight to it, so Enter visibly chooses what is highlighted. */
  private follow(): void {
    const t = this.typed.trim();
    if (this.valid(t)) this.selected = Number(t) - 1;
  }
}

function fit(s: string, width: number): string {
  const flat = sanitizeLine(s).replace(/\s+/g, ' ');
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

function itemOf(item: string | MenuItem): MenuItem {
  return typeof item === 'string' ? { label: item } : item;
}

/** Shows the menu and resolves with the chosen 0-based index, or null when cancelled. */
export function selectFromMenu(io: MenuIO, opts: MenuOptions): Promise<number | null> {
  const { out, theme: t } = io;
  const items = opts.items.map(itemOf);
  const model = new MenuModel(items.length, opts.initial ?? 0);
  const width = Math.max(20, (out.columns ?? 80) - 1);
  const numWidth = String(items.length).length;
  let drawnLines = 0;
  let hint = '';
  /** While set, the destructive choice waiting for "yes", and what was typed so far. */
  let confirming: { index: number; typed: string } | undefined;

  const draw = (): void => {
    const lines = [t.bold(fit(opts.title, width))];
    items.forEach((item, i) => {
      const label = fit(`${String(i + 1).padStart(numWidth)}. ${item.label}`, width - 2);
      lines.push(i === model.selected ? t.cyan(`❯ ${label}`) : `  ${label}`);
    });
    if (confirming) {
      const question = items[confirming.index]?.confirm ?? '';
      lines.push(t.yellow(fit(`${question} Type "yes" to confirm (anything else goes back):`, width - 8)) + ` ${confirming.typed}`);
    } else {
      const typed = model.typed ? ` ${t.bold(fit(model.typed, width / 2))}` : '';
      lines.push(t.dim(fit('number or ↑/↓, Enter to choose, Esc to cancel:', width - 6)) + typed);
    }
    if (hint) lines.push(t.yellow(fit(hint, width)));
    // Redraw in place: back to the first line of the previous drawing, clear to the end.
    const back = drawnLines > 1 ? `\r\x1b[${drawnLines - 1}A\x1b[J` : drawnLines === 1 ? '\r\x1b[J' : '';
    out.write(back + lines.join('\n'));
    drawnLines = lines.length;
  };

  return new Promise((resolve) => {
    if (items.length === 0) {
      resolve(null);
      return;
    }
    const finish = (index: number | null): void => {
      unsubscribe();
      unsubscribeResume?.();
      const chosen = index === null ? '' : (items[index]?.label ?? '');
      out.write(index !== null ? `\n${t.dim(`→ ${fit(chosen, width - 2)}`)}\n` : `\n${t.dim('cancelled')}\n`);
      resolve(index);
    };
    /** One key while a destructive choice waits for "yes"; true when the menu is done. */
    const confirmKey = (key: Key, c: { index: number; typed: string }): boolean => {
      if (key.kind === 'char' && c.typed.length < TYPED_MAX) c.typed += key.char;
      else if (key.kind === 'backspace') c.typed = [...c.typed].slice(0, -1).join('');
      else if (key.kind === 'enter' || key.kind === 'cancel') {
        confirming = undefined;
        if (key.kind === 'enter' && c.typed.trim().toLowerCase() === 'yes') {
          finish(c.index);
          return true;
        }
        hint = 'Not confirmed: nothing was done. Choose again.';
      }
      return false;
    };
    const menuKey = (key: Key): boolean => {
      const result = model.press(key);
      hint = '';
      if (result === 'cancel') {
        finish(null);
        return true;
      }
      if (result === 'invalid') {
        hint = `"${model.typed.trim()}" is not a choice: type a number from 1 to ${items.length} and Enter, or use ↑/↓ (Esc cancels).`;
        model.typed = '';
        return false;
      }
      if (result === 'choose') {
        if (items[model.selected]?.confirm === undefined) {
          finish(model.selected);
          return true;
        }
        model.typed = '';
        confirming = { index: model.selected, typed: '' };
      }
      return false;
    };
    draw();
    const unsubscribe = io.keys.subscribe((data) => {
      for (const key of parseKeys(data)) {
        if (confirming ? confirmKey(key, confirming) : menuKey(key)) return;
      }
      draw();
    });
    // After Ctrl-Z and fg the screen below the shell's lines is unknown: draw afresh.
    const unsubscribeResume = io.keys.subscribeResume?.(() => {
      drawnLines = 0;
      out.write('\n');
      draw();
    });
  });
}
