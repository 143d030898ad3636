// Parses V4A patches: the whole envelope (`*** Begin Patch` … `*** End Patch`, used by the
// function and custom tool forms) and the headerless diff of one built-in `apply_patch_call`
// operation. Pure; every error names the patch line it is about.
import { itemAt } from '../../lib/item-at.ts';
import { PatchError } from './types.ts';
import type { FileOperation, Hunk, HunkLine } from './types.ts';

interface Line {
  text: string;
  /** 1-based line number in the text the model sent. */
  no: number;
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File:';
const DELETE = '*** Delete File:';
const UPDATE = '*** Update File:';
const MOVE = '*** Move to:';
const END_OF_FILE = '*** End of File';
const HEADERS = [ADD, DELETE, UPDATE];
const HEADER_HELP = `expected a file section header (${ADD} <path>, ${DELETE} <path> or ${UPDATE} <path>)`;

/** `@@ -12,5 +12,6 @@` (a unified-diff range header): carries no anchor text. */
const UNIFIED_RANGE = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;
/** `<<'EOF'` / `apply_patch <<EOF`: a heredoc wrapper some models put around the patch. */
const HEREDOC_START = /^(?:apply_patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/;

function toLines(text: string): Line[] {
  return text.split(/\r?\n/).map((t, i) => ({ text: t, no: i + 1 }));
}

const isBlank = (line: Line): boolean => line.text.trim() === '';

function quote(text: string, max = 80): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}

function parseError(line: Line | undefined, message: string): PatchError {
  return new PatchError('parse', line ? `line ${line.no}: ${message}` : message);
}

/** The header kind and path of a section header line (markers may be whitespace-padded). */
function header(line: Line): { marker: string; path: string } | null {
  const trimmed = line.text.trim();
  for (const marker of HEADERS) {
    if (trimmed.startsWith(marker)) return { marker, path: trimmed.slice(marker.length).trim() };
  }
  return null;
}

/** A marker line, tolerating padding (where no diff line can stand). */
const isMarker = (line: Line, marker: string): boolean => line.text.trim() === marker;
/** A marker at column 0: inside an update, a line starting with ' ' is context, whatever follows. */
const isColumnZero = (line: Line, marker: string): boolean => line.text.trimEnd() === marker;

function endsSection(line: Line, inUpdate: boolean): boolean {
  if (inUpdate && line.text.startsWith(' ')) return false;
  return header(line) !== null || isMarker(line, END) || isMarker(line, BEGIN);
}

/** Removes blank lines at both ends and a heredoc wrapper around the envelope. */
function unwrap(lines: Line[]): Line[] {
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(itemAt(lines, start))) start++;
  while (end > start && isBlank(itemAt(lines, end - 1))) end--;
  const first = lines[start];
  const last = lines[end - 1];
  const heredoc = first ? HEREDOC_START.exec(first.text.trim()) : null;
  if (heredoc && last && end - start >= 2 && last.text.trim() === heredoc[2]) return unwrap(lines.slice(start + 1, end - 1));
  return lines.slice(start, end);
}

/** `lines` without the run of trailing lines that `drop` accepts. */
function dropTrailing(lines: Line[], drop: (line: Line) => boolean): Line[] {
  let end = lines.length;
  for (let last = lines[end - 1]; last !== undefined && drop(last); last = lines[end - 1]) end--;
  return lines.slice(0, end);
}

/** Raw empty lines at the end of a section are separators, not content. */
function dropTrailingEmpty(body: Line[]): Line[] {
  return dropTrailing(body, (line) => line.text === '');
}

function parseAddBody(body: Line[], path: string): string[] {
  return dropTrailingEmpty(body).map((line) => {
    // An interior empty line is a blank line of the file whose '+' the model left out.
    if (line.text === '') return '';
    if (line.text.startsWith('+')) return line.text.slice(1);
    throw parseError(line, `${quote(line.text)} in the new file ${path}: every line of an added file starts with '+'`);
  });
}

function bodyLine(line: Line, path: string): HunkLine {
  const first = line.text[0];
  if (line.text === '') return { kind: 'context', text: '' };
  if (first === ' ') return { kind: 'context', text: line.text.slice(1) };
  if (first === '-') return { kind: 'delete', text: line.text.slice(1) };
  if (first === '+') return { kind: 'insert', text: line.text.slice(1) };
  if (line.text.trim().startsWith(MOVE)) throw parseError(line, `'${MOVE}' must directly follow the '${UPDATE} ${path}' line`);
  if (line.text.trim().startsWith('***')) {
    throw parseError(
      line,
      `unknown marker ${quote(line.text.trim())} in the update of ${path}; valid markers are ${MOVE}, ${END_OF_FILE}, the file section headers and ${END}`,
    );
  }
  throw parseError(
    line,
    `${quote(line.text)} in the update of ${path} is not a diff line: start it with ' ' (context), '-' (remove) or '+' (add), or use '@@'`,
  );
}

/**
 * The hunks of one update: `@@` lines start a hunk (several in a row stack anchors), body lines
 * follow, `*** End of File` closes a hunk that must sit at the end of the file.
 */
