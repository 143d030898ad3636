// One line for a person's JSON file that does not parse (.agentx/rules.json, .mcp.json, hooks.json).
// JSON.parse's own message is unfit for the terminal: it quotes a slice of the file verbatim
// (escape sequences, BEL, newlines and all), and on Node 20 says where the error is only for some
// errors. So the place is found here, by a small scanner over the same grammar, and said as line
// and column with a short excerpt in which every control and invisible character is spelled out.
// The terminal sanitizer then has nothing left to remove, so it cannot swallow part of the line.

/** Where strict JSON (RFC 8259, as JSON.parse reads it) first goes wrong in `text`: a UTF-16 index, `text.length` for a premature end; undefined if it parses. */
export function jsonErrorOffset(text: string): number | undefined {
  try {
    scan(text);
    return undefined;
  } catch (err) {
    if (err instanceof ErrorAt) return err.at;
    throw err;
  }
}

class ErrorAt extends Error {
  constructor(readonly at: number) {
    super(`JSON syntax error at ${at}`);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

/** Iterative (an explicit stack of open containers), so a deeply nested file cannot overflow the call stack. */
function scan(text: string): void {
  let i = 0;
  const fail = (at: number = i): never => {
    throw new ErrorAt(Math.min(at, text.length));
  };
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail();
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e === 'u') {
        HEX4.lastIndex = i + 2;
        if (!HEX4.test(text)) fail(i + 2);
        i += 6;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
      else fail(i + 1);
    }
  };
  const literal = (word: string): void => {
    let k = 0;
    while (k < word.length && text[i + k] === word[k]) k++;
    if (k < word.length) fail(i + k);
    i += word.length;
  };
  /** `"name"` `:` of an object member, leaving `i` at its value. */
  const memberName = (): void => {
    if (text[i] !== '"') fail();
    string();
    skipSpace();
    if (text[i] !== ':') fail();
    i++;
    skipSpace();
  };
  const open: string[] = []; // '}' or ']': what closes each open container
  skipSpace();
  for (;;) {
    // A value starts at i.
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      skipSpace();
      const close = c === '{' ? '}' : ']';
      if (text[i] !== close) {
        open.push(close);
        if (close === '}') memberName();
        continue;
      }
      i++;
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else {
      NUMBER.lastIndex = i;
      if (c === undefined || !NUMBER.test(text)) fail(c === '-' ? i + 1 : i);
      i = NUMBER.lastIndex;
    }
    // After a value: close what it ends, until a comma asks for the next value.
    for (;;) {
      skipSpace();
      const close = open.at(-1);
      if (close === undefined) {
        if (i < text.length) fail();
        return;
      }
      if (text[i] === close) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',') fail();
      i++;
      skipSpace();
      if (close === '}') memberName();
      break;
    }
  }
}

const HIDDEN = /[\u0000-\u001f\u007f-\u009f]|[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Text with every control character as `\xHH` (newline and tab too) and every invisible or bidi one as `\uHHHH`: it shows as it is and cannot act on the terminal. */
export function spelledOut(text: string): string {
  return text.replace(HIDDEN, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code <= 0x9f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Line and column (both from 1; the column in characters, not UTF-16 units) of index `at`. */
export function lineColumn(text: string, at: number): { line: number; column: number } {
  const before = text.slice(0, at);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let k = before.indexOf('\n'); k >= 0; k = before.indexOf('\n', k + 1)) line++;
  return { line, column: Array.from(before.slice(lineStart)).length + 1 };
}

const EXCERPT_SIDE = 16;
/** JSON's own white space (String.trim would also take a byte order mark, which is the error to show). */
const JSON_SPACE_AT_ENDS = /^[ \t\n\r]+|[ \t\n\r]+$/g;

/** Up to 16 characters either side of `at` on its line, spelled out, with … where the line goes on. */
function excerpt(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at);
  const before = Array.from(text.slice(lineStart, at));
  const after = Array.from(text.slice(at, lineEnd));
  const head = before.length > EXCERPT_SIDE ? `…${before.slice(-EXCERPT_SIDE).join('')}` : before.join('');
  const tail = after.length > EXCERPT_SIDE ? `${after.slice(0, EXCERPT_SIDE).join('')}…` : after.join('');
  return spelledOut(`${head}${tail}`.replace(JSON_SPACE_AT_ENDS, ''));
}

/** The index an engine's message names ("… in JSON at position 12"), for when the scanner finds nothing. */
function reportedOffset(err: unknown): number | undefined {
  const m = err instanceof Error ? /\bat position (\d+)/.exec(err.message) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * The one line for a file whose text JSON.parse refused (`err`: what it threw), e.g.
 * `/p/.agentx/rules.json is not valid JSON at line 2, column 15: unexpected '\x1b' (near '"commands": [\x1b]31m')`.
 * `label` names the file; it is spelled out too. Nothing of the engine's message is quoted.
 */
export function jsonParseError(label: string, text: string, err: unknown): string {
  const file = spelledOut(label);
  if (text.replace(JSON_SPACE_AT_ENDS, '') === '') return `${file} is not valid JSON: it is empty`;
  const at = jsonErrorOffset(text) ?? reportedOffset(err);
  if (at === undefined || at > text.length) return `${file} is not valid JSON`;
  const { line, column } = lineColumn(text, at);
  const char = String.fromCodePoint(text.codePointAt(at) ?? 0);
  const what = at >= text.length ? 'the text ends too early' : `unexpected '${spelledOut(char)}'`;
  const near = excerpt(text, at);
  return `${file} is not valid JSON at line ${line}, column ${column}: ${what}${near === '' ? '' : ` (near '${near}')`}`;
}
