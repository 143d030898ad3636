// The one gate between untrusted text (model answers, reasoning, command lines, command output,
// server error messages) and the person's terminal. The terminal belongs to the person: nothing
// that passes here can change its title, screen, modes, cursor or clipboard, or overwrite a line.
//
// - Escape sequences (CSI, OSC, DCS, SOS, PM, APC, two-byte ESC sequences, their 8-bit C1 forms)
//   are removed. With `keepSgr`, plain SGR colour sequences (`ESC [ digits ; : m`) stay, except
//   conceal (8), which could hide text; colours are reset before every newline and reapplied after
//   it, so each line stands alone (the renderer may elide lines).
// - Other C0/C1 controls and DEL are shown visibly as `\xHH` (ESC that starts no sequence,
//   BEL, backspace, NUL, …). Newline and tab pass.
// - A carriage return cannot overwrite a line: CR LF is a newline, a bare CR becomes a newline.
// - Bidi overrides, embeddings and isolates (U+202A-E, U+2066-9) are shown as `\u202e`: they
//   would make text read differently from its bytes. Other right-to-left text passes.
// - With `foldWidth`, lines are folded at that many columns.
// - An OSC/DCS string that never ends stops at the next newline, so it cannot hide the rest.
// Stream-safe: a sequence split across chunks is recognised; `end()` flushes what is held.
import { charWidth } from './width.ts';

export interface SanitizeOptions {
  /** Keep plain SGR colour sequences (command output on a colour terminal). */
  keepSgr?: boolean;
  /** Fold lines at this many columns (undefined or 0: never). */
  foldWidth?: number;
}

/** The visible form of a control character: `\x1b`, `\x07`, `\x9b`. */
export function controlPicture(code: number): string {
  return `\\x${code.toString(16).padStart(2, '0')}`;
}

const enum State {
  Ground,
  Esc,
  EscInter,
  Csi,
  CsiIgnore,
  Str,
  StrEsc,
}

const ESC = 0x1b;
const CSI_MAX = 64;
/** SGR parameters that may pass: digits, `;` and `:` only (no private markers). */
const SGR_PARAMS = /^[0-9;:]*$/;
/** Where the plain-text fast path stops: any C0, DEL or C1 character. */
const SPECIAL = /[\x00-\x1f\x7f-\x9f]/g;
const SPECIAL_ONE = /[\x00-\x1f\x7f-\x9f]/;

function isReset(params: string): boolean {
  return params === '' || /^0*$/.test(params);
}

/**
 * The SGR parameters without conceal (8). Extended colours (38/48/58 with `;5;n` or `;2;r;g;b`)
 * are skipped over whole so a colour index 8 is not mistaken for conceal. '' when nothing is left.
 */
export function filterSgr(params: string): string {
  if (params === '') return params;
  const parts = params.split(';');
  const kept: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] ?? '';
    if ((p === '38' || p === '48' || p === '58') && (parts[i + 1] === '5' || parts[i + 1] === '2')) {
      const take = parts[i + 1] === '5' ? 3 : 5;
      kept.push(...parts.slice(i, i + take));
      i += take - 1;
      continue;
    }
    if (p === '8' || p === '08') continue;
    kept.push(p);
  }
  return kept.join(';');
}

/** The foreground and background colours a list of SGR sequences leaves in force (index `i<n>` or `rgb(r,g,b)`). */
export function sgrColours(sequences: readonly string[]): { fg?: string; bg?: string } {
  let fg: string | undefined;
  let bg: string | undefined;
  for (const seq of sequences) {
    const parts = seq
      .replace(/^\x1b\[|m$/g, '')
      .split(';')
      .map(Number);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i] ?? 0;
      if (p === 0) {
        fg = undefined;
        bg = undefined;
      } else if (p >= 30 && p <= 37) fg = `i${p - 30}`;
      else if (p >= 90 && p <= 97) fg = `i${p - 82}`;
      else if (p >= 40 && p <= 47) bg = `i${p - 40}`;
      else if (p >= 100 && p <= 107) bg = `i${p - 92}`;
      else if (p === 39) fg = undefined;
      else if (p === 49) bg = undefined;
      else if (p === 38 || p === 48 || p === 58) {
        const colour = parts[i + 1] === 5 ? `i${parts[i + 2] ?? 0}` : parts[i + 1] === 2 ? `rgb(${parts.slice(i + 2, i + 5).join(',')})` : undefined;
        i += parts[i + 1] === 5 ? 2 : parts[i + 1] === 2 ? 4 : 0;
        if (p === 38) fg = colour;
        else if (p === 48) bg = colour;
      }
    }
  }
  return { fg, bg };
}

