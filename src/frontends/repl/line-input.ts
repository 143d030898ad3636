// One prompt = one node:readline interface over the terminal's line stream. A fresh interface
// per prompt means nothing of the editor listens while a turn, a menu or a command owns the keys.
import { createInterface, type Completer } from 'node:readline';
import { decodeMessage, type TerminalInput } from './terminal.ts';
import { HISTORY_MAX } from './history.ts';

export type LineResult =
  | { kind: 'line'; text: string }
  | { kind: 'eof' }
  | { kind: 'interrupt'; hadText: boolean };

export interface LineOptions {
  prompt: string;
  /** Newest first; readline adds entered lines to it in place. */
  history: string[];
  completer?: Completer;
  onHistory?: (history: string[]) => void;
}

export function readLine(term: TerminalInput, output: NodeJS.WriteStream, opts: LineOptions): Promise<LineResult> {
  if (term.ended) return Promise.resolve({ kind: 'eof' });
  return new Promise((resolve) => {
    term.lineActive = true;
    const rl = createInterface({
      input: term.lineStream,
      output,
      terminal: true,
      history: opts.history,
      historySize: HISTORY_MAX,
      removeHistoryDuplicates: true,
      completer: opts.completer,
      prompt: opts.prompt,
      tabSize: 4,
    });
    let done = false;
    // Pasted text is inserted in one step: readline measures the whole line for every key, so
    // 100 KB typed key by key through it would take minutes.
    term.pasteSink = (text) => rl.write(text);
    // Back from Ctrl-Z (fg): the prompt and what was typed so far, drawn again.
    const offResume = term.subscribeResume(() => rl.prompt(true));
    const finish = (result: LineResult): void => {
      if (done) return;
      done = true;
      term.lineActive = false;
      term.pasteSink = undefined;
      offResume();
      rl.close();
      resolve(result);
    };
    rl.on('line', (line) => finish({ kind: 'line', text: decodeMessage(line) }));
    rl.on('history', (h: string[]) => opts.onHistory?.(h));
    // Ctrl-D on an empty line: readline closes itself.
    rl.on('close', () => {
      if (!done) output.write('\n');
      finish({ kind: 'eof' });
    });
    rl.on('SIGINT', () => {
      const hadText = rl.line.length > 0;
      output.write('^C\n');
      finish({ kind: 'interrupt', hadText });
    });
    rl.prompt();
  });
}
