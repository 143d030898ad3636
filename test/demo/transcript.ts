// How the demo prints: section headers, the narrator's notes, agentx's terminal lines (indented
// under a gutter) and one-shot commands. Colours only when the output is a terminal.
export interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface Transcript {
  /** Whether lines handed to `terminal` may keep their colours. */
  readonly colour: boolean;
  header(index: number, total: number, title: string, blurb: string): void;
  /** A line from the demo itself (what it does behind the scenes, what it checked). */
  note(text: string): void;
  /** Lines from agentx's terminal. */
  terminal(lines: readonly string[]): void;
  /** A command typed in a second shell (a one-shot beside the REPL). */
  command(line: string): void;
  plain(text: string): void;
}

const WIDTH = 78;
const GUTTER = '│ ';

export function createTranscript(out: Output, env: NodeJS.ProcessEnv): Transcript {
  const colour = out.isTTY === true && (env.NO_COLOR ?? '') === '';
  const paint = (code: string, s: string): string => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);
  const line = (s: string): void => {
    out.write(`${s}\n`);
  };
  return {
    colour,
    header(index, total, title, blurb) {
      const label = `── ${index}/${total}  ${title} `;
      line('');
      line(paint('1;36', label + '─'.repeat(Math.max(3, WIDTH - label.length))));
      for (const l of blurb.split('\n')) line(paint('2', l));
      line('');
    },
    note(text) {
      for (const l of text.split('\n')) line(paint('35', `▸ ${l}`));
    },
    terminal(lines) {
      for (const l of lines) line(l === '' ? paint('2', GUTTER.trimEnd()) : `${paint('2', GUTTER)}${l}`);
    },
    command(cmd) {
      line(paint('1', `$ ${cmd}`));
    },
    plain(text) {
      line(text);
    },
  };
}
