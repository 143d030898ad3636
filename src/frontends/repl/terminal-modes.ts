// The terminal modes agentx changes — raw input and bracketed paste — and giving them back: on
// stop, on every exit (process.exit, a crash: Node emits 'exit' for an uncaught exception too,
// SIGTERM/SIGHUP end through process.exit), and around a suspension (Ctrl-Z, or SIGTSTP from
// outside): the modes are restored, the process stops, and on `fg` they are set again and the
// caller redraws. The cursor is shown on every restore (nothing may leave it hidden).

const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';
const CURSOR_ON = '\x1b[?25h';

/** The parts of `process` this needs (a fake in tests). */
export interface ProcessSignals {
  readonly pid: number;
  on(event: 'exit' | 'SIGTSTP' | 'SIGCONT', listener: () => void): unknown;
  off(event: 'exit' | 'SIGTSTP' | 'SIGCONT', listener: () => void): unknown;
  kill(pid: number, signal: 'SIGTSTP'): unknown;
}

interface Input {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}
interface Output {
  isTTY?: boolean;
  write(s: string): unknown;
}

export class TerminalModes {
  private on = false;
  private readonly onExit = (): void => this.restore();
  private readonly onStop = (): void => this.suspend();
  // After a stop agentx did not see coming (SIGSTOP), the shell may have reset the terminal.
  private readonly onContinue = (): void => {
    if (this.on) this.apply();
  };

  constructor(
    private readonly input: Input,
    private readonly output: Output,
    private readonly onResume: () => void,
    private readonly proc: ProcessSignals = process,
  ) {}

  get enabled(): boolean {
    return this.on;
  }

  enable(): void {
    if (this.on) return;
    this.apply();
    this.on = true;
    this.proc.on('exit', this.onExit);
    this.proc.on('SIGTSTP', this.onStop);
    this.proc.on('SIGCONT', this.onContinue);
  }

  disable(): void {
    if (!this.on) return;
    this.restore();
    this.on = false;
    this.proc.off('exit', this.onExit);
    this.proc.off('SIGTSTP', this.onStop);
    this.proc.off('SIGCONT', this.onContinue);
  }

  /**
   * Gives the terminal back and stops the process (the shell's job control takes over); returns
   * after `fg` with the modes set again. A stop signal to a process that no shell could resume
   * (an orphaned process group) is discarded by the kernel: then this returns at once.
   */
  suspend(): void {
    if (!this.on) return;
    this.restore();
    this.output.write('^Z\n');
    // Without our listener SIGTSTP has its default action: stop. The stop happens before kill()
    // returns (the signal is delivered to this thread on the way out of the system call).
    this.proc.off('SIGTSTP', this.onStop);
    try {
      this.proc.kill(this.proc.pid, 'SIGTSTP');
    } finally {
      this.proc.on('SIGTSTP', this.onStop);
    }
    this.apply();
    this.onResume();
  }

  private apply(): void {
    if (this.input.isTTY === true) this.input.setRawMode?.(true);
    if (this.output.isTTY === true) this.output.write(PASTE_ON);
  }

  /** Synchronous (a TTY write is), so it also works in an 'exit' listener. */
  private restore(): void {
    if (this.input.isTTY === true) {
      try {
        this.input.setRawMode?.(false);
      } catch {
        // The terminal is already gone (hangup): nothing to give back.
      }
    }
    if (this.output.isTTY === true) this.output.write(PASTE_OFF + CURSOR_ON);
  }
}
