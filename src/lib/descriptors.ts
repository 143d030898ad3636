// Descriptors that would leak into every child agentx starts (issue 23). A descriptor is passed
// on by exec unless it is close-on-exec, and everything Node and libuv open is close-on-exec; so
// the ones without the flag are either inherited from whoever started agentx (a shell's
// `exec 50>file`, a build tool's jobserver pipes) or opened by native code that does not set it
// (node-pty's PTY masters). A sandboxed command holding one writes through it to wherever it
// points, walls or not.
//
// Node can neither set FD_CLOEXEC nor dup2, so: main closes the inherited ones first thing
// (closeInheritedDescriptors), which covers every child at once (node-pty, hooks, git, MCP
// servers); what appears later (a live PTY session's master) is kept from children by the spawn
// sites (tools/inherited-fds.ts). Linux only: without /proc nothing is found. fs through nodeFs():
// this runs on every start, --version included (builtins.ts).
import { nodeFs } from './builtins.ts';

const O_CLOEXEC = 0o2000000;

/** Open descriptors above 2 without close-on-exec, ascending. Read from /proc at each call. */
export function descriptorsWithoutCloexec(): number[] {
  const { readdirSync, readFileSync } = nodeFs();
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags?.[1] !== undefined && (parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      /* closed meanwhile (the directory listing's own descriptor) */
    }
  }
  return found.sort((a, b) => a - b);
}

/**
 * Closes every descriptor above 2 that agentx inherited, before anything else opens one. Node's
 * own (epoll, signal pipes, io_uring, files it reads) are close-on-exec and stay; so does an IPC
 * channel Node set up from NODE_CHANNEL_FD (agentx started with fork()). Returns what it closed.
 */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv): number[] {
  const channel = Number(env.NODE_CHANNEL_FD ?? NaN);
  const { closeSync } = nodeFs();
  const closed: number[] = [];
  for (const fd of descriptorsWithoutCloexec()) {
    if (fd === channel) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      /* not ours to close after all */
    }
  }
  return closed;
}
