// Owns the terminal's input for the whole session. stdin stays in raw mode and every chunk is
// routed to exactly one consumer: a menu or question (key subscribers), the composer, or —
// while a turn or command runs — the interrupt handler (Ctrl-C / Ctrl-T / Esc) and the
// type-ahead queue (the rest, replayed into the next prompt). Raw mode is what
// makes Ctrl-C reach agentx as a byte instead of a SIGINT to the terminal's process group.
// The modes it changes (raw mode, bracketed paste) are given back whenever agentx leaves the
// terminal: on stop, on any exit (a crash included), and around Ctrl-Z (see TerminalModes).
import type { KeySource } from '../../ui/menu.ts';
import { TerminalModes } from './terminal-modes.ts';
import { keyBytes, parseKeys, type Key } from './composer/keys.ts';

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';
/** Newlines and tabs of pasted text travel through the single-line editor as these symbols. */
export const PASTE_NEWLINE = '\u2424';
export const PASTE_TAB = '\u2409';

const CTRL_C = '\x03';
const CTRL_T = '\x14';
const CTRL_Z = '\x1a';

function encodePasted(s: string): string {
  return (
    s
      .replace(/\r\n|\r|\n/g, PASTE_NEWLINE)
      .replace(/\t/g, PASTE_TAB)
      // Other control bytes in pasted text would act as editing keys; they are not text.
      .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
  );
}

/** The message as the user meant it: placeholders back to newlines and tabs. */
export function decodeMessage(line: string): string {
  return line.split(PASTE_NEWLINE).join('\n').split(PASTE_TAB).join('\t');
}

/**
 * Length of the longest tail of `data` that could be the start of `marker` split across chunks.
 * Outside a paste only tails of 3+ characters wait (a lone Esc key must not be delayed).
 */
function heldTail(data: string, marker: string, min: number): number {
  for (let k = marker.length - 1; k >= min; k--) if (data.endsWith(marker.slice(0, k))) return k;
  return 0;
}

/** Pasted text is handed on when the paste ends, or in pieces this large (a paste never ended). */
const PASTE_FLUSH = 4 * 2 ** 20;

/** A piece of input: keys for the line editor, or pasted text to insert as it is. */
export interface InputPiece {
  kind: 'keys' | 'paste';
  text: string;
}

/**
 * Turns pasted multi-line text into one editor line. Bracketed paste is exact; without it, a
 * chunk holding a newline followed by more text is taken as pasted (a typed Enter arrives alone).
 * Pasted text comes out as its own piece, once the paste has ended, so the editor inserts it in
 * one step (linear) instead of key by key or chunk by chunk (readline re-measures and redraws
 * the whole line for each).
 */
export class PasteFilter {
  private inPaste = false;
  private held = '';
  private pasted = '';

  /** The editor line as one string (pasted text encoded, keys as they were). */
  transform(chunk: string): string {
    return this.pieces(chunk)
      .map((p) => p.text)
      .join('');
  }

  pieces(chunk: string): InputPiece[] {
    let data = this.held + chunk;
    this.held = '';
    const out: InputPiece[] = [];
    const add = (kind: InputPiece['kind'], text: string): void => {
      if (text === '') return;
      const last = out.at(-1);
      if (last?.kind === kind) last.text += text;
      else out.push({ kind, text });
    };
    const body = (s: string): void => {
      if (!this.inPaste) return this.typed(s, add);
      this.pasted += encodePasted(s);
      if (this.pasted.length >= PASTE_FLUSH) this.flushPaste(add);
    };
    while (data.length > 0) {
      const marker = this.inPaste ? PASTE_END : PASTE_START;
      const at = data.indexOf(marker);
      if (at === -1) {
        const keep = heldTail(data, marker, this.inPaste ? 1 : 3);
        body(data.slice(0, data.length - keep));
        this.held = data.slice(data.length - keep);
        return out;
      }
      body(data.slice(0, at));
      data = data.slice(at + marker.length);
      if (this.inPaste) this.flushPaste(add);
      this.inPaste = !this.inPaste;
    }
    return out;
  }

  private flushPaste(add: (kind: InputPiece['kind'], text: string) => void): void {
    add('paste', this.pasted);
    this.pasted = '';
  }

  private typed(s: string, add: (kind: InputPiece['kind'], text: string) => void): void {
    const m = /^([\s\S]*?)([\r\n]*)$/.exec(s);
    const body = m?.[1] ?? s;
    const trailing = m?.[2] ?? '';
    // Escape sequences are keys (arrows, Alt-Enter after a Ctrl-J typed fast), not pasted text.
    if (!/[\r\n]/.test(body) || body.includes('\x1b')) {
      add('keys', s);
      return;
    }
    add('paste', encodePasted(body));
    if (trailing.length > 0) add('keys', '\r');
  }
}

