// Tab in the composer: a /command at the start of the message, otherwise a path (relative to the
// session's working directory, `~/` for home, after an `@` too). Directories end in `/`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Completion } from './reduce.ts';

const MAX_CANDIDATES = 500;

export function completer(commands: readonly string[], cwd: () => string, home: string) {
  return (text: string, cursor: number): Completion => {
    const before = text.slice(0, cursor);
    if (/^\/[^\s]*$/.test(before)) return { start: 0, candidates: commands.filter((c) => c.startsWith(before) && !c.includes(' ')) };
    const wordStart = Math.max(before.lastIndexOf(' '), before.lastIndexOf('\n'), before.lastIndexOf('\t')) + 1;
    const start = before[wordStart] === '@' ? wordStart + 1 : wordStart;
    return { start, candidates: pathCandidates(before.slice(start), cwd(), home) };
  };
}

export function pathCandidates(word: string, cwd: string, home: string): string[] {
  const slash = word.lastIndexOf('/');
  const dirPart = slash === -1 ? '' : word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  const dir = dirPart.startsWith('~/') ? join(home, dirPart.slice(2)) : dirPart.startsWith('/') ? dirPart : join(cwd, dirPart);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  // Dot files only when asked for (as a shell does).
  return entries
    .filter((e) => e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.')))
    .map((e) => `${dirPart}${e.name}${e.isDirectory() ? '/' : ''}`)
    .sort()
    .slice(0, MAX_CANDIDATES);
}
