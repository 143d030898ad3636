// agentx in a real pseudo-terminal, driven like a person would: wait until something is on the
// screen, then type. Every wait has a timeout and a name, so a demo that gets stuck says where.
import { spawn as ptySpawn, type IPty } from '@lydell/node-pty';
import { Screen, plainText } from './screen.ts';
import type { Transcript } from './transcript.ts';

export const COLS = 100;
export const ROWS = 50;
export const STEP_TIMEOUT_MS = 20_000;

/** A step of the demo that did not happen: which section, which step, what was on screen. */
export class DemoStepError extends Error {
  constructor(section: string, step: string, detail: string) {
    super(`in "${section}", step "${step}": ${detail}`);
    this.name = 'DemoStepError';
  }
}

/** The section being played, for error messages. */
export interface Progress {
  section: string;
}

/** The REPL prompt `user@host:~/project> `. */
export const PROMPT = /\S+@\S+:\S*> /;

export interface SessionOptions {
  cli: string;
  args?: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  transcript: Transcript;
  progress: Progress;
}

export class PtySession {
  readonly pid: number;
  readonly exited: Promise<number>;
  private readonly pty: IPty;
  private readonly screen = new Screen(COLS, ROWS);
  private raw = '';
  private text = '';
  private cursor = 0;
  private alive = true;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly opts: SessionOptions) {
    this.pty = ptySpawn(process.execPath, [opts.cli, ...(opts.args ?? [])], {
      name: 'xterm-256color',
      cols: COLS,
      rows: ROWS,
      cwd: opts.cwd,
      env: opts.env,
    });
    this.pid = this.pty.pid;
    this.pty.onData((data) => {
      this.raw += data;
      this.text = plainText(this.raw);
      this.screen.write(data);
      this.opts.transcript.terminal(this.screen.takeScrolledOff(this.opts.transcript.colour));
      for (const wake of this.listeners) wake();
    });
    this.exited = new Promise((resolve) => {
      this.pty.onExit(({ exitCode }) => {
        this.alive = false;
        for (const wake of this.listeners) wake();
        resolve(exitCode);
      });
    });
  }

  /**
   * Waits until `pattern` appears after what earlier waits consumed, and moves past it.
   * `step` names the wait in the error when it times out or agentx exits first.
   */
  waitFor(pattern: string | RegExp, step: string, timeoutMs = STEP_TIMEOUT_MS): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = this.find(pattern);
        if (hit) {
          done();
          this.cursor = hit.end;
          resolve(hit.match);
        } else if (!this.alive) {
          done();
          reject(this.failure(step, `agentx exited while waiting for ${describe(pattern)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(this.failure(step, `nothing matching ${describe(pattern)} appeared within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Waits for the prompt, then prints everything above it (the screen is at rest). */
  async atPrompt(step: string, timeoutMs?: number): Promise<void> {
    await this.waitFor(PROMPT, step, timeoutMs);
    this.settle();
  }

  /** Prints the lines the cursor has left. */
  settle(): void {
    this.opts.transcript.terminal(this.screen.takeSettled(this.opts.transcript.colour));
  }

  /** Prints everything still held back (before a kill, or after the end). */
  flush(): void {
    this.opts.transcript.terminal(this.screen.takeAll(this.opts.transcript.colour));
  }

  /** Types a line and presses Enter (separate writes: Enter arrives alone, as from a person). */
  line(text: string): void {
    this.pty.write(text);
    this.pty.write('\r');
  }

  write(keys: string): void {
    this.pty.write(keys);
  }

  /**
   * Chooses a menu item, by its number or by the start of its label: the number is read from the
   * menu on screen (a reordered menu does not make the demo pick the wrong thing) and typed.
   */
  async choose(item: number | string, step: string): Promise<void> {
    const line = typeof item === 'number' ? new RegExp(`(?<!\\d)(${item})\\. `) : new RegExp(`(\\d+)\\. ${escapeRegExp(item)}`);
    const match = await this.waitFor(line, step);
    const number = /\d+/.exec(match)?.[0];
    if (number === undefined) throw this.failure(step, `no number in menu line ${JSON.stringify(match)}`);
    await this.waitFor('Esc to cancel', `${step} (the whole menu is drawn)`);
    this.pty.write(number);
    // Enter once the menu shows the choice, so the transcript shows what was selected.
    await this.waitFor(`❯ ${number}.`, `${step} (the choice is highlighted)`);
    this.pty.write('\r');
  }

  kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): void {
    if (this.alive) this.pty.kill(signal);
  }

  private find(pattern: string | RegExp): { match: string; end: number } | undefined {
    const rest = this.text.slice(this.cursor);
    if (typeof pattern === 'string') {
      const at = rest.indexOf(pattern);
      return at === -1 ? undefined : { match: pattern, end: this.cursor + at + pattern.length };
    }
    const m = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(rest);
    return m ? { match: m[0], end: this.cursor + m.index + m[0].length } : undefined;
  }

  private failure(step: string, detail: string): DemoStepError {
    const tail = this.text.trimEnd().split('\n').slice(-12).join('\n  | ');
    return new DemoStepError(this.opts.progress.section, step, `${detail}\n  the last lines on agentx's screen:\n  | ${tail}`);
  }
}

function describe(pattern: string | RegExp): string {
  return typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