/** The 16 basic colours as VGA draws them (the common ground of terminal palettes). */
const BASIC_RGB: readonly (readonly [number, number, number])[] = [
  [0, 0, 0],
  [170, 0, 0],
  [0, 170, 0],
  [170, 85, 0],
  [0, 0, 170],
  [170, 0, 170],
  [0, 170, 170],
  [170, 170, 170],
  [85, 85, 85],
  [255, 85, 85],
  [85, 255, 85],
  [255, 255, 85],
  [85, 85, 255],
  [255, 85, 255],
  [85, 255, 255],
  [255, 255, 255],
];
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255] as const;

/** A colour of sgrColours as r,g,b: the basic 16, the 6×6×6 cube and the grey ramp of the 256. */
export function colourRgb(colour: string): [number, number, number] | undefined {
  const rgb = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(colour);
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  const n = Number(/^i(\d+)$/.exec(colour)?.[1] ?? NaN);
  if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
  if (n < 16) return [...(BASIC_RGB[n] ?? [0, 0, 0])] as [number, number, number];
  if (n < 232) {
    const c = n - 16;
    return [CUBE_LEVELS[Math.floor(c / 36)] ?? 0, CUBE_LEVELS[Math.floor(c / 6) % 6] ?? 0, CUBE_LEVELS[c % 6] ?? 0];
  }
  const grey = 8 + (n - 232) * 10;
  return [grey, grey, grey];
}

/** Closer than this on every channel: the person cannot tell text from its background. */
const HIDDEN_DISTANCE = 85;

/**
 * Whether text in `fg` on `bg` would be invisible: the same colour however it is written (31 and
 * 38;5;1 and 38;2;170;0;0), or nearly (90 on 40). No background means the terminal's default,
 * taken as black (most terminals); a default foreground is never judged.
 */
export function sameColour(fg: string | undefined, bg: string | undefined): boolean {
  if (fg === undefined) return false;
  if (fg === bg) return true;
  const f = colourRgb(fg);
  const b = colourRgb(bg ?? 'i0');
  if (!f || !b) return false;
  return f.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= HIDDEN_DISTANCE);
}

export class TerminalSanitizer {
  private state = State.Ground;
  private seq = '';
  /** Whether the CSI being read was introduced by ESC [ (an 8-bit CSI never passes). */
  private seqFromEsc = false;
  private pendingCr = false;
  private heldSurrogate = '';
  private col = 0;
  /** SGR sequences in force (since the last reset), reapplied after each newline. */
  private active: string[] = [];
  private reapply = false;
  private out: string[] = [];
  private readonly keepSgr: boolean;
  private readonly fold: number;

  constructor(opts: SanitizeOptions = {}) {
    this.keepSgr = opts.keepSgr === true;
    this.fold = opts.foldWidth !== undefined && opts.foldWidth > 0 ? Math.max(4, Math.floor(opts.foldWidth)) : 0;
  }

