// Splits a command line the way a POSIX shell would run it, so that a remembered rule ("npm test is
// allowed") is judged against every command the line really starts, not against the line's text.
// `npm test && curl evil` is two commands; `npm test $(rm -rf x)` is two commands (the substitution
// runs first); `FOO=1 sudo -E npm test` is `npm test`. Anything this parser does not understand
// (here-documents, control keywords, arithmetic) is reported as unparseable: the caller asks.
//
// A word keeps whether it is literal: a word with an unquoted `$var`, glob or brace expansion can
// become anything at run time, so it never equals a rule's token.

export interface Word {
  text: string;
  literal: boolean;
}

export interface SimpleCommand {
  words: Word[];
  /** true when the command runs inside $(…), `…`, <(…) or >(…) of another command */
  substituted: boolean;
}

export type CommandLineParse = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

const CONTROL_KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'function',
  'select',
  '[[',
  ']]',
  '!',
  'coproc',
]);

/**
 * Wrappers that run their arguments as the command: the rule is judged against what they run.
 * `values`: short options that take a value (`-s KILL`, `-sKILL`); `longValues`: long options that
 * take one (`--signal KILL`, `--signal=KILL`); `hidden`: options after which the wrapper runs a
 * string we cannot see into (`env -S '…'`, `sudo -s …`): the line is unparseable; `operands`: words
 * before the command (timeout's duration). Every option a wrapper documents that takes a value must
 * be listed, or its value would be read as the command.
 */
interface WrapperSpec {
  values: string;
  longValues?: readonly string[];
  hidden?: string;
  longHidden?: readonly string[];
  operands?: number;
}
const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  ['command', { values: '' }],
  ['builtin', { values: '' }],
  ['nohup', { values: '' }],
  ['busybox', { values: '' }],
  ['setsid', { values: '' }],
  ['time', { values: 'fo', longValues: ['format', 'output'] }],
  ['exec', { values: 'a' }],
  ['nice', { values: 'n', longValues: ['adjustment'] }],
  ['stdbuf', { values: 'ioe', longValues: ['input', 'output', 'error'] }],
  ['ionice', { values: 'cnp', longValues: ['class', 'classdata', 'pid', 'pgid', 'uid'] }],
  ['timeout', { values: 'sk', longValues: ['signal', 'kill-after'], operands: 1 }],
  ['env', { values: 'uC', longValues: ['unset', 'chdir', 'block-signal', 'default-signal', 'ignore-signal'], hidden: 'S', longHidden: ['split-string'] }],
  [
    'sudo',
    {
      values: 'ugCDhpRrtTU',
      longValues: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'chroot', 'role', 'type', 'command-timeout', 'other-user'],
      hidden: 'siel',
      longHidden: ['shell', 'login', 'edit', 'list'],
    },
  ],
  ['doas', { values: 'uC', hidden: 's' }],
]);
// These run a string or a list of commands we cannot see into: the line cannot be judged by rules.
const HIDDEN_RUNNERS = new Set(['eval', 'xargs', 'source', '.', 'watch', 'parallel', 'su', 'script', 'flock', 'trap', 'fc']);
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
// A shell's options that take a value: `-o pipefail`, `-O extglob`, `--rcfile FILE`.
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/** The command's name as the shell looks it up: `/bin/rm` runs rm (compared by basename). */
export function commandName(word: string): string {
  return word.includes('/') ? word.slice(word.lastIndexOf('/') + 1) : word;
}

const MAX_DEPTH = 8;

class Unparseable extends Error {}

interface Cursor {
  src: string;
  pos: number;
  depth: number;
  out: SimpleCommand[];
  substituted: boolean;
}

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t';
}

function isOperatorStart(c: string): boolean {
  return c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')';
}

function isRedirectStart(cur: Cursor): boolean {
  const rest = cur.src.slice(cur.pos);
  if (rest.startsWith('<(') || rest.startsWith('>(')) return false; // process substitution, a word
  return /^(\d*|&)(>>|>&|>\||>|<>|<&|<<<|<<|<)/.test(rest);
}

/** Reads the inside of $( … ) or ( … ) up to the matching close paren, parsing it as a command list. */
function readNested(cur: Cursor, substituted: boolean): void {
  if (cur.depth >= MAX_DEPTH) throw new Unparseable('nested too deeply');
  const inner: Cursor = { src: cur.src, pos: cur.pos, depth: cur.depth + 1, out: cur.out, substituted };
  parseList(inner, ')');
  if (inner.src[inner.pos] !== ')') throw new Unparseable('unclosed parenthesis');
  cur.pos = inner.pos + 1;
}

