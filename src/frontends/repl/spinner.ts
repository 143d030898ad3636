// "thinking…" until the model's first token: without it a slow first token looks like a hang.
import type { Theme } from '../../ui/theme.ts';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private startedAt = 0;
  private shown: string;

  constructor(
    private readonly out: { write(s: string): unknown },
    private readonly theme: Theme,
    private readonly label = 'thinking…',
    /** A note after the label (what is queued for the next prompt). */
    private readonly note: () => string = () => '',
  ) {
    this.shown = label;
  }

  get active(): boolean {
    return this.timer !== undefined;
  }

  /** Call only with the cursor at the start of a line: the spinner owns that line until stop(). */
  start(label = this.label): void {
    if (this.timer) return;
    this.shown = label;
    this.startedAt = Date.now();
    this.draw();
    this.timer = setInterval(() => this.draw(), INTERVAL_MS);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write('\r\x1b[K');
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.startedAt) / 1000);
    const glyph = FRAMES[this.frame++ % FRAMES.length] ?? '';
    const elapsed = seconds >= 2 ? ` ${seconds}s` : '';
    this.out.write(`\r${this.theme.cyan(glyph)} ${this.theme.dim(`${this.shown}${elapsed} (Ctrl-C or Esc to cancel)${this.note()}`)}\x1b[K`);
  }
}