export class TerminalInput implements KeySource {
  lineActive = false;
  /** Set by the composer while a prompt is active: keys and pasted blocks, in order. */
  keySink: ((piece: InputPiece) => void) | undefined;
  /** Keys the last prompt did not use (a second message typed ahead); the next prompt takes them. */
  leftoverKeys: Key[] = [];
  /**
   * Typed while a turn or command ran, replayed into the next prompt. Kept as keys and pasted
   * blocks, not raw bytes: replayed as one chunk, two typed messages would look like a paste.
   */
  private typeAhead: Key[] = [];
  /** Finds bracketed (or chunked) pastes in what is typed during a turn. */
  private readonly aheadPaste = new PasteFilter();
  /** The turn was interrupted while keys were queued: they come back unsent (Enter → newline). */
  private typeAheadHeld = false;
  /** Esc pressed during this turn (a second one drops what was queued). */
  private escapes = 0;
  /** stdin reached its end (the terminal is gone): no prompt can be answered any more. */
  ended = false;
  private subscribers: ((data: string) => void)[] = [];
  private resumeListeners: (() => void)[] = [];
  private interrupt: (() => void) | undefined;
  private readonly paste = new PasteFilter();
  private readonly modes: TerminalModes;
  private started = false;
  private readonly onData = (data: Buffer | string): void => this.route(typeof data === 'string' ? data : data.toString('utf8'));
  private readonly onEnd = (): void => {
    this.ended = true;
    this.keySink?.({ kind: 'keys', text: '\x04' });
  };

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
  ) {
    this.modes = new TerminalModes(stdin, stdout, () => this.resumed());
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.modes.enable();
    this.stdin.on('data', this.onData);
    this.stdin.once('end', this.onEnd);
    this.stdin.resume();
  }

  /** Gives the terminal back (exit, or a sub-program such as setup that reads stdin itself). */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.modes.disable();
    this.stdin.pause();
  }

  /** Ctrl-Z: the terminal goes back to the shell until `fg`; then the prompt is drawn again. */
  suspend(): void {
    if (this.started) this.modes.suspend();
  }

  private resumed(): void {
    for (const listener of [...this.resumeListeners]) listener();
  }

  subscribeResume(onResume: () => void): () => void {
    this.resumeListeners.push(onResume);
    return () => {
      this.resumeListeners = this.resumeListeners.filter((l) => l !== onResume);
    };
  }

  subscribe(onData: (data: string) => void): () => void {
    this.subscribers.push(onData);
    return () => {
      this.subscribers = this.subscribers.filter((s) => s !== onData);
    };
  }

  /**
   * While set (a turn or command runs), Ctrl-C, Ctrl-T and Esc call it; other keys are queued.
   * Ctrl-T is Ctrl-C's twin (the whole turn stops, its command with it): stopping the model's
   * command alone while the turn goes on would need the engine to abort one call; /help and
   * docs/composer.md say what it does today.
   */
  setInterruptHandler(handler: (() => void) | undefined): void {
    this.interrupt = handler;
    if (handler) this.escapes = 0;
  }

  /** What was typed during the turn, as text (for the spinner's "queued" note); '' when nothing. */
  get queued(): string {
    return this.typeAhead.map(keyBytes).join('');
  }

  /**
   * Takes what was typed ahead, for the next prompt. After an interrupted turn it comes back
   * unsent: its Enters become newlines (the last ones dropped).
   */
  takeTypeAhead(): Key[] {
    let keys = this.typeAhead;
    if (this.typeAheadHeld) {
      const isEnter = (k: Key | undefined): boolean => k?.kind === 'key' && k.name === 'enter';
      let end = keys.length;
      while (end > 0 && isEnter(keys[end - 1])) end--;
      keys = keys.slice(0, end).map((k) => (isEnter(k) ? { kind: 'key', name: 'newline' } : k));
    }
    this.typeAhead = [];
    this.typeAheadHeld = false;
    return keys;
  }

  private queue(data: string): void {
    if (data.includes(CTRL_C) || data.includes(CTRL_T)) {
      this.typeAheadHeld = true;
      this.interrupt?.();
      return;
    }
    for (const piece of this.aheadPaste.pieces(data)) {
      if (piece.kind === 'paste') {
        this.typeAhead.push({ kind: 'paste', text: decodeMessage(piece.text) });
        continue;
      }
      // Keys arrive together when typed fast: "keep me⏎" and Esc can be one chunk.
      for (const key of parseKeys(piece.text)) {
        if (key.kind === 'key' && key.name === 'esc') {
          // Esc interrupts like Ctrl-C; Esc-Esc also takes back what was typed ahead.
          this.escapes++;
          this.typeAheadHeld = true;
          if (this.escapes >= 2) this.typeAhead = [];
          this.interrupt?.();
        } else if (key.kind === 'key' && key.name === 'killLineStart') {
          this.typeAhead = [];
        } else {
          this.typeAhead.push(key);
        }
      }
    }
  }

  /** A SIGINT from outside (kill -INT) acts like Ctrl-C on whatever is running; false if nothing is. */
  interruptNow(): boolean {
    if (!this.interrupt) return false;
    this.interrupt();
    return true;
  }

  /** Waits for one of `choices` (lower-case letters). Esc answers "n"; Ctrl-C answers "cancel". */
  /** Waits for one of `choices` (Ctrl-C: 'cancel', Esc: 'n'); Enter gives `enter` when the question has a default. */
  askKey(choices: string[], enter?: string): Promise<string> {
    return new Promise((resolve) => {
      const off = this.subscribe((data) => {
        for (const ch of data) {
          const key =
            ch === CTRL_C
              ? 'cancel'
              : ch === '\x1b' && data.length === 1
                ? 'n'
                : (ch === '\r' || ch === '\n') && enter !== undefined
                  ? enter
                  : ch.toLowerCase();
          if (key === 'cancel' || choices.includes(key)) {
            off();
            resolve(key);
            return;
          }
        }
      });
    });
  }

  private route(data: string): void {
    // A typed Ctrl-Z arrives alone (in raw mode it is a byte, not a signal).
    if (data === CTRL_Z && this.stdin.isTTY) {
      this.suspend();
      return;
    }
    const subscriber = this.subscribers.at(-1);
    if (subscriber) {
      subscriber(data);
      return;
    }
    if (this.lineActive && this.keySink) {
      for (const piece of this.paste.pieces(data)) this.keySink(piece);
      return;
    }
    this.queue(data);
  }
}