function readBackticks(cur: Cursor): void {
  // cur.pos is just after the opening backtick; backslash escapes ` and \ inside.
  let body = '';
  while (cur.pos < cur.src.length && cur.src[cur.pos] !== '`') {
    const c = cur.src[cur.pos];
    if (c === '\\' && (cur.src[cur.pos + 1] === '`' || cur.src[cur.pos + 1] === '\\' || cur.src[cur.pos + 1] === '$')) {
      body += cur.src[cur.pos + 1];
      cur.pos += 2;
      continue;
    }
    body += c;
    cur.pos++;
  }
  if (cur.src[cur.pos] !== '`') throw new Unparseable('unclosed backtick');
  cur.pos++;
  parseInto(body, cur.depth + 1, cur.out, true);
}

/** Handles `$` at cur.pos. Returns the literal text it stands for, or null when it expands at run time. */
function readDollar(cur: Cursor): string | null {
  const next = cur.src[cur.pos + 1];
  if (next === '(' && cur.src[cur.pos + 2] === '(') throw new Unparseable('arithmetic expansion');
  if (next === '(') {
    cur.pos += 2;
    readNested(cur, true);
    return null;
  }
  if (next === "'") throw new Unparseable("$'…' quoting");
  if (next === '{') {
    const close = cur.src.indexOf('}', cur.pos);
    if (close < 0) throw new Unparseable('unclosed ${');
    const body = cur.src.slice(cur.pos + 2, close);
    if (/[$`(]/.test(body)) throw new Unparseable('expansion inside ${…}');
    cur.pos = close + 1;
    return null;
  }
  if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
    cur.pos += 2;
    if (/[A-Za-z_]/.test(next)) while (cur.pos < cur.src.length && /[A-Za-z0-9_]/.test(cur.src[cur.pos] ?? '')) cur.pos++;
    return null;
  }
  cur.pos++;
  return '$';
}

function readDoubleQuoted(cur: Cursor, word: Word): void {
  cur.pos++; // opening "
  while (cur.pos < cur.src.length) {
    const c = cur.src[cur.pos] ?? '';
    if (c === '"') {
      cur.pos++;
      return;
    }
    if (c === '\\') {
      const n = cur.src[cur.pos + 1] ?? '';
      if (n === '$' || n === '`' || n === '"' || n === '\\') {
        word.text += n;
        cur.pos += 2;
      } else if (n === '\n') {
        cur.pos += 2;
      } else {
        word.text += c;
        cur.pos++;
      }
      continue;
    }
    if (c === '$') {
      const lit = readDollar(cur);
      if (lit === null) word.literal = false;
      else word.text += lit;
      continue;
    }
    if (c === '`') {
      cur.pos++;
      readBackticks(cur);
      word.literal = false;
      continue;
    }
    word.text += c;
    cur.pos++;
  }
  throw new Unparseable('unclosed double quote');
}

/** Reads one word (quotes and escapes removed). Returns null at an operator or the end. */
function readWord(cur: Cursor): Word | null {
  const word: Word = { text: '', literal: true };
  let any = false;
  while (cur.pos < cur.src.length) {
    const c = cur.src[cur.pos] ?? '';
    if (isBlank(c) || isOperatorStart(c)) break;
    if ((c === '<' || c === '>') && cur.src[cur.pos + 1] === '(') {
      cur.pos += 2;
      readNested(cur, true);
      word.literal = false;
      any = true;
      continue;
    }
    if (c === '<' || c === '>') break;
    any = true;
    if (c === "'") {
      const close = cur.src.indexOf("'", cur.pos + 1);
      if (close < 0) throw new Unparseable('unclosed single quote');
      word.text += cur.src.slice(cur.pos + 1, close);
      cur.pos = close + 1;
    } else if (c === '"') {
      readDoubleQuoted(cur, word);
    } else if (c === '\\') {
      const n = cur.src[cur.pos + 1];
      if (n === undefined) throw new Unparseable('trailing backslash');
      if (n !== '\n') word.text += n;
      cur.pos += 2;
    } else if (c === '$') {
      const lit = readDollar(cur);
      if (lit === null) word.literal = false;
      else word.text += lit;
    } else if (c === '`') {
      cur.pos++;
      readBackticks(cur);
      word.literal = false;
    } else {
      // Unquoted glob, brace and tilde characters expand at run time.
      if (c === '*' || c === '?' || c === '[' || c === '{' || (c === '~' && word.text === '')) word.literal = false;
      word.text += c;
      cur.pos++;
    }
  }
  return any ? word : null;
}

