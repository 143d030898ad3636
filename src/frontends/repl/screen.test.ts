// Background notices never print over the prompt (issue 26 §5): what ComposerScreen writes is
// played on a small terminal model (the cursor moves and erases it uses), and the screen that
// results is checked row by row.
import { describe, expect, it } from 'vitest';
import { composerFrame } from '../../ui/composer-view.ts';
import { PLAIN_THEME } from '../../ui/theme.ts';
import { say } from './context.ts';
import { ComposerScreen } from './screen.ts';

/** A terminal that understands what the composer writes: text, CR, LF, CSI n A/B/C, CSI J, CSI K. */
class TinyTerminal {
  rows: string[] = [''];
  private row = 0;
  private col = 0;

  write(data: string): void {
    for (let i = 0; i < data.length; i++) {
      const ch = data[i] ?? '';
      if (ch === '\x1b') {
        const m = /^\x1b\[(\d*)([ABCJK])/.exec(data.slice(i));
        if (m === null) throw new Error(`unexpected escape ${JSON.stringify(data.slice(i, i + 8))}`);
        const n = m[1] === '' ? 1 : Number(m[1]);
        if (m[2] === 'A') this.row = Math.max(0, this.row - n);
        if (m[2] === 'B') this.row += n;
        if (m[2] === 'C') this.col += n;
        if (m[2] === 'J') this.rows = [...this.rows.slice(0, this.row), this.line().slice(0, this.col)];
        if (m[2] === 'K') this.rows[this.row] = this.line().slice(0, this.col);
        i += m[0].length - 1;
      } else if (ch === '\r') {
        this.col = 0;
      } else if (ch === '\n') {
        this.row++;
        this.col = 0;
      } else {
        const line = this.line().padEnd(this.col);
        this.rows[this.row] = line.slice(0, this.col) + ch + line.slice(this.col + 1);
        this.col++;
      }
      while (this.rows.length <= this.row) this.rows.push('');
    }
  }

  private line(): string {
    return this.rows[this.row] ?? '';
  }

  get screen(): string[] {
    const rows = [...this.rows];
    while (rows.length > 0 && rows.at(-1) === '') rows.pop();
    return rows;
  }
}

function frame(text: string, status?: string): ReturnType<typeof composerFrame> {
  return composerFrame({ prompt: 'you> ', text, cursor: text.length, columns: 60, maxRows: 20, status, theme: PLAIN_THEME });
}

describe('lines printed while the prompt is shown', () => {
  it('go above the prompt (and its status line), which is drawn again under them with what was typed', () => {
    const term = new TinyTerminal();
    term.write('earlier output\n');
    const screen = new ComposerScreen(term);
    screen.attach();
    try {
      screen.draw(frame('half a mess', 'gpt-5 · 80% left'));
      say({ out: term as unknown as NodeJS.WriteStream }, '⚠ a background notice');
      screen.draw(frame('half a message', 'gpt-5 · 80% left'));
      say({ out: term as unknown as NodeJS.WriteStream }, 'another one');
      expect(term.screen).toEqual(['earlier output', '⚠ a background notice', 'another one', 'you> half a message', 'gpt-5 · 80% left']);
    } finally {
      screen.detach();
    }
  });

  it('a multi-line message stays whole under the notice, the cursor back where it was', () => {
    const term = new TinyTerminal();
    const screen = new ComposerScreen(term);
    screen.attach();
    try {
      screen.draw(frame('line one\nline two'));
      say({ out: term as unknown as NodeJS.WriteStream }, 'notice');
      term.write('X');
      expect(term.screen).toEqual(['notice', 'you> line one', '  line twoX']);
    } finally {
      screen.detach();
    }
  });

  it('with no prompt shown, a line is simply written', () => {
    const term = new TinyTerminal();
    say({ out: term as unknown as NodeJS.WriteStream }, 'plain');
    expect(term.screen).toEqual(['plain']);
  });
});
