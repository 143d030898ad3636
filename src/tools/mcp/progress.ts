// Progress of a slow MCP call. A server that was given a `progressToken` may send
// `notifications/progress` ({progress, total?, message?}) while it works; each becomes one line
// for the person (`3/10 — indexing src/`), shown as the generic `tool_progress` event.
//
// Everything here comes from the server and is untrusted: numbers are checked (a report with a
// progress that is not a finite, non-negative number is ignored; a total that makes no sense is
// treated as unknown), the message is cut to one short line with escape sequences and other
// controls removed — in the terminal and in --json alike. A server may also send hundreds of
// reports a second, so a call's reports pass a throttle: at most one line a second, the newest
// state winning, nothing after the call ended.

import { cleanServerText } from '../../lib/text.ts';

/** The longest progress line shown (the server's message is cut to fit). */
export const PROGRESS_LINE_CHARS = 200;
/** The longest `server.tool` label of a progress line. */
export const PROGRESS_LABEL_CHARS = 80;
/** At most one progress event per call in this interval. */
export const PROGRESS_INTERVAL_MS = 1000;

/** The parameters of a `notifications/progress`, as the SDK hands them over (not trusted). */
export interface ProgressReport {
  progress?: unknown;
  total?: unknown;
  message?: unknown;
}

function finiteNonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(2)));
}

/**
 * One line for a progress report: `3/10 — indexing src/` when the total is known and both are
 * counts, `45% — …` when they are fractions, `1200 — files scanned` without a total. Undefined
 * for a report whose progress is not a finite, non-negative number: it is ignored.
 */
export function progressLine(report: ProgressReport): string | undefined {
  const progress = finiteNonNegative(report.progress);
  if (progress === undefined) return undefined;
  const givenTotal = finiteNonNegative(report.total);
  // A total of 0, or one below the progress, says nothing true about how far along the call is.
  const total = givenTotal !== undefined && givenTotal > 0 && givenTotal >= progress ? givenTotal : undefined;
  const amount =
    total === undefined
      ? formatNumber(progress)
      : Number.isInteger(progress) && Number.isInteger(total)
        ? `${progress}/${total}`
        : `${Math.floor((progress / total) * 100)}%`;
  const message = typeof report.message === 'string' ? cleanServerText(report.message, PROGRESS_LINE_CHARS) : '';
  return cleanServerText(message === '' ? amount : `${amount} — ${message}`, PROGRESS_LINE_CHARS);
}

/** `server.tool`, cleaned and cut: the label the terminal shows before a call's progress. */
export function progressLabel(server: string, tool: string): string {
  return cleanServerText(`${server}.${tool}`, PROGRESS_LABEL_CHARS);
}

/** Timers, given so the throttle's tests control time. */
export interface ThrottleClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: ThrottleClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * One call's progress lines, at most one per interval. The first is shown at once; later ones
 * within the interval wait, the newest replacing the older, and are shown when the interval
 * ends (a trailing emit), so the person always sees the latest state within a second. A line
 * equal to the last one shown is not shown again. `end()` stops it: nothing is shown after the
 * call ended — except that a state still waiting is shown by `end()` itself, before the call's
 * result, so the last thing the server said is not lost to the throttle.
 */
export class ProgressThrottle {
  private lastShown: string | undefined;
  private lastShownAt = Number.NEGATIVE_INFINITY;
  private waiting: string | undefined;
  private timer: unknown;
  private ended = false;

  constructor(
    private readonly show: (line: string) => void,
    private readonly intervalMs: number = PROGRESS_INTERVAL_MS,
    private readonly clock: ThrottleClock = realClock,
  ) {}

  push(line: string): void {
    if (this.ended) return;
    this.waiting = line;
    if (this.timer !== undefined) return;
    const wait = this.lastShownAt + this.intervalMs - this.clock.now();
    if (wait <= 0) this.flush();
    else this.timer = this.clock.setTimeout(() => this.flush(), wait);
  }

  /** The call ended: the state still waiting (if any) is shown now, and nothing after. */
  end(): void {
    if (this.ended) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.flush();
    this.ended = true;
  }

  private flush(): void {
    this.timer = undefined;
    const line = this.waiting;
    this.waiting = undefined;
    if (line === undefined || line === this.lastShown) return;
    this.lastShown = line;
    this.lastShownAt = this.clock.now();
    this.show(line);
  }
}
