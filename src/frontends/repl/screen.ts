// Puts composer frames on the terminal, redrawing only from the first row that changed. It
// remembers which row of its block the cursor is on, so the next frame can go back to the top.
// Lines printed while the composer is shown (background notices) go above it: the block is
// cleared, the line written, the block drawn again below — never over the prompt.
import type { Frame } from '../../ui/composer-view.ts';

interface Output {
  write(s: string): unknown;
}

/** The screen of the composer active on each output stream (say() asks it to print above). */
const active = new WeakMap<object, ComposerScreen>();

export function activeScreen(out: object): ComposerScreen | undefined {
  return active.get(out);
}

export class ComposerScreen {
  private rows: string[] = [];
  /** Row of the block the terminal cursor is on. */
  private at = 0;
  private last: Frame | undefined;

  constructor(private readonly out: Output) {}

  attach(): void {
    active.set(this.out, this);
  }

  detach(): void {
    if (active.get(this.out) === this) active.delete(this.out);
  }

  draw(frame: Frame): void {
    this.last = frame;
    let first = 0;
    while (first < frame.rows.length && first < this.rows.length && frame.rows[first] === this.rows[first]) first++;
    let s = '';
    if (first < frame.rows.length || frame.rows.length < this.rows.length) {
      if (first < this.rows.length || this.rows.length === 0) {
        s += this.moveTo(first) + '\r\x1b[J';
        s += frame.rows.slice(first).join('\r\n');
      } else {
        // Only rows appended: continue below the last one.
        s += this.moveTo(this.rows.length - 1) + '\r\n' + frame.rows.slice(first).join('\r\n');
      }
      this.at = Math.max(0, frame.rows.length - 1);
    }
    this.rows = [...frame.rows];
    s += this.moveTo(frame.cursorRow) + '\r' + right(frame.cursorColumn);
    this.out.write(s);
  }

  /** A line (ending in \n) above the composer, which is drawn again under it. */
  printAbove(text: string): void {
    const frame = this.last;
    this.out.write(this.moveTo(0) + '\r\x1b[J' + text);
    this.forget();
    if (frame) this.draw(frame);
  }

  /** The block is gone from under us (Ctrl-L, Ctrl-Z and back, a resize): draw anew here. */
  forget(): void {
    this.rows = [];
    this.at = 0;
  }

  redraw(): void {
    this.out.write('\r\x1b[J');
    this.forget();
    if (this.last) this.draw(this.last);
  }

  /**
   * Leaves the composer: the message rows stay (what was sent is on screen), the rows under
   * them (status line, search, candidates) are erased and output continues on a new line.
   */
  finish(): void {
    const keep = Math.max(1, Math.min(this.last?.bodyRows ?? 1, this.rows.length));
    this.out.write(this.moveTo(keep - 1) + '\r' + right(stringCells(this.rows[keep - 1] ?? '')) + '\x1b[J\r\n');
    this.rows = [];
    this.at = 0;
    this.detach();
  }

  private moveTo(row: number): string {
    const delta = row - this.at;
    this.at = row;
    if (delta < 0) return `\x1b[${-delta}A`;
    if (delta > 0) return `\x1b[${delta}B`;
    return '';
  }
}

/** Visible cells of a row (colour sequences take none). */
function stringCells(row: string): number {
  return [...row.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')].length;
}

/** Cursor right by n cells (`CSI 0 C` would move one). */
function right(n: number): string {
  return n > 0 ? `\x1b[${n}C` : '';
}