  /** Sanitises the next chunk; returns what can be shown now (possibly ''). */
  push(input: string): string {
    let chunk = this.heldSurrogate + input;
    this.heldSurrogate = '';
    // Half of a surrogate pair waits for its other half, so a character is measured whole.
    const last = chunk.charCodeAt(chunk.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.heldSurrogate = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    this.feed(chunk);
    return this.take();
  }

  private feed(chunk: string): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === State.Ground && !this.pendingCr) {
        SPECIAL.lastIndex = i;
        const m = SPECIAL.exec(chunk);
        const stop = m ? m.index : chunk.length;
        if (stop > i) this.text(chunk.slice(i, stop));
        if (!m) break;
        i = stop;
      }
      const code = chunk.charCodeAt(i);
      this.step(code, chunk[i] ?? '');
      i++;
    }
  }

  /** Ends the stream: a held CR becomes a newline, an unfinished sequence is dropped. */
  end(): string {
    if (this.heldSurrogate !== '') {
      const half = this.heldSurrogate;
      this.heldSurrogate = '';
      this.feed(half);
    }
    if (this.pendingCr) {
      this.pendingCr = false;
      this.newline();
    }
    if (this.state === State.Esc) this.visible(ESC);
    this.state = State.Ground;
    this.seq = '';
    if (this.active.length > 0 && !this.reapply) this.out.push('\x1b[0m');
    this.active = [];
    this.reapply = false;
    return this.take();
  }

  private take(): string {
    const s = this.out.join('');
    this.out = [];
    return s;
  }

  private step(code: number, ch: string): void {
    switch (this.state) {
      case State.Ground:
        return this.ground(code, ch);
      case State.Esc:
        return this.afterEsc(code, ch);
      case State.EscInter:
        if (code >= 0x20 && code <= 0x2f) return;
        this.state = State.Ground;
        // A final byte completes the (dropped) sequence; anything else aborts it and counts.
        if (code < 0x30 || code > 0x7e) this.ground(code, ch);
        return;
      case State.Csi:
      case State.CsiIgnore:
        return this.inCsi(code, ch);
      case State.Str:
        if (code === 0x07 || code === 0x9c || code === 0x18 || code === 0x1a) this.state = State.Ground;
        else if (code === ESC) this.state = State.StrEsc;
        else if (code === 0x0a) {
          this.state = State.Ground;
          this.ground(code, ch);
        }
        return;
      case State.StrEsc:
        // ESC \ is the string terminator; ESC + anything else ends the string and starts anew.
        this.state = State.Ground;
        if (ch !== '\\') this.afterEsc(code, ch);
        return;
    }
  }

  private ground(code: number, ch: string): void {
    if (this.pendingCr) {
      if (code === 0x0d) return;
      this.pendingCr = false;
      this.newline();
      if (code === 0x0a) return;
    }
    if (code === 0x0a) return this.newline();
    if (code === 0x0d) {
      this.pendingCr = true;
      return;
    }
    if (code === 0x09) return this.tab();
    if (code === ESC) {
      this.state = State.Esc;
      return;
    }
    if (code === 0x9b) return this.startCsi(false);
    if (code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) {
      this.state = State.Str;
      return;
    }
    if (SPECIAL_ONE.test(ch)) return this.visible(code);
    this.text(ch);
  }

  private afterEsc(code: number, ch: string): void {
    this.state = State.Ground;
    if (ch === '[') return this.startCsi(true);
    if (ch === ']' || ch === 'P' || ch === 'X' || ch === '^' || ch === '_') {
      this.state = State.Str;
      return;
    }
    if (code >= 0x20 && code <= 0x2f) {
      this.state = State.EscInter;
      return;
    }
    if (code >= 0x30 && code <= 0x7e) return;
    // ESC followed by a control or non-ASCII character starts nothing: show the ESC.
    this.visible(ESC);
    this.ground(code, ch);
  }

  private startCsi(fromEsc: boolean): void {
    this.state = State.Csi;
    this.seq = '';
    this.seqFromEsc = fromEsc;
  }

  private inCsi(code: number, ch: string): void {
    if (code >= 0x20 && code <= 0x3f) {
      if (this.state === State.Csi) {
        this.seq += ch;
        if (this.seq.length > CSI_MAX) this.state = State.CsiIgnore;
      }
      return;
    }
    const wasIgnored = this.state === State.CsiIgnore;
    this.state = State.Ground;
    if (code >= 0x40 && code <= 0x7e) {
      if (!wasIgnored && ch === 'm') this.sgr(this.seq);
      this.seq = '';
      return;
    }
    // A control or non-ASCII character inside a sequence aborts it (dropped) and counts itself.
    this.seq = '';
    this.ground(code, ch);
  }

  private sgr(params: string): void {
    if (!this.keepSgr || !this.seqFromEsc || !SGR_PARAMS.test(params)) return;
    if (isReset(params)) {
      if (this.active.length > 0 && !this.reapply) this.out.push('\x1b[0m');
      this.active = [];
      this.reapply = false;
      return;
    }
    const kept = filterSgr(params);
    if (kept === '') return;
    const seq = `\x1b[${kept}m`;
    // Text in the colour of its own background is hidden from the person but not from the
    // model (issue 23): a sequence that would make them equal is not passed on.
    const { fg, bg } = sgrColours([...this.active, seq]);
    if (sameColour(fg, bg)) return;
    this.active.push(seq);
    if (this.active.length > 16) this.active.shift();
    if (!this.reapply) this.out.push(seq);
  }

  private visible(code: number): void {
    const picture = controlPicture(code);
    // A picture is never split across a fold.
    if (this.fold > 0 && this.col > 0 && this.col + picture.length > this.fold) this.breakLine();
    this.text(picture);
  }

  private tab(): void {
    const width = 8 - (this.col % 8);
    if (this.fold > 0 && this.col > 0 && this.col + width > this.fold) this.breakLine();
    this.beforeText();
    this.out.push('\t');
    this.col += 8 - (this.col % 8);
  }

  private newline(): void {
    if (this.active.length > 0 && !this.reapply) this.out.push('\x1b[0m');
    this.out.push('\n');
    this.col = 0;
    this.reapply = this.active.length > 0;
  }

  private breakLine(): void {
    this.newline();
  }

  private beforeText(): void {
    if (this.reapply) {
      this.out.push(this.active.join(''));
      this.reapply = false;
    }
  }

  /** Printable text (no controls): measured and folded. */
  private text(raw: string): void {
    if (raw.length === 0) return;
    // Bidi overrides and isolates reorder what follows them on screen ("txt.exe" read as
    // "exe.txt"); in text that is meant to be read as it is they are shown, not obeyed.
    const s = raw.replace(BIDI_CONTROLS, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16)}`);
    this.beforeText();
    if (this.fold === 0) {
      this.out.push(s);
      return;
    }
    if (/^[\x20-\x7e]*$/.test(s)) {
      let i = 0;
      while (i < s.length) {
        if (this.col >= this.fold) {
          this.breakLine();
          this.beforeText();
        }
        const take = Math.min(s.length - i, this.fold - this.col);
        this.out.push(s.slice(i, i + take));
        this.col += take;
        i += take;
      }
      return;
    }
    for (const ch of s) {
      const w = charWidth(ch.codePointAt(0) ?? 0);
      if (this.col + w > this.fold) {
        this.breakLine();
        this.beforeText();
      }
      this.out.push(ch);
      this.col += w;
    }
  }
}

/** Sanitises a complete string (see TerminalSanitizer). */
export function sanitizeText(s: string, opts: SanitizeOptions = {}): string {
  const z = new TerminalSanitizer(opts);
  return z.push(s) + z.end();
}

/** One line of untrusted text (an error message, a label): newlines and tabs become spaces. */
export function sanitizeLine(s: string): string {
  // Bidi overrides and zero-width characters would make a menu or notice line read differently from its bytes.
  return sanitizeText(s)
    .replace(/[\n\t]+/g, ' ')
    .replace(INVISIBLE_ALL, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** Several lines of untrusted text (a notice, an error that spans lines): each line as sanitizeLine. */
export function sanitizeLines(s: string): string {
  return s.split('\n').map(sanitizeLine).join('\n');
}

const INVISIBLE_ALL = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Bidirectional overrides and invisible characters: they can make shown text differ from the bytes. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * Every character of a command that is not plain visible text, shown as an escape: C0/C1/DEL
 * as `\xHH` (newline and tab too), bidi overrides and zero-width characters as `\uHHHH`.
 * `mark` styles each escape so it stands apart from literal text (inverse video on a terminal).
 */
export function showControls(s: string, mark: (escape: string) => string = (e) => e): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (SPECIAL_ONE.test(ch)) out += mark(controlPicture(code));
    else if (INVISIBLE.test(ch)) out += mark(`\\u${code.toString(16).padStart(4, '0')}`);
    else out += ch;
  }
  return out;
}
