// Owns the terminal's input for the whole session. stdin stays in raw mode and every chunk is
// routed to exactly one consumer: a menu or question (key subscribers), the line editor, or —
// while a turn or command runs — the interrupt handler (Ctrl-C / Ctrl-T). Raw mode is what
// makes Ctrl-C reach agentx as a byte instead of a SIGINT to the terminal's process group.
import { PassThrough } from 'node:stream';
import type { KeySource } from '../../ui/menu.ts';

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';
/** Newlines and tabs of pasted text travel through the single-line editor as these symbols. */
export const PASTE_NEWLINE = '\u2424';
export const PASTE_TAB = '\u2409';

const CTRL_C = '\x03';
const CTRL_T = '\x14';

function encodePasted(s: string): string {
  return s
    .replace(/\r\n|\r|\n/g, PASTE_NEWLINE)
    .replace(/\t/g, PASTE_TAB)
    // Other control bytes in pasted text would act as editing keys; they are not text.
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

/** The message as the user meant it: placeholders back to newlines and tabs. */
export function decodeMessage(line: string): string {
  return line.split(PASTE_NEWLINE).join('\n').split(PASTE_TAB).join('\t');
}

/** Length of the longest tail of `data` that could be the start of `marker` split across chunks. */
function heldTail(data: string, marker: string): number {
  for (let k = marker.length - 1; k >= 3; k--) if (data.endsWith(marker.slice(0, k))) return k;
  return 0;
}

/**
 * Turns pasted multi-line text into one editor line. Bracketed paste is exact; without it, a
 * chunk holding a newline followed by more text is taken as pasted (a typed Enter arrives alone).
 */
export class PasteFilter {
  private inPaste = false;
  private held = '';

  transform(chunk: string): string {
    let data = this.held + chunk;
    this.held = '';
    let out = '';
    while (data.length > 0) {
      const marker = this.inPaste ? PASTE_END : PASTE_START;
      const at = data.indexOf(marker);
      if (at === -1) {
        const keep = heldTail(data, marker);
        const body = data.slice(0, data.length - keep);
        out += this.inPaste ? encodePasted(body) : this.typed(body);
        this.held = data.slice(data.length - keep);
        return out;
      }
      out += this.inPaste ? encodePasted(data.slice(0, at)) : this.typed(data.slice(0, at));
      data = data.slice(at + marker.length);
      this.inPaste = !this.inPaste;
    }
    return out;
  }

  private typed(s: string): string {
    const m = /^([\s\S]*?)([\r\n]*)$/.exec(s);
    const body = m?.[1] ?? s;
    const trailing = m?.[2] ?? '';
    if (!/[\r\n]/.test(body)) return s;
    return encodePasted(body) + (trailing.length > 0 ? '\r' : '');
  }
}

export class TerminalInput implements KeySource {
  /** What the line editor reads: stdin after paste handling, only while a prompt is active. */
  readonly lineStream = new PassThrough();
  lineActive = false;
  /** stdin reached its end (the terminal is gone): no prompt can be answered any more. */
  ended = false;
  private subscribers: ((data: string) => void)[] = [];
  private interrupt: (() => void) | undefined;
  private readonly paste = new PasteFilter();
  private started = false;
  private readonly onData = (data: Buffer | string): void => this.route(typeof data === 'string' ? data : data.toString('utf8'));
  private readonly onEnd = (): void => {
    this.ended = true;
    this.lineStream.end();
  };

  constructor(private readonly stdin: NodeJS.ReadStream, private readonly stdout: NodeJS.WriteStream) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.stdin.isTTY) this.stdin.setRawMode(true);
    this.stdin.on('data', this.onData);
    this.stdin.once('end', this.onEnd);
    this.stdin.resume();
    this.stdout.write('\x1b[?2004h');
  }

  /** Gives the terminal back (exit, or a sub-program such as setup that reads stdin itself). */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    if (this.stdin.isTTY) this.stdin.setRawMode(false);
    this.stdin.pause();
    this.stdout.write('\x1b[?2004l');
  }

  subscribe(onData: (data: string) => void): () => void {
    this.subscribers.push(onData);
    return () => {
      this.subscribers = this.subscribers.filter((s) => s !== onData);
    };
  }

  /** While set (a turn or command runs), Ctrl-C and Ctrl-T call it; other keys are dropped. */
  setInterruptHandler(handler: (() => void) | undefined): void {
    this.interrupt = handler;
  }

  /** A SIGINT from outside (kill -INT) acts like Ctrl-C on whatever is running; false if nothing is. */
  interruptNow(): boolean {
    if (!this.interrupt) return false;
    this.interrupt();
    return true;
  }

  /** Waits for one of `choices` (lower-case letters). Esc answers "n"; Ctrl-C answers "cancel". */
  askKey(choices: string[]): Promise<string> {
    return new Promise((resolve) => {
      const off = this.subscribe((data) => {
        for (const ch of data) {
          const key = ch === CTRL_C ? 'cancel' : ch === '\x1b' && data.length === 1 ? 'n' : ch.toLowerCase();
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
    const subscriber = this.subscribers.at(-1);
    if (subscriber) {
      subscriber(data);
      return;
    }
    if (this.lineActive) {
      const text = this.paste.transform(data);
      if (text.length > 0) this.lineStream.write(text);
      return;
    }
    if (data.includes(CTRL_C) || data.includes(CTRL_T)) this.interrupt?.();
  }
}