export function parseHunks(body: Line[], path: string): Hunk[] {
  const lines = dropTrailingEmpty(body);
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  let closedByEof: Line | null = null;
  const finish = (): void => {
    if (!current) return;
    if (current.lines.length === 0 && !current.endOfFile) {
      const at = { text: '@@', no: current.patchLine };
      throw parseError(at, `the hunk in the update of ${path} has no lines: follow '@@' with context (' '), removed ('-') or added ('+') lines`);
    }
    hunks.push(current);
    current = null;
  };
  for (const line of lines) {
    if (line.text.startsWith('@@')) {
      if (current && (current.lines.length > 0 || current.endOfFile)) finish();
      closedByEof = null;
      current ??= { anchors: [], lines: [], endOfFile: false, patchLine: line.no };
      // The text after "@@ " is kept as written: its whitespace may be what tells two lines apart.
      const rest = line.text.slice(2);
      const anchor = rest.startsWith(' ') ? rest.slice(1) : rest;
      if (anchor.trim() !== '' && !UNIFIED_RANGE.test(anchor.trim())) current.anchors.push(anchor);
      continue;
    }
    if (closedByEof) {
      if (line.text === '') continue;
      throw parseError(line, `only '@@' or a new file section may follow '${END_OF_FILE}' (line ${closedByEof.no}) in the update of ${path}`);
    }
    if (isColumnZero(line, END_OF_FILE)) {
      current ??= { anchors: [], lines: [], endOfFile: false, patchLine: line.no };
      current.endOfFile = true;
      closedByEof = line;
      continue;
    }
    current ??= { anchors: [], lines: [], endOfFile: false, patchLine: line.no };
    current.lines.push(bodyLine(line, path));
  }
  finish();
  return hunks;
}

function requirePath(line: Line, marker: string, path: string): string {
  if (path === '') throw parseError(line, `${marker} needs a file path`);
  return path;
}

/** Splits the envelope body into sections and parses each one. */
function parseSections(body: Line[]): FileOperation[] {
  const ops: FileOperation[] = [];
  let i = 0;
  while (i < body.length) {
    const line = itemAt(body, i);
    if (isBlank(line)) {
      i++;
      continue;
    }
    const head = header(line);
    if (!head) throw parseError(line, `${HEADER_HELP}, got ${quote(line.text)}`);
    const path = requirePath(line, head.marker, head.path);
    let end = i + 1;
    while (end < body.length && !endsSection(itemAt(body, end), head.marker === UPDATE)) end++;
    const section = body.slice(i + 1, end);
    ops.push(parseSection(line, head.marker, path, section));
    const next = body[end];
    if (next && header(next) === null) {
      throw parseError(next, `${quote(next.text.trim())} may appear only once; put every file section in one envelope`);
    }
    i = end;
  }
  return ops;
}

function parseSection(headLine: Line, marker: string, path: string, section: Line[]): FileOperation {
  if (marker === ADD) return { type: 'add', path, lines: parseAddBody(section, path) };
  if (marker === DELETE) {
    const extra = section.find((l) => !isBlank(l));
    if (extra) throw parseError(extra, `a ${DELETE} section has no body, got ${quote(extra.text)}`);
    return { type: 'delete', path };
  }
  let body = section;
  let moveTo: string | null = null;
  const first = section.find((l) => !isBlank(l));
  if (first?.text.trim().startsWith(MOVE)) {
    moveTo = requirePath(first, MOVE, first.text.trim().slice(MOVE.length).trim());
    body = section.slice(section.indexOf(first) + 1);
  }
  const hunks = parseHunks(body, path);
  if (hunks.length === 0 && moveTo === null) {
    throw parseError(headLine, `the ${UPDATE} section for ${path} is empty: give at least one hunk (or a ${MOVE} line)`);
  }
  return { type: 'update', path, moveTo, hunks };
}

/** Parses a whole patch envelope into its file operations, in order. Throws PatchError. */
export function parsePatch(text: string): FileOperation[] {
  const lines = unwrap(toLines(text));
  const first = lines[0];
  if (!first) throw new PatchError('parse', `the patch is empty: it must start with '${BEGIN}' and end with '${END}'`);
  if (!isMarker(first, BEGIN)) throw parseError(first, `the patch must start with '${BEGIN}', got ${quote(first.text)}`);
  const last = lines.at(-1) ?? first;
  if (lines.length < 2 || !isMarker(last, END)) {
    throw parseError(last, `the patch must end with '${END}', got ${quote(last.text)}`);
  }
  const body = lines.slice(1, -1);
  const ops = parseSections(body);
  if (ops.length === 0) throw new PatchError('parse', `the patch contains no file operations: add a section such as '${UPDATE} <path>'`);
  return ops;
}

/** The operation of a built-in `apply_patch_call` (its diff has no envelope or section header). */
export interface BuiltinOperation {
  type: 'create_file' | 'update_file' | 'delete_file';
  path: string;
  diff?: string;
}

/** Parses one built-in operation and its headerless V4A diff. Throws PatchError. */
export function parseBuiltinOperation(op: BuiltinOperation): FileOperation {
  if (op.path.trim() === '') throw new PatchError('parse', `the ${op.type} operation has no path`);
  const path = op.path.trim();
  if (op.type === 'delete_file') return { type: 'delete', path };
  // A model that habitually closes its patches may leave the envelope's end marker in the diff.
  // (A line of one space is a context line for an empty line: only truly empty lines go.)
  const lines = dropTrailing(toLines(op.diff ?? ''), (line) => line.text === '' || isColumnZero(line, END));
  const stray = lines.find((l) => !l.text.startsWith(' ') && (header(l) !== null || isMarker(l, BEGIN) || isMarker(l, END)));
  if (stray) throw parseError(stray, `the diff of a ${op.type} operation has no envelope or section headers, got ${quote(stray.text.trim())}`);
  if (op.type === 'create_file') return { type: 'add', path, lines: parseAddBody(lines, path) };
  const hunks = parseHunks(lines, path);
  if (hunks.length === 0) throw new PatchError('parse', `the update_file diff for ${path} is empty: give at least one hunk`);
  return { type: 'update', path, moveTo: null, hunks };
}