function skipBlanks(cur: Cursor): void {
  while (cur.pos < cur.src.length && isBlank(cur.src[cur.pos] ?? '')) cur.pos++;
  if (cur.src[cur.pos] === '#') {
    while (cur.pos < cur.src.length && cur.src[cur.pos] !== '\n') cur.pos++;
  }
}

function readRedirect(cur: Cursor): void {
  const m = /^(\d*|&)(>>|>&|>\||>|<>|<&|<<<|<<|<)/.exec(cur.src.slice(cur.pos));
  if (m === null) throw new Unparseable('bad redirection');
  if (m[2] === '<<') throw new Unparseable('here-document');
  cur.pos += m[0].length;
  skipBlanks(cur);
  // The target is a word; a substitution in it still runs and is recorded.
  if (readWord(cur) === null) throw new Unparseable('redirection without a target');
}

function isAssignment(w: Word): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text);
}

/** Steps over a wrapper's options (and their values) and operands; returns the index of the command it runs. */
function skipWrapperOptions(name: string, spec: WrapperSpec, words: readonly Word[], i: number): number {
  while (i < words.length) {
    const w = words[i] as Word;
    if (!w.text.startsWith('-') || w.text === '-') break;
    if (!w.literal) throw new Unparseable(`${name} with an option that expands at run time`);
    i++;
    if (w.text === '--') break;
    if (w.text.startsWith('--')) {
      const eq = w.text.indexOf('=');
      const long = w.text.slice(2, eq < 0 ? undefined : eq);
      if (spec.longHidden?.includes(long) === true) throw new Unparseable(`${name} --${long} runs a string`);
      if (eq < 0 && spec.longValues?.includes(long) === true) i++;
      continue;
    }
    // A group of short options: the first that takes a value takes the rest of the word, or the next word.
    for (let k = 1; k < w.text.length; k++) {
      const letter = w.text[k] as string;
      if (spec.hidden?.includes(letter) === true) throw new Unparseable(`${name} -${letter} runs a string`);
      if (spec.values.includes(letter)) {
        if (k === w.text.length - 1) i++;
        break;
      }
    }
  }
  return Math.min(i + (spec.operands ?? 0), words.length);
}

/** `bash -lc 'script'` → the script; null when the shell runs a script file. Throws when it reads a string we cannot see. */
function shellScript(name: string, words: readonly Word[], i: number): Word | null {
  let commandMode = false;
  while (i < words.length) {
    const w = words[i] as Word;
    if (!w.literal) throw new Unparseable(`${name} with an option that expands at run time`);
    if (!(w.text.startsWith('-') || w.text.startsWith('+')) || w.text === '-' || w.text === '+') break;
    i++;
    if (w.text === '--') break;
    if (SHELL_VALUE_OPTIONS.has(w.text)) {
      i++;
      continue;
    }
    if (w.text.startsWith('--')) continue; // --login, --norc, --posix, …
    if (w.text.slice(1).includes('s')) throw new Unparseable(`${name} -s reads commands from its input`);
    if (w.text.startsWith('-') && w.text.slice(1).includes('c')) commandMode = true;
    // -o/-O inside a group (`-eo pipefail`) takes the next word as its value.
    if (/[oO]$/.test(w.text)) i++;
  }
  if (commandMode) {
    const script = words[i];
    if (script === undefined || !script.literal) throw new Unparseable(`${name} -c without a literal script`);
    return script;
  }
  if (i >= words.length) throw new Unparseable(`${name} reads commands from its input`);
  return null;
}

