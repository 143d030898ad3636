// Live output of a command on the terminal: sanitised per stream (an escape sequence split across
// two chunks of stdout is still one sequence, whatever stderr wrote in between), folded to the
// terminal width, indented, and cut after `maxRows` rows (the caller says how many were left out).
// Text arrives as the command writes it; a long line without a newline is shown row by row as it
// folds, never as one endless line.
import { TerminalSanitizer } from './sanitize.ts';

export interface OutputViewOptions {
  write(s: string): unknown;
  /** Keep the command's own colours (a colour terminal). */
  keepColors: boolean;
  /** Columns of text per row (the indent comes on top). */
  width: number;
  /** Rows shown before the rest is only counted. */
  maxRows: number;
  /** Put before every row. Default two spaces. */
  indent?: string;
  /** Styles each piece of a row (dim for model commands). */
  style?: (s: string) => string;
}

export class OutputView {
  private readonly sanitizers = new Map<string, TerminalSanitizer>();
  private rows = 0;
  private elided = 0;
  /** A shown row is unfinished (the next text continues it). */
  private rowOpen = false;
  /** A row past the limit is unfinished (counted when it ends). */
  private hiddenOpen = false;
  private readonly indent: string;
  private readonly style: (s: string) => string;

  constructor(private readonly opts: OutputViewOptions) {
    this.indent = opts.indent ?? '  ';
    this.style = opts.style ?? ((s) => s);
  }

  push(chunk: string, stream = 'stdout'): void {
    let z = this.sanitizers.get(stream);
    if (!z) {
      z = new TerminalSanitizer({ keepSgr: this.opts.keepColors, foldWidth: this.opts.width });
      this.sanitizers.set(stream, z);
    }
    this.show(z.push(chunk));
  }

  /** The command ended: shows what was held and ends the row. Returns the rows left out. */
  end(): number {
    for (const z of this.sanitizers.values()) this.show(z.end());
    this.sanitizers.clear();
    if (this.rowOpen) {
      this.opts.write(this.opts.keepColors ? '\x1b[0m\n' : '\n');
      this.rows++;
      this.rowOpen = false;
    }
    if (this.hiddenOpen) this.elided++;
    this.hiddenOpen = false;
    return this.elided;
  }

  private show(text: string): void {
    if (text === '') return;
    const parts = text.split('\n');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (this.rows >= this.opts.maxRows) {
        if (!last) {
          this.elided++;
          this.hiddenOpen = false;
        } else if (part !== '') this.hiddenOpen = true;
        return;
      }
      let piece = '';
      if (part !== '') {
        piece += (this.rowOpen ? '' : this.indent) + this.style(part);
        this.rowOpen = true;
      }
      if (!last) {
        piece += '\n';
        this.rows++;
        this.rowOpen = false;
      }
      if (piece !== '') this.opts.write(piece);
    });
  }
}
