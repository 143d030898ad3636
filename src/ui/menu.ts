// The one selection menu (/rollback, pending tool calls, failed-request recovery): a numbered
// list; type a number and Enter, or move with the arrows and Enter; Esc or Ctrl-C cancels.
// It reads raw key data from a KeySource, so the REPL decides who owns stdin at any moment.
import type { Theme } from './theme.ts';

/** Raw terminal input, delivered as the chunks the terminal sent. */
export interface KeySource {
  subscribe(onData: (data: string) => void): () => void;
}

export interface MenuIO {
  out: { write(s: string): unknown; columns?: number };
  keys: KeySource;
  theme: Theme;
}

export interface MenuOptions {
  title: string;
  items: string[];
  /** 0-based index highlighted at first. */
  initial?: number;
}

export type Key =
  | { kind: 'digit'; digit: string }
  | { kind: 'up' | 'down' | 'enter' | 'cancel' | 'backspace' | 'home' | 'end' }
  | { kind: 'other' };

const SEQUENCES: [string, 'up' | 'down' | 'home' | 'end'][] = [
  ['\x1b[A', 'up'], ['\x1bOA', 'up'], ['\x1b[B', 'down'], ['\x1bOB', 'down'],
  ['\x1b[H', 'home'], ['\x1bOH', 'home'], ['\x1b[F', 'end'], ['\x1bOF', 'end'],
];

/** Splits one chunk of terminal input into keys. A lone ESC (no sequence after it) is Esc. */
export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const rest = data.slice(i);
    const seq = SEQUENCES.find(([s]) => rest.startsWith(s));
    if (seq) {
      keys.push({ kind: seq[1] });
      i += seq[0].length;
      continue;
    }
    const ch = data[i] ?? '';
    if (ch === '\x1b') {
      // An unknown CSI/SS3 sequence (a function key) is skipped whole, not read as Esc + text.
      const m = /^\x1b[[O][0-9;]*[~A-Za-z]/.exec(rest);
      if (m) { keys.push({ kind: 'other' }); i += m[0].length; continue; }
      keys.push({ kind: 'cancel' });
    } else if (ch === '\x03') keys.push({ kind: 'cancel' });
    else if (ch === '\r' || ch === '\n') {
      keys.push({ kind: 'enter' });
      if (ch === '\r' && data[i + 1] === '\n') i++;
    } else if (ch === '\x7f' || ch === '\b') keys.push({ kind: 'backspace' });
    else if (ch >= '0' && ch <= '9') keys.push({ kind: 'digit', digit: ch });
    else if (ch === 'k') keys.push({ kind: 'up' });
    else if (ch === 'j') keys.push({ kind: 'down' });
    else keys.push({ kind: 'other' });
    i++;
  }
  return keys;
}

/** The selection logic, separate from drawing so it can be tested key by key. */
export class MenuModel {
  selected: number;
  typed = '';

  constructor(readonly count: number, initial = 0) {
    this.selected = Math.min(Math.max(0, initial), Math.max(0, count - 1));
  }

  /** Returns 'choose' or 'cancel' when the menu is done, otherwise undefined. */
  press(key: Key): 'choose' | 'cancel' | undefined {
    switch (key.kind) {
      case 'cancel': return 'cancel';
      case 'enter': return this.count > 0 ? 'choose' : 'cancel';
      case 'up': this.typed = ''; this.selected = (this.selected - 1 + this.count) % this.count; break;
      case 'down': this.typed = ''; this.selected = (this.selected + 1) % this.count; break;
      case 'home': this.typed = ''; this.selected = 0; break;
      case 'end': this.typed = ''; this.selected = this.count - 1; break;
      case 'backspace': this.typed = this.typed.slice(0, -1); this.selectTyped(); break;
      case 'digit': {
        const longer = this.typed + key.digit;
        // "25" in a list of 20 starts over at "5" rather than getting stuck on an invalid number.
        this.typed = this.valid(longer) ? longer : this.valid(key.digit) ? key.digit : '';
        this.selectTyped();
        break;
      }
      case 'other': break;
    }
    return undefined;
  }

  private valid(s: string): boolean {
    const n = Number(s);
    return /^[1-9]\d*$/.test(s) && n >= 1 && n <= this.count;
  }

  private selectTyped(): void {
    if (this.valid(this.typed)) this.selected = Number(this.typed) - 1;
  }
}

function fit(s: string, width: number): string {
  const flat = s.replace(/\s*\n\s*/g, ' ');
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** Shows the menu and resolves with the chosen 0-based index, or null when cancelled. */
export function selectFromMenu(io: MenuIO, opts: MenuOptions): Promise<number | null> {
  const { out, theme: t } = io;
  const model = new MenuModel(opts.items.length, opts.initial ?? 0);
  const width = Math.max(20, (out.columns ?? 80) - 1);
  const numWidth = String(opts.items.length).length;
  let drawnLines = 0;

  const draw = (): void => {
    const lines = [t.bold(fit(opts.title, width))];
    opts.items.forEach((item, i) => {
      const label = fit(`${String(i + 1).padStart(numWidth)}. ${item}`, width - 2);
      lines.push(i === model.selected ? t.cyan(`❯ ${label}`) : `  ${label}`);
    });
    const typed = model.typed ? ` ${t.bold(model.typed)}` : '';
    lines.push(t.dim(fit('number or ↑/↓, Enter to choose, Esc to cancel:', width - 6)) + typed);
    // Redraw in place: back to the first line of the previous drawing, clear to the end.
    const back = drawnLines > 1 ? `\r\x1b[${drawnLines - 1}A\x1b[J` : drawnLines === 1 ? '\r\x1b[J' : '';
    out.write(back + lines.join('\n'));
    drawnLines = lines.length;
  };

  return new Promise((resolve) => {
    if (opts.items.length === 0) {
      resolve(null);
      return;
    }
    draw();
    const unsubscribe = io.keys.subscribe((data) => {
      for (const key of parseKeys(data)) {
        const done = model.press(key);
        if (done) {
          unsubscribe();
          const chosen = opts.items[model.selected] ?? '';
          out.write(done === 'choose' ? `\n${t.dim(`→ ${fit(chosen, width - 2)}`)}\n` : `\n${t.dim('cancelled')}\n`);
          resolve(done === 'choose' ? model.selected : null);
          return;
        }
      }
      draw();
    });
  });
}
