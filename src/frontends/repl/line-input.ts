// One prompt = one composer (composer/reduce.ts) drawn by a ComposerScreen, fed by the terminal's
// keys while it is active. Nothing of the editor listens while a turn, a menu or a command owns
// the keys; what is typed then is queued by TerminalInput and replayed here first (type-ahead).
import { composerFrame } from '../../ui/composer-view.ts';
import type { Theme } from '../../ui/theme.ts';
import { parseKeys, type Key } from './composer/keys.ts';
import { expandPastes, type PasteStore } from './composer/paste.ts';
import { reduce, type Completion, type ComposerEnv, type Effect } from './composer/reduce.ts';
import { withFinder } from './composer/finder.ts';
import { rankPaths } from './composer/fuzzy.ts';
import { EMPTY, type ComposerState } from './composer/state.ts';
import { HISTORY_MAX } from './history.ts';
import { ComposerScreen } from './screen.ts';
import { decodeMessage, type InputPiece, type TerminalInput } from './terminal.ts';

export type LineResult = { kind: 'line'; text: string } | { kind: 'eof' } | { kind: 'interrupt'; hadText: boolean };

export interface LineOptions {
  prompt: string;
  /** Newest first; a sent message is added to it in place (pasted blocks as their placeholder). */
  history: string[];
  pastes: PasteStore;
  theme: Theme;
  complete?: (text: string, cursor: number) => Completion;
  /** The status line under the prompt (formatted); undefined: none. */
  status?: (columns: number) => string | undefined;
  onHistory?: (history: string[]) => void;
  /** Ctrl-O: the full output of the last command (sanitized, ending in a newline), printed above the prompt. */
  lastOutput?: () => string | undefined;
  /**
   * The project's files for the `@` finder (relative to the working directory); undefined while
   * they are being read, and `onReady` is called when they are known. Absent: no finder.
   */
  listFiles?: (onReady: () => void) => readonly string[] | undefined;
  /** Calls `redraw` when what the status line shows changed meanwhile (a background session ended); returns the unsubscribe. */
  watchStatus?: (redraw: () => void) => () => void;
}

const NO_COMPLETION = (_text: string, cursor: number): Completion => ({ start: cursor, candidates: [] });

export function readLine(term: TerminalInput, output: NodeJS.WriteStream, opts: LineOptions): Promise<LineResult> {
  if (term.ended) return Promise.resolve({ kind: 'eof' });
  return new Promise((resolve) => {
    const screen = new ComposerScreen(output);
    let state: ComposerState = EMPTY;
    let done = false;
    const filesReady = (): void => {
      if (done || !state.finder) return;
      state = withFinder(state, env, true);
      draw();
    };
    const listFiles = opts.listFiles;
    const env: ComposerEnv = {
      history: opts.history,
      pastes: opts.pastes,
      complete: opts.complete ?? NO_COMPLETION,
      findFiles: listFiles
        ? (query, limit) => {
            const files = listFiles(filesReady);
            return files === undefined ? undefined : rankPaths(files, query, limit);
          }
        : undefined,
    };
    const draw = (): void => {
      if (done) return;
      const columns = output.columns > 0 ? output.columns : 80;
      const rows = output.rows > 0 ? output.rows : 24;
      screen.draw(
        composerFrame({
          prompt: opts.prompt,
          text: state.text,
          cursor: state.cursor,
          columns,
          maxRows: Math.max(3, rows - 2),
          search: state.search ? { query: state.search.query, found: state.search.match !== undefined } : undefined,
          completions: state.completions,
          finder: state.finder,
          status: opts.status?.(columns),
          theme: opts.theme,
        }),
      );
    };
    const finish = (result: LineResult, echo?: string): void => {
      if (done) return;
      screen.finish();
      if (echo !== undefined) output.write(echo);
      done = true;
      term.keySink = undefined;
      term.lineActive = false;
      offResume();
      offResize();
      offStatus();
      resolve(result);
    };
    const act = (effect: Effect): void => {
      switch (effect.kind) {
        case 'submit': {
          const entry = effect.text;
          if (entry.trim() !== '') remember(opts, entry);
          finish({ kind: 'line', text: decodeMessage(expandPastes(entry, opts.pastes)) });
          return;
        }
        case 'eof':
          finish({ kind: 'eof' });
          return;
        case 'interrupt':
          finish({ kind: 'interrupt', hadText: effect.hadText }, '^C\n');
          return;
        case 'clearScreen':
          output.write('\x1b[H\x1b[2J');
          screen.forget();
          return;
        case 'showLastOutput':
          screen.printAbove(opts.lastOutput?.() ?? opts.theme.dim('No command has run in this session yet.\n'));
          return;
      }
    };
    const handleKeys = (keys: Key[]): void => {
      for (const [i, key] of keys.entries()) {
        if (done) {
          // Two messages typed ahead: the second waits for the next prompt.
          term.leftoverKeys = keys.slice(i);
          return;
        }
        const step = reduce(state, key, env);
        state = step.state;
        for (const effect of step.effects) act(effect);
      }
      draw();
    };
    const onPiece = (piece: InputPiece): void => {
      handleKeys(piece.kind === 'paste' ? [{ kind: 'paste', text: decodeMessage(piece.text) }] : parseKeys(piece.text));
    };
    // Back from Ctrl-Z (fg), or a new width: the prompt and what was typed so far, drawn again.
    const offResume = term.subscribeResume(() => screen.redraw());
    const onResize = (): void => screen.redraw();
    output.on('resize', onResize);
    const offResize = (): void => {
      output.off('resize', onResize);
    };
    const offStatus = opts.watchStatus?.(() => draw()) ?? ((): void => undefined);
    screen.attach();
    term.lineActive = true;
    term.keySink = onPiece;
    draw();
    // What was typed while the last turn ran, as if typed now (an Enter in it sends it; what
    // follows that Enter waits for the prompt after this one).
    const leftover = term.leftoverKeys;
    term.leftoverKeys = [];
    if (leftover.length > 0) handleKeys(leftover);
    const typedAhead = term.takeTypeAhead();
    if (typedAhead.length > 0) {
      if (done) term.leftoverKeys = [...term.leftoverKeys, ...typedAhead];
      else {
        screen.printAbove(opts.theme.dim('(what you typed during the turn)\n'));
        handleKeys(typedAhead);
      }
    }
  });
}

/** Newest first, no older duplicate, at most HISTORY_MAX. */
function remember(opts: LineOptions, entry: string): void {
  const h = opts.history;
  const old = h.indexOf(entry);
  if (old !== -1) h.splice(old, 1);
  h.unshift(entry);
  if (h.length > HISTORY_MAX) h.length = HISTORY_MAX;
  opts.onHistory?.(h);
}
