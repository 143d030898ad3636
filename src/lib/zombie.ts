// A zombie (exited, not yet reaped by its parent) still answers kill(pid, 0), so a lock held by
// one looked alive forever; it will never run again, so its locks and files are stale. Linux
// shows the state in /proc/<pid>/stat; elsewhere (no /proc) nothing is known and nothing changes.
import { readFileSync } from 'node:fs';

type ReadFile = (path: string) => string;
const readLatin1: ReadFile = (p) => readFileSync(p, 'latin1');

/**
 * The fields of /proc/<pid>/stat after "pid (comm)" — the state first (field 3) — or undefined
 * when unreadable. comm may hold spaces and parentheses, so the fields follow the last ')'.
 */
function statFields(pid: number, read: ReadFile): string[] | undefined {
  let stat: string;
  try {
    stat = read(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  return close === -1
    ? undefined
    : stat
        .slice(close + 1)
        .trim()
        .split(' ');
}

/** The one-letter state of /proc/<pid>/stat ("R", "S", "Z", …), or undefined when unreadable. */
export function procState(pid: number, read: ReadFile = readLatin1): string | undefined {
  const state = statFields(pid, read)?.[0];
  return state === undefined || state === '' ? undefined : state;
}

/** Z (zombie) or X (dead, being reaped): the process has exited. */
export function isExitedProcess(pid: number, read?: (path: string) => string): boolean {
  const state = procState(pid, read);
  return state === 'Z' || state === 'X';
}

/**
 * When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * undefined when unreadable. A pid and its start time name one process: a pid the kernel has
 * reused belongs to a process that started later.
 */
export function procStartTime(pid: number, read: ReadFile = readLatin1): string | undefined {
  // The fields start at 3 (state); start time is field 22.
  const value = statFields(pid, read)?.[22 - 3];
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
}
