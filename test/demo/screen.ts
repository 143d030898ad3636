// A small virtual terminal that turns what a program writes to a pty into transcript lines.
// Spinners, line-editor redraws and menus rewrite text in place with cursor movements; a plain
// strip of the escape sequences would print every intermediate frame. This keeps a grid of
// rows (cursor moves, erasing, wrapping), and hands out finished rows as text, with or without
// their colours.
import { PLAIN_STYLE, applySgr, sgrParams, type Style } from './sgr.ts';

interface Cell {
  readonly ch: string;
  readonly sgr: string;
}

type Token = { kind: 'text'; ch: string } | { kind: 'control'; ch: string } | { kind: 'csi'; params: string; final: string } | { kind: 'ignored' };

/** Reads one token at `i`: its length, or null when the data ends inside an escape sequence. */
function readToken(s: string, i: number): { token: Token; length: number } | null {
  const ch = s[i] ?? '';
  if (ch !== '\x1b') {
    const cp = s.codePointAt(i) ?? 0;
    const text = String.fromCodePoint(cp);
    const kind = cp < 0x20 || cp === 0x7f ? 'control' : 'text';
    return { token: { kind, ch: text }, length: text.length };
  }
  const next = s[i + 1];
  if (next === undefined) return null;
  if (next === '[') {
    let j = i + 2;
    while (j < s.length && /[\x20-\x3f]/.test(s[j] ?? '')) j++;
    const final = s[j];
    if (final === undefined) return null;
    return { token: { kind: 'csi', params: s.slice(i + 2, j), final }, length: j - i + 1 };
  }
  if (next === ']') {
    const bel = s.indexOf('\x07', i + 2);
    const st = s.indexOf('\x1b\\', i + 2);
    const ends = [bel === -1 ? Infinity : bel + 1, st === -1 ? Infinity : st + 2];
    const end = Math.min(...ends);
    return end === Infinity ? null : { token: { kind: 'ignored' }, length: end - i };
  }
  if ('()*+'.includes(next)) return i + 2 < s.length ? { token: { kind: 'ignored' }, length: 3 } : null;
  return { token: { kind: 'ignored' }, length: 2 };
}

const count = (params: string, fallback = 1): number => {
  const n = Number.parseInt(params.split(';')[0] ?? '', 10);
  return Number.isNaN(n) || n === 0 ? fallback : n;
};

export class Screen {
  private readonly rows: Cell[][] = [[]];
  /** Rows that continue the row before them (the text ran past the last column). */
  private readonly continued = new Set<number>();
  private row = 0;
  private col = 0;
  private style: Style = PLAIN_STYLE;
  private sgr = '';
  /** Rows before this one were handed out and are never changed again. */
  private handedOut = 0;
  /** Where `ESC [ H` puts the cursor: the top of the page since the last clear-screen. */
  private pageTop = 0;
  private partial = '';

  constructor(
    private readonly cols: number,
    private readonly height: number,
  ) {}

  write(data: string): void {
    const s = this.partial + data;
    let i = 0;
    while (i < s.length) {
      const read = readToken(s, i);
      if (!read) break;
      this.apply(read.token);
      i += read.length;
    }
    this.partial = s.slice(i);
  }

  /**
   * Rows above the cursor, handed out once. Call it when the program is at rest (a prompt):
   * a menu on screen may still redraw the rows above the cursor.
   */
  takeSettled(colour: boolean): string[] {
    return this.take(this.row, colour);
  }

  /** Rows so far above the cursor that no redraw can reach them (they left the screen). */
  takeScrolledOff(colour: boolean): string[] {
    return this.take(this.row - this.height + 1, colour);
  }

  /** Everything not handed out yet but trailing blank rows, the cursor's row included (the program ended). */
  takeAll(colour: boolean): string[] {
    let end = this.rows.length;
    while (end > this.handedOut && (this.rows[end - 1] ?? []).every((c) => c.ch === ' ')) end--;
    return this.take(end, colour);
  }

  /**
   * Hands out rows before `end`, a wrapped line joined back into one (the reader's terminal
   * folds it again at its own width); a line whose continuation may still grow waits.
   */
  private take(end: number, colour: boolean): string[] {
    const lines: string[] = [];
    const limit = Math.min(end, this.rows.length);
    while (this.handedOut < limit) {
      let last = this.handedOut;
      while (this.continued.has(last + 1)) last++;
      if (last >= limit) break;
      const cells = this.rows.slice(this.handedOut, last + 1).flat();
      lines.push(renderRow(cells, colour));
      this.handedOut = last + 1;
    }
    return lines;
  }

