// A zombie (exited, not yet reaped by its parent) still answers kill(pid, 0), so a lock held by
// one looked alive forever; it will never run again, so its locks and files are stale. Linux
// shows the state in /proc/<pid>/stat; elsewhere (no /proc) nothing is known and nothing changes.
import { readFileSync } from 'node:fs';

/** The one-letter state of /proc/<pid>/stat ("R", "S", "Z", …), or undefined when unreadable. */
export function procState(pid: number, read: (path: string) => string = (p) => readFileSync(p, 'latin1')): string | undefined {
  let stat: string;
  try {
    stat = read(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, so the state follows the last ')'.
  const close = stat.lastIndexOf(')');
  if (close === -1) return undefined;
  const state = stat.slice(close + 1).trim().split(' ')[0];
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
export function procStartTime(pid: number, read: (path: string) => string = (p) => readFileSync(p, 'latin1')): string | undefined {
  let stat: string;
  try {
    stat = read(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  if (close === -1) return undefined;
  // After "pid (comm)" the fields start at 3 (state); start time is field 22.
  const value = stat.slice(close + 1).trim().split(' ')[22 - 3];
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
}
