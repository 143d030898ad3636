// How a model command is shown: in the tool display (`$ cmd`) and in the --confirm question.
// Shown exactly: every control character (CR, ESC, tab, …) and every bidi override or invisible
// character appears as an escape, marked (inverse video) so it cannot pass for literal text; a
// newline starts a new row behind a gutter. Nothing in a command can move the cursor, erase or
// rewrite what is on screen, so the question the person answers is about the real command.
import { showControls } from './sanitize.ts';
import type { Theme } from './theme.ts';

/** The rows of one command, each with its controls shown. */
export function commandRows(command: string, theme: Theme): string[] {
  return command.split('\n').map((row) => showControls(row, (e) => theme.inverse(e)));
}

/** `$ first row` and continuation rows under it, for the tool display. */
export function formatCommand(command: string, theme: Theme): string {
  const rows = commandRows(command, theme);
  return rows.map((row, i) => (i === 0 ? theme.cyan(`$ ${row}`) : theme.cyan(`│ ${row}`))).join('\n');
}

/** Several commands of one call, as the model sent them, on one line (for short notes). */
export function commandsInline(commands: string[], theme: Theme): string {
  return commands.map((c) => showControls(c, (e) => theme.inverse(e))).join(' && ');
}

/**
 * The --confirm question: the exact commands, then the choices on a line of their own. Ends
 * without a newline (the answer is echoed after it).
 */
export function confirmPrompt(commands: string[], theme: Theme): string {
  const lines = [`${theme.yellow('?')} run ${commands.length === 1 ? 'this command' : `these ${commands.length} commands`}:`];
  for (const command of commands) {
    commandRows(command, theme).forEach((row, i) => lines.push(`  ${theme.cyan(i === 0 ? `$ ${row}` : `│ ${row}`)}`));
  }
  lines.push(`  ${theme.bold('[y]es / [n]o / [a]lways')}: `);
  return lines.join('\n');
}