  private apply(token: Token): void {
    switch (token.kind) {
      case 'text':
        return this.put(token.ch);
      case 'control':
        return this.control(token.ch);
      case 'csi':
        return this.csi(token.params, token.final);
      case 'ignored':
        return;
    }
  }

  private put(ch: string): void {
    if (this.col >= this.cols) {
      this.moveTo(this.row + 1, 0);
      this.continued.add(this.row);
    }
    const line = this.currentRow();
    while (line.length < this.col) line.push({ ch: ' ', sgr: '' });
    line[this.col] = { ch, sgr: this.sgr };
    this.col += 1;
  }

  private control(ch: string): void {
    if (ch === '\r') this.col = 0;
    else if (ch === '\n') this.moveTo(this.row + 1, this.col);
    else if (ch === '\b') this.col = Math.max(0, Math.min(this.col, this.cols) - 1);
    else if (ch === '\t') this.col = Math.min(this.cols - 1, (Math.floor(this.col / 8) + 1) * 8);
  }

  private csi(params: string, final: string): void {
    if (/^[?<=>]/.test(params)) return; // private modes: bracketed paste, cursor visibility, …
    switch (final) {
      case 'm':
        this.style = applySgr(this.style, params);
        this.sgr = sgrParams(this.style);
        return;
      case 'A':
        return this.moveTo(this.row - count(params), this.col);
      case 'B':
      case 'E':
        return this.moveTo(this.row + count(params), final === 'E' ? 0 : this.col);
      case 'F':
        return this.moveTo(this.row - count(params), 0);
      case 'C':
        this.col = Math.min(this.cols - 1, this.col + count(params));
        return;
      case 'D':
        this.col = Math.max(0, Math.min(this.col, this.cols) - count(params));
        return;
      case 'G':
        this.col = Math.min(this.cols - 1, count(params) - 1);
        return;
      case 'H':
      case 'f': {
        const [r, c] = params.split(';');
        return this.moveTo(this.pageTop + count(r ?? '') - 1, count(c ?? '') - 1);
      }
      case 'K':
        return this.eraseInLine(count(params, 0));
      case 'J':
        return this.eraseInDisplay(count(params, 0));
      default:
        return;
    }
  }

  private eraseInLine(mode: number): void {
    const line = this.currentRow();
    if (mode === 0) line.length = Math.min(line.length, this.col);
    else if (mode === 1) for (let c = 0; c <= this.col && c < line.length; c++) line[c] = { ch: ' ', sgr: '' };
    else line.length = 0;
  }

  private eraseInDisplay(mode: number): void {
    if (mode === 0) {
      this.eraseInLine(0);
      this.rows.length = this.row + 1;
      for (const r of this.continued) if (r > this.row) this.continued.delete(r);
      return;
    }
    // Clearing the screen must not erase the transcript: start a new page below what was shown.
    if (mode === 2 || mode === 3) {
      const used = this.rows.findLastIndex((r) => r.length > 0);
      this.pageTop = Math.max(this.handedOut, used + 1);
      this.moveTo(this.pageTop, this.col);
    }
  }

  /** Moves the cursor; never above the rows already handed out (they are printed). */
  private moveTo(row: number, col: number): void {
    this.row = Math.max(row, this.handedOut);
    this.col = Math.max(0, Math.min(col, this.cols));
    while (this.rows.length <= this.row) this.rows.push([]);
  }

  private currentRow(): Cell[] {
    const line = this.rows[this.row];
    if (line) return line;
    const fresh: Cell[] = [];
    this.rows[this.row] = fresh;
    return fresh;
  }
}

/** One row as text: trailing blanks dropped, colours as SGR sequences when asked for. */
export function renderRow(cells: readonly Cell[], colour: boolean): string {
  let end = cells.length;
  while (end > 0 && cells[end - 1]?.ch === ' ' && cells[end - 1]?.sgr === '') end--;
  let out = '';
  let current = '';
  for (const cell of cells.slice(0, end)) {
    if (colour && cell.sgr !== current) {
      out += cell.sgr === '' ? '\x1b[0m' : `\x1b[0;${cell.sgr}m`;
      current = cell.sgr;
    }
    out += cell.ch;
  }
  return colour && current !== '' ? `${out}\x1b[0m` : out;
}

// CSI, OSC, charset designations, two-byte escapes and carriage returns: what is left is text.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()*+][A-Za-z0-9]|\x1b[=>NOM78c]|\r/g;

/** The text of terminal output without any escape sequence (what a test or a script waits for). */
export function plainText(s: string): string {
  return s.replace(ESCAPES, '');
}
