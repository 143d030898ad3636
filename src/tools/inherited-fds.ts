// Descriptors agentx inherited from whoever started it (a shell's `exec 50>file`, a build tool's
// jobserver pipes) stay open in agentx and, since Node spawns without closing them, in every
// child: a sandboxed command could write through fd 50 (or /proc/self/fd/50) to a file outside
// the sandbox (issue 23). Node can neither close them in the child nor mark them close-on-exec,
// and a POSIX sh cannot name a descriptor above 9; so a spawn maps /dev/null, opened read-only,
// over each of them (libuv dup2s a stdio entry onto its index). Writing fails, reading ends at once.
import type { StdioNull, StdioPipe } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

let inherited: number[] | undefined;
let devNull: number | undefined;

/**
 * The open descriptors above 2 without close-on-exec. Found once: everything Node and libuv open
 * is close-on-exec, so this set can only shrink later (and a number reused by one of agentx's own
 * descriptors loses nothing by /dev/null in the child). Not on Linux (no /proc): none found.
 */
export function inheritedDescriptors(): readonly number[] {
  if (inherited) return inherited;
  const found: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync('/proc/self/fd');
  } catch { /* no /proc */ }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags?.[1] !== undefined && (parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch { /* closed meanwhile (the directory listing's own descriptor) */ }
  }
  inherited = found.sort((a, b) => a - b);
  return inherited;
}

export type ChildStdio = (StdioNull | StdioPipe | number)[];

/** `stdio` for spawn, extended so that every inherited descriptor beyond it is /dev/null in the child. */
export function blankInheritedDescriptors(stdio: ChildStdio): ChildStdio {
  const beyond = inheritedDescriptors().filter((fd) => fd >= stdio.length);
  if (beyond.length === 0) return stdio;
  devNull ??= openSync('/dev/null', 'r');
  const blank = new Set(beyond);
  const out = [...stdio];
  for (let fd = stdio.length; fd <= Math.max(...beyond); fd++) out.push(blank.has(fd) ? devNull : 'ignore');
  return out;
}
