// One exec session: a running command, the output it printed since the model last read, and its
// end. Output between reads is kept in a bounded head+tail buffer (SESSION_BUFFER_BYTES); a read
// takes what is there and says how much of the middle was dropped.
import { OutputCollector } from '../output.ts';
import { SESSION_BUFFER_BYTES } from './limits.ts';
import type { ExecProcess } from './process.ts';

export interface SessionExit {
  code: number | null;
  signal: string | null;
  /** Stopped by agentx or the person (/stop, agentx exiting), not ended by itself. */
  stopped: boolean;
}

export interface SessionRead {
  text: string;
  /** Bytes the buffer dropped from the middle since the last read. */
  cutBytes: number;
  /** All bytes printed since the last read. */
  totalBytes: number;
}

/** What /ps shows of a session. */
export interface SessionInfo {
  id: number;
  command: string;
  tty: boolean;
  startedAt: number;
  lastLine: string;
  running: boolean;
}

/** Longest last line kept for /ps; the rest of a long line is of no use in a listing. */
const LAST_LINE_CHARS = 200;
/** The end of the output kept for the crash report (what the session printed last, whatever was read). */
const RECENT_CHARS = 1000;

export class ExecSession {
  private buffer = new OutputCollector(SESSION_BUFFER_BYTES);
  private lastLineText = '';
  private recentText = '';
  private exitInfo: SessionExit | undefined;
  private readonly waiters = new Set<() => void>();
  private stopRequested = false;
  process: ExecProcess | undefined;

  constructor(
    readonly id: number,
    readonly command: string,
    readonly tty: boolean,
    readonly startedAt: number,
    /** Each chunk as it comes (--json output events, batched by the caller). */
    private readonly onChunk?: (chunk: Buffer) => void,
  ) {}

  get exit(): SessionExit | undefined {
    return this.exitInfo;
  }

  info(): SessionInfo {
    return { id: this.id, command: this.command, tty: this.tty, startedAt: this.startedAt, lastLine: this.lastLineText, running: this.exitInfo === undefined };
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.buffer.push(chunk);
    this.rememberEnd(chunk);
    this.onChunk?.(chunk);
  }

  private rememberEnd(chunk: Buffer): void {
    // Only the end of a chunk can hold the last line, and decoding a flood whole would make
    // garbage at its own rate: the last bytes only (a character cut at their start is trimmed away).
    const cut = chunk.length > RECENT_CHARS * 4;
    const tail = chunk.subarray(cut ? chunk.length - RECENT_CHARS * 4 : 0).toString('utf8');
    // A chunk longer than what is kept replaces it; a short one extends it.
    this.recentText = (cut ? tail : this.recentText + tail).slice(-RECENT_CHARS);
    const lines = tail.split(/\r?\n|\r/).map((l) => l.trim()).filter((l) => l !== '');
    const last = lines.at(-1);
    if (last !== undefined) this.lastLineText = last.slice(-LAST_LINE_CHARS);
  }

  /** The end of everything it printed (about the last 1000 characters), read or not. */
  recentOutput(): string {
    return this.recentText;
  }

  markStopping(): void {
    this.stopRequested = true;
  }

  ended(code: number | null, signal: string | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal, stopped: this.stopRequested };
    this.process?.release();
    this.wake();
  }

  /** Takes the output since the last read. */
  read(): SessionRead {
    const total = this.buffer.totalBytes;
    const { text, cutBytes } = this.buffer.result();
    this.buffer = new OutputCollector(SESSION_BUFFER_BYTES);
    return { text, cutBytes, totalBytes: total };
  }

  /**
   * Resolves after `ms`, when the session ends, or when `signal` aborts, whichever comes first.
   * Output alone does not end the wait: a call answers with what the yield time collected.
   */
  wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.exitInfo || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(check);
        resolve();
      };
      const check = (): void => {
        if (this.exitInfo) done();
      };
      const onAbort = (): void => done();
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(check);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
