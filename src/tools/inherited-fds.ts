// Descriptors without close-on-exec that are open in agentx when it starts a child (lib/descriptors.ts):
// main closed the inherited ones at startup, but node-pty's PTY masters are opened without the
// flag, so while a tty exec session lives every later child would hold its master — a sandboxed
// command could type into that session (which may be unsandboxed) or read its output. Node cannot
// close them in the child, so a spawn maps /dev/null, opened read-only, over each of them (libuv
// dup2s a stdio entry onto its index): writing fails, reading ends at once. A PTY child gets no
// stdio array; exec/process.ts closes them there with bash.
import type { StdioNull, StdioPipe } from 'node:child_process';
import { openSync } from 'node:fs';
import { descriptorsWithoutCloexec } from '../lib/descriptors.ts';

let devNull: number | undefined;

export type ChildStdio = (StdioNull | StdioPipe | number)[];

/** `stdio` for spawn, extended so that every leaking descriptor beyond it is /dev/null in the child. */
export function blankInheritedDescriptors(stdio: ChildStdio): ChildStdio {
  const beyond = descriptorsWithoutCloexec().filter((fd) => fd >= stdio.length);
  if (beyond.length === 0) return stdio;
  devNull ??= openSync('/dev/null', 'r');
  const blank = new Set(beyond);
  const out = [...stdio];
  for (let fd = stdio.length; fd <= Math.max(...beyond); fd++) out.push(blank.has(fd) ? devNull : 'ignore');
  return out;
}