/** Strips assignments and wrappers (env, sudo, timeout -s KILL 5, …) and unwraps `bash -lc '…'`. */
function emit(cur: Cursor, words: Word[]): void {
  let i = 0;
  for (;;) {
    while (i < words.length && isAssignment(words[i] as Word)) i++;
    const head = words[i];
    if (head === undefined) return; // only assignments (or a wrapper with no command): nothing runs
    if (!head.literal) break;
    const name = commandName(head.text);
    const wrapper = WRAPPERS.get(name);
    if (wrapper !== undefined) {
      i = skipWrapperOptions(name, wrapper, words, i + 1);
      continue;
    }
    if (HIDDEN_RUNNERS.has(name)) throw new Unparseable(`${name} runs commands that cannot be checked`);
    if (name === 'find' && words.slice(i + 1).some((w) => !w.literal || FIND_RUNS.has(w.text)))
      throw new Unparseable('find -exec runs commands that cannot be checked');
    if (SHELLS.has(name)) {
      const script = shellScript(name, words, i + 1);
      if (script === null) break; // runs a script file: judged as the shell command it is
      parseInto(script.text, cur.depth + 1, cur.out, cur.substituted);
      return;
    }
    break;
  }
  const rest = words.slice(i);
  if (rest[0] !== undefined && rest[0].literal && CONTROL_KEYWORDS.has(rest[0].text)) throw new Unparseable(`shell keyword "${rest[0].text}"`);
  cur.out.push({ words: rest, substituted: cur.substituted });
}

/** Parses a command list until the end or `stop` (a close paren). */
function parseList(cur: Cursor, stop: ')' | null): void {
  let words: Word[] = [];
  let expectCommand = true; // after an operator a command must follow (except after ; & and newline)
  let lastOp = '';
  const flush = (): void => {
    if (words.length > 0) emit(cur, words);
    words = [];
  };
  for (;;) {
    skipBlanks(cur);
    const c = cur.src[cur.pos];
    if (c === undefined) break;
    if (c === ')') {
      if (stop === ')') break;
      throw new Unparseable('unmatched )');
    }
    if (c === '(') {
      if (words.length > 0) throw new Unparseable('( inside a command');
      cur.pos++;
      readNested(cur, cur.substituted);
      expectCommand = false;
      continue;
    }
    if (c === '&' && cur.src[cur.pos + 1] === '>') {
      readRedirect(cur);
      expectCommand = false;
      continue;
    }
    if (c === ';' || c === '&' || c === '|' || c === '\n') {
      const two = cur.src.slice(cur.pos, cur.pos + 2);
      const op = two === '&&' || two === '||' || two === ';;' || two === '|&' ? two : c;
      if (op === ';;') throw new Unparseable('case syntax');
      if (words.length === 0 && expectCommand && op !== '\n') throw new Unparseable(`"${op}" without a command before it`);
      flush();
      cur.pos += op.length;
      lastOp = op;
      expectCommand = op !== ';' && op !== '&' && op !== '\n';
      continue;
    }
    if (isRedirectStart(cur) && (words.length === 0 || /^[<>&\d]/.test(c))) {
      // A digit starts a redirect only when it is directly followed by < or > (checked by the regex).
      readRedirect(cur);
      expectCommand = false;
      continue;
    }
    const w = readWord(cur);
    if (w === null) {
      if (isRedirectStart(cur)) {
        readRedirect(cur);
        continue;
      }
      throw new Unparseable(`unexpected "${c}"`);
    }
    if (words.length === 0 && (w.text === '{' || w.text === '}')) continue; // group braces
    words.push(w);
    expectCommand = false;
  }
  if (expectCommand && (lastOp === '&&' || lastOp === '||' || lastOp === '|' || lastOp === '|&'))
    throw new Unparseable(`"${lastOp}" without a command after it`);
  flush();
}

function parseInto(src: string, depth: number, out: SimpleCommand[], substituted: boolean): void {
  if (depth >= MAX_DEPTH) throw new Unparseable('nested too deeply');
  const cur: Cursor = { src, pos: 0, depth, out, substituted };
  parseList(cur, null);
  if (cur.pos < src.length) throw new Unparseable(`unexpected "${src[cur.pos]}"`);
}

export function parseCommandLine(line: string): CommandLineParse {
  const commands: SimpleCommand[] = [];
  try {
    parseInto(line, 0, commands, false);
  } catch (err) {
    if (err instanceof Unparseable) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true, commands };
}

/** Quotes a word so that a POSIX shell reads it back as exactly `text` (for the property tests and display). */
export function quoteWord(text: string): string {
  if (text !== '' && /^[A-Za-z0-9_./:=@%+,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
