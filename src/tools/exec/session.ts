// One exec session: a running command, the output it printed since the model last read, and its
// end. Output between reads is kept in a bounded head+tail buffer (SESSION_BUFFER_BYTES); a read
// takes what is there and says how much of the middle was dropped.
import { SESSION_BUFFER_BYTES } from './limits.ts';
import { SessionBuffer } from './session-buffer.ts';
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
/** The end of the output kept for /ps and the crash report (what the session printed last, whatever was read). */
const RECENT_BYTES = 4000;
const RECENT_CHARS = 1000;

function newBuffer(): SessionBuffer {
  return new SessionBuffer(SESSION_BUFFER_BYTES / 2, SESSION_BUFFER_BYTES / 2);
}

export class ExecSession {
  private readonly buffer = newBuffer();
  /** The last bytes printed, raw: decoded only when asked for (a flood decodes nothing). */
  private readonly recent = new SessionBuffer(0, RECENT_BYTES);
  private exitInfo: SessionExit | undefined;
  private readonly waiters = new Set<() => void>();
  private stopRequested = false;
  process: ExecProcess | undefined;
  /** Started in the read-only sandbox: what it is typed cannot change files (plan mode checks it). */
  readOnly = false;

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
    return { id: this.id, command: this.command, tty: this.tty, startedAt: this.startedAt, lastLine: this.lastLine(), running: this.exitInfo === undefined };
  }

  /** `chunk` is copied: the caller may reuse its memory once this returns. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.buffer.push(chunk);
    this.recent.push(chunk);
    this.onChunk?.(chunk);
  }

  private lastLine(): string {
    const lines = this.recent
      .peekTail()
      .split(/\r?\n|\r/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    return (lines.at(-1) ?? '').slice(-LAST_LINE_CHARS);
  }

  /** The end of everything it printed (about the last 1000 characters), read or not. */
  recentOutput(): string {
    return this.recent.peekTail().slice(-RECENT_CHARS);
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
    return this.buffer.take();
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
