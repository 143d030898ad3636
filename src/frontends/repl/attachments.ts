// `@path` in a message attaches that file: its text goes to the model with the message (as a note
// of this turn, the message itself stays as typed), bounded, and the person is told in one line
// per file what was attached, cut or refused. A word after `@` that is no file here is just text
// (`@team`, `@latest`), so it is never an error.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { formatBytes } from '../../lib/text.ts';

/** Bytes of one file attached at most (the rest is cut, and said). */
export const ATTACH_MAX_BYTES = 100 * 1024;
/** Bytes of all files of one message. */
export const ATTACH_TOTAL_MAX_BYTES = 400 * 1024;

export interface Attachment {
  /** For the model; undefined when nothing was attached. */
  note?: string;
  /** For the person, one line (unsanitized: the caller shows it through the sanitizer). */
  line: string;
  ok: boolean;
}

/** The `@words` of a message that could be paths: at a word start, trailing punctuation left off. */
export function mentionedPaths(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@][^\s]*)/g)) {
    const word = (m[1] ?? '').replace(/[),.;:!?'"\]]+$/, '');
    if (word !== '' && !found.includes(word)) found.push(word);
  }
  return found;
}

/** Text or not: no NUL byte and valid UTF-8 in what was read (a cut multi-byte tail is fine). */
function isText(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  const decoded = buf.toString('utf8');
  const bad = decoded.indexOf('\uFFFD');
  return bad === -1 || bad >= decoded.length - 2;
}

function fence(content: string): string {
  let ticks = '```';
  while (content.includes(ticks)) ticks += '`';
  return ticks;
}

/** One mention → what happens to it; undefined when the word names no file here (plain text). */
export function attachOne(word: string, cwd: string, home: string, budget: number): Attachment | undefined {
  const path = word.startsWith('~/') ? join(home, word.slice(2)) : isAbsolute(word) ? word : resolve(cwd, word);
  let size: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) return { line: `@${word} is a directory: not attached (name files, e.g. @${word.replace(/\/$/, '')}/FILE)`, ok: false };
    if (!st.isFile()) return { line: `@${word} is not a regular file: not attached`, ok: false };
    size = st.size;
  } catch {
    return undefined;
  }
  const limit = Math.min(ATTACH_MAX_BYTES, budget);
  if (limit <= 0) return { line: `@${word} not attached: this message already carries ${formatBytes(ATTACH_TOTAL_MAX_BYTES, 0)} of files`, ok: false };
  const buf = Buffer.alloc(Math.min(size, limit));
  let read = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      read = readSync(fd, buf, 0, buf.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return { line: `@${word} not attached: ${err instanceof Error ? err.message : String(err)}`, ok: false };
  }
  const bytes = buf.subarray(0, read);
  if (!isText(bytes)) return { line: `@${word} looks binary: not attached (use /image for pictures)`, ok: false };
  let content = bytes.toString('utf8');
  if (content.endsWith('\uFFFD')) content = content.replace(/\uFFFD+$/, '');
  const cut = size > read;
  const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path) || word;
  const what = cut ? `the first ${formatBytes(read, 0)} of ${formatBytes(size, 0)} (cut)` : `${lines} line${lines === 1 ? '' : 's'}, ${formatBytes(size, 0)}`;
  const ticks = fence(content);
  const note = `The user attached the file ${shown} (mentioned as @${word}; ${what}):\n${ticks}\n${content}${content.endsWith('\n') || content === '' ? '' : '\n'}${ticks}`;
  return { note, line: `attached @${word}: ${what}`, ok: true };
}

/** Every file the message mentions, in order, within the total budget. */
export function attachMentioned(text: string, cwd: string, home: string): Attachment[] {
  const out: Attachment[] = [];
  let budget = ATTACH_TOTAL_MAX_BYTES;
  for (const word of mentionedPaths(text)) {
    const a = attachOne(word, cwd, home, budget);
    if (!a) continue;
    if (a.note !== undefined) budget -= Buffer.byteLength(a.note, 'utf8');
    out.push(a);
  }
  return out;
}
