// A text file as lines, keeping what a patch must not disturb: each line's ending (CRLF files
// stay CRLF, mixed files stay mixed), a UTF-8 byte-order mark and a missing final newline.

export type Eol = '\n' | '\r\n' | '';

export interface TextLines {
  bom: boolean;
  /** Line contents without their endings. */
  lines: string[];
  /** The ending of each line; '' only for a last line without a final newline. */
  eols: Eol[];
  /** Whether the text ends with a line ending (an empty text counts as ending with one). */
  finalNewline: boolean;
  /** The ending given to new lines: CRLF when most lines use it, else LF. */
  eol: '\n' | '\r\n';
}

const BOM = '\uFEFF';

export function splitLines(text: string): TextLines {
  const bom = text.startsWith(BOM);
  const body = bom ? text.slice(1) : text;
  const lines: string[] = [];
  const eols: Eol[] = [];
  let crlf = 0;
  let start = 0;
  while (start < body.length) {
    const nl = body.indexOf('\n', start);
    if (nl < 0) {
      lines.push(body.slice(start));
      eols.push('');
      break;
    }
    if (nl > start && body.charCodeAt(nl - 1) === 13) {
      lines.push(body.slice(start, nl - 1));
      eols.push('\r\n');
      crlf++;
    } else {
      lines.push(body.slice(start, nl));
      eols.push('\n');
    }
    start = nl + 1;
  }
  const finalNewline = eols.length === 0 || eols[eols.length - 1] !== '';
  const lf = eols.length - crlf - (finalNewline ? 0 : 1);
  return { bom, lines, eols, finalNewline, eol: crlf > lf ? '\r\n' : '\n' };
}

/**
 * Joins lines back into text. A line with no ending of its own (inserted, or the old last line)
 * gets the file's dominant one; the last line ends with one only when the original text did.
 */
export function joinLines(lines: readonly string[], eols: readonly Eol[], shape: Pick<TextLines, 'bom' | 'finalNewline' | 'eol'>): string {
  // String concatenation builds a rope that is flattened once; faster here than parts + join.
  let out = shape.bom ? BOM : '';
  const last = lines.length - 1;
  let i = 0;
  for (const line of lines) {
    out += i < last || shape.finalNewline ? line + (eols[i] || shape.eol) : line;
    i++;
  }
  return out;
}

/** Content of an added file: every `+` line is a full line, so the file ends with a newline. */
export function addedFileText(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
