// Draws the composer as screen rows (pure): the prompt, the message wrapped at the terminal's
// width (continuation lines indented), the Ctrl-R search line or Tab's candidates, and the status
// line last. Also says where the cursor goes. Text is shown, never obeyed: control characters
// become one-cell pictures, so a column on screen is a character in the text.
import { charWidth, stringWidth } from './width.ts';
import type { Theme } from './theme.ts';

export interface ComposerFrameInput {
  /** The prompt (may hold colour sequences). */
  prompt: string;
  text: string;
  cursor: number;
  columns: number;
  /** Rows the composer may use at most (the rest of the screen stays output). */
  maxRows: number;
  search?: { query: string; found: boolean };
  completions?: readonly string[];
  /** The `@` file finder's list (undefined matches: still reading the project's files). */
  finder?: { query: string; matches: readonly string[] | undefined; selected: number };
  /** Already formatted (status-line.ts); undefined: none. */
  status?: string;
  theme: Theme;
}

export interface Frame {
  rows: string[];
  cursorRow: number;
  cursorColumn: number;
  /** Rows of the message itself (the rest: search, candidates, status). */
  bodyRows: number;
}

const CONTINUATION = '  ';

/** A one-cell picture for a control character (U+2400 block; tab as ⇥). */
function visible(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code === 9) return '⇥';
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return '␡';
  if (code >= 0x80 && code < 0xa0) return '·';
  return ch;
}

interface Wrapped {
  rows: string[];
  cursorRow: number;
  cursorColumn: number;
}

/** The message wrapped into rows of at most `columns` cells, first row after the prompt. */
function wrapText(promptWidth: number, text: string, cursor: number, columns: number): Wrapped {
  const rows: string[] = [];
  let row = '';
  let width = promptWidth;
  let cursorRow = 0;
  let cursorColumn = promptWidth;
  const newRow = (indent: string): void => {
    rows.push(row);
    row = indent;
    width = stringWidth(indent);
  };
  let i = 0;
  for (const ch of text) {
    if (i === cursor) {
      if (width >= columns) newRow('');
      cursorRow = rows.length;
      cursorColumn = width;
    }
    if (ch === '\n') {
      newRow(CONTINUATION);
    } else {
      const shown = visible(ch);
      const w = charWidth(shown.codePointAt(0) ?? 0);
      if (width + w > columns) newRow('');
      row += shown;
      width += w;
    }
    i += ch.length;
  }
  if (cursor >= text.length) {
    if (width >= columns) newRow('');
    cursorRow = rows.length;
    cursorColumn = width;
  }
  rows.push(row);
  return { rows, cursorRow, cursorColumn };
}

export function composerFrame(input: ComposerFrameInput): Frame {
  const columns = Math.max(10, input.columns);
  const t = input.theme;
  const promptWidth = Math.min(stringWidth(input.prompt), columns - 1);
  const wrapped = wrapText(promptWidth, input.text, input.cursor, columns);
  const body = wrapped.rows;
  body[0] = input.prompt + (body[0] ?? '');
  const extra: string[] = [];
  if (input.search) {
    const note = input.search.found || input.search.query === '' ? '' : t.yellow(' (no match)');
    extra.push(t.dim(`search history: ${input.search.query}`) + note + t.dim('  (Ctrl-R older · Enter takes · Esc cancels)'));
  } else if (input.finder) {
    extra.push(...finderRows(input.finder, columns, t));
  } else if (input.completions && input.completions.length > 0) {
    extra.push(...completionRows(input.completions, columns, t));
  }
  if (input.status !== undefined) extra.push(input.status);
  // A message taller than the screen: the rows around the cursor are shown.
  const room = Math.max(1, input.maxRows - extra.length);
  let first = 0;
  if (body.length > room) first = Math.min(Math.max(0, wrapped.cursorRow - room + 1), body.length - room);
  const shown = body.slice(first, first + room);
  return { rows: [...shown, ...extra], cursorRow: wrapped.cursorRow - first, cursorColumn: wrapped.cursorColumn, bodyRows: shown.length };
}

/** Paths come from the file system: shown with control characters as pictures, clipped to the width. */
function finderRows(f: NonNullable<ComposerFrameInput['finder']>, columns: number, t: Theme): string[] {
  if (f.matches === undefined) return [t.dim('  listing project files…')];
  const query = [...f.query].map(visible).join('');
  if (f.matches.length === 0) return [t.dim(`  no file matches @${query}  (Esc closes)`)];
  const rows = f.matches.map((path, i) => {
    let shown = [...path].map(visible).join('');
    if (stringWidth(shown) > columns - 3) shown = `…${[...shown].slice(-(columns - 4)).join('')}`;
    return i === f.selected ? `${t.cyan('›')} ${t.inverse(shown)}` : `  ${shown}`;
  });
  rows.push(t.dim('  ↑/↓ choose · Tab or Enter inserts · Esc closes'));
  return rows;
}

function completionRows(candidates: readonly string[], columns: number, t: Theme): string[] {
  const words: string[] = [];
  let row = '';
  const rows: string[] = [];
  for (const c of candidates.slice(0, 200)) {
    const shown = [...c].map(visible).join('');
    if (row !== '' && stringWidth(row) + 2 + stringWidth(shown) > columns) {
      rows.push(row);
      row = '';
    }
    row += (row === '' ? '' : '  ') + shown;
    words.push(shown);
    if (rows.length >= 4) break;
  }
  if (row !== '' && rows.length < 4) rows.push(row);
  if (candidates.length > words.length) rows.push(t.dim(`… ${candidates.length - words.length} more`));
  return rows.map((r) => t.dim(r));
}
