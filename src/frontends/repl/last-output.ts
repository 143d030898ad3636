// Ctrl-O at the prompt: the whole output of the last command (the turn's view shows 12 rows and
// "… N more lines"). Kept raw, up to a bound, and shown through the same sanitizer as live
// output, without a pager: it is printed above the prompt and stays in the scrollback.
import { OutputView } from '../../ui/output-view.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import type { Theme } from '../../ui/theme.ts';

/** Bytes of one command's output kept for Ctrl-O (what is past them is counted, not kept). */
export const LAST_OUTPUT_MAX_BYTES = 2 * 2 ** 20;

interface Captured {
  command: string;
  chunks: { chunk: string; stream: string }[];
  bytes: number;
  droppedBytes: number;
}

export class LastOutput {
  private readonly running = new Map<string, Captured>();
  private last: Captured | undefined;

  start(callId: string, command: string): void {
    this.running.set(callId, { command, chunks: [], bytes: 0, droppedBytes: 0 });
  }

  push(callId: string, chunk: string, stream: string): void {
    const c = this.running.get(callId);
    if (!c) return;
    const size = Buffer.byteLength(chunk, 'utf8');
    if (c.bytes + size > LAST_OUTPUT_MAX_BYTES) {
      c.droppedBytes += size;
      return;
    }
    c.bytes += size;
    c.chunks.push({ chunk, stream });
  }

  done(callId: string): void {
    const c = this.running.get(callId);
    if (!c) return;
    this.running.delete(callId);
    this.last = c;
  }

  /** A `!command` of the person (its output was shown in full already, but scrolled away maybe). */
  record(command: string, output: string): void {
    this.start('!', command);
    this.push('!', output, 'stdout');
    this.done('!');
  }

  /** The text to print (ends in a newline), or undefined when no command ran yet. */
  show(theme: Theme, columns: number, keepColors: boolean): string | undefined {
    const c = this.last;
    if (!c) return undefined;
    let text = theme.dim(`── full output of $ ${sanitizeLine(c.command)}`) + '\n';
    const view = new OutputView({
      write: (s) => {
        text += s;
      },
      keepColors,
      width: Math.max(20, columns - 1),
      maxRows: Infinity,
      indent: '',
    });
    for (const { chunk, stream } of c.chunks) view.push(chunk, stream);
    view.end();
    if (c.bytes === 0) text += theme.dim('(no output)\n');
    if (c.droppedBytes > 0) text += theme.dim(`… ${c.droppedBytes} more bytes were not kept\n`);
    return text + theme.dim('── end of output') + '\n';
  }
}
