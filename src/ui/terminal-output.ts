// What the answer looks like on a terminal: Markdown rendering (loaded only when it will be used)
// and the width to fold and wrap at. Pipes, files, --json, --raw, --no-color and NO_COLOR get
// the model's text as it came (sanitised on a terminal), and never load the Markdown code.

// The renderer's shape lives with it; a type import loads nothing (the renderer stays lazy).
import type { MarkdownStream } from './markdown/stream.ts';
export type { MarkdownStream };

export type MarkdownFactory = (opts: { columns: () => number }) => MarkdownStream;

export interface OutputChoice {
  /** `--raw`: print answers as plain text. */
  raw?: boolean;
  /** `--no-color` makes this false. */
  color: boolean;
  json?: boolean;
}

/** What the renderer needs from the terminal (spread into RenderOptions). */
export interface TerminalRenderOptions {
  columns: () => number;
  errColumns: () => number;
  markdown?: MarkdownFactory;
}

/** Markdown only where a person reads colours: a TTY, colours on, no --raw or --json. */
export function markdownWanted(choice: OutputChoice, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return stream.isTTY === true && choice.color && !noColor && choice.raw !== true && choice.json !== true;
}

/** Loads the Markdown renderer (a separate chunk of the bundle: marked and highlight.js). */
export async function loadMarkdown(): Promise<MarkdownFactory> {
  const mod = await import('./markdown/stream.ts');
  return mod.createMarkdownStream;
}

let prepared: MarkdownFactory | undefined;
/** Loads the renderer chosen by the last preparation; undefined when plain text was chosen. */
let load: (() => Promise<void>) | undefined;
let loading: Promise<void> | undefined;

/**
 * Decides once per process whether answers are rendered as Markdown and loads the renderer if
 * so; `terminalRenderOptions` then hands it to every renderer. A renderer that cannot load
 * (a broken install) falls back to plain text rather than failing the session.
 */
export function prepareTerminalOutput(choice: OutputChoice, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Promise<void> {
  prepareTerminalOutputLater(choice, stream, env);
  return terminalOutputPrepared();
}

/**
 * The same decision, but the renderer (marked and highlight.js, ~40 ms of a start) is loaded only
 * when `terminalOutputPrepared` is first called: the REPL draws its prompt first, and awaits it
 * before each turn's renderer, so no answer is ever shown without its Markdown.
 */
export function prepareTerminalOutputLater(choice: OutputChoice, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): void {
  prepared = undefined;
  loading = undefined;
  load = markdownWanted(choice, stream, env)
    ? () =>
        loadMarkdown().then(
          (factory) => {
            prepared = factory;
          },
          () => undefined,
        )
    : undefined;
}

/** Resolves once the renderer chosen is loaded (starting the load if nothing has yet). */
export function terminalOutputPrepared(): Promise<void> {
  return (loading ??= load ? load() : Promise.resolve());
}

/** The width when no terminal says one: the usual terminal's. */
export const DEFAULT_COLUMNS = 80;

/**
 * The width to fold and wrap what goes to `stream` at: a terminal's own, else `COLUMNS` (a
 * positive whole number), else 80. A pipe or file has no width, and some terminals report 0
 * columns (a serial console, a pty nobody sized): before, the first meant 80 whatever COLUMNS
 * said and the second folded command output at the renderer's 20-column floor.
 */
export function terminalColumns(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  if (stream.isTTY === true && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS;
}

/**
 * The renderer's terminal options for an answer written to `stream`. `err` is where command
 * output and the plan go, when that is another stream (a one-shot's stderr): folded to its own width.
 */
export function terminalRenderOptions(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv = {},
  err: { isTTY?: boolean; columns?: number } = stream,
): TerminalRenderOptions {
  return { columns: () => terminalColumns(stream, env), errColumns: () => terminalColumns(err, env), markdown: prepared };
}
