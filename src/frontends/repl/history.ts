// Persistent input history (~/.agentx_history, mode 0600): one entry per line, oldest first,
// with newlines and backslashes escaped so a multi-line message stays one entry.
import { readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../../lib/atomic-file.ts';
import { errorMessage } from '../../lib/fsutil.ts';

export const HISTORY_MAX = 1000;

export function encodeEntry(entry: string): string {
  return entry.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

export function decodeEntry(line: string): string {
  return line.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Newest first, as node:readline keeps it. A missing or unreadable file is an empty history. */
export function loadHistory(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map(decodeEntry)
    .reverse()
    .slice(0, HISTORY_MAX);
}

/** Writes the whole list (newest first in memory, oldest first on disk). Failures are not fatal. */
export function saveHistory(path: string, newestFirst: readonly string[]): string | undefined {
  try {
    const lines = newestFirst.slice(0, HISTORY_MAX).map(encodeEntry).reverse();
    writeFileAtomicSync(path, lines.length > 0 ? `${lines.join('\n')}\n` : '', 0o600);
    return undefined;
  } catch (err) {
    return `cannot save input history to ${path}: ${errorMessage(err)}`;
  }
}
