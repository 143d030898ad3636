// One network namespace per agentx session (docs/exec-sessions.md, "The network"). With the
// network off, each sandboxed command used to get a fresh namespace of its own (bwrap
// --unshare-net): a dev server started by one command was unreachable from the next. Now a
// holder process keeps one namespace alive for the whole agentx process, and every sandboxed
// command joins it: they share a loopback interface, and nothing else (no route out).
//
// How, with what bwrap 0.8 offers (it can create a network namespace but not join one):
// - The holder is `bwrap --unshare-net … cat`; bwrap brings its loopback up. Its `--info-fd` says
//   the pid of the process inside, whose /proc/PID/ns/net is the namespace; a line the process
//   inside prints says bwrap's setup (loopback included) is complete. `cat` reads a pipe
//   only agentx writes to: it ends with agentx, however agentx ends (kill -9 included).
// - agentx opens the holder's /proc/PID/ns/net (and ns/user) at once, while the holder is known to
//   be alive, and keeps them open. A command joins with `nsenter --net=/proc/<agentx>/fd/N` (plus
//   the user namespace, which owns the network namespace, when agentx is not root) in front of its
//   own bwrap, which then leaves out --unshare-net. Joining through agentx's own descriptors, not
//   the holder's pid: if the holder died and the kernel gave its pid to another process, a path
//   by pid would put the command in *that* process's namespaces (the host network, say); a
//   descriptor always names the namespace agentx created, and keeps it alive too.
// - The join is tried once (a sandboxed `true`); when it fails (no nsenter, a kernel that refuses),
//   commands keep their private namespace as before and the person is told once.
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { nodeChildProcess } from '../lib/builtins.ts';

export interface SessionNetns {
  /** What goes before the bwrap executable to run inside the shared namespace. */
  prefix: string[];
  /** The process inside the holder (diagnostics and tests; commands never join by it). */
  holderPid: number;
}

let holder: Promise<SessionNetns | { failed: string }> | undefined;

/**
 * Reads `{"child-pid": N}` from bwrap's info fd. The pipe is read to its end, never closed early:
 * bwrap writes more after the pid (the namespace ids), and a write to a closed pipe kills it with
 * SIGPIPE, taking the process inside with it (--die-with-parent) before its loopback is up.
 */
function childPid(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const info = (child.stdio as readonly unknown[])[3];
    if (!(info instanceof Socket)) {
      reject(new Error('no info pipe'));
      return;
    }
    let text = '';
    const timer = setTimeout(() => reject(new Error('bwrap said nothing on its info fd')), 10_000);
    info.on('data', (chunk: Buffer) => {
      if (text.length > 4096) return;
      text += chunk.toString('utf8');
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
      if (pid === undefined) return;
      clearTimeout(timer);
      resolve(Number(pid));
    });
    info.on('error', () => undefined);
    info.unref();
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error('the namespace holder exited'));
    });
  });
}

/**
 * Resolves once the process inside printed its line: bwrap has then finished setting the
 * sandbox up, loopback included (it exits when that fails), and exec'd the command.
 */
function insideReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = child.stdout;
    if (out === null) {
      reject(new Error('no pipe from the namespace holder'));
      return;
    }
    const timer = setTimeout(() => reject(new Error('the namespace holder did not start')), 10_000);
    out.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    out.on('error', () => undefined);
    if (out instanceof Socket) out.unref();
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error('the namespace holder exited'));
    });
  });
}

function runsOk(argv: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const [file = '', ...args] = argv;
    const p = nodeChildProcess().spawn(file, args, { stdio: 'ignore' });
    p.once('error', () => resolve(false));
    p.once('exit', (code) => resolve(code === 0));
  });
}

/** A new holder every call (tests; the product uses sessionNetns's one per process). */
export async function startHolder(bwrapPath: string, isRoot: boolean): Promise<SessionNetns | { failed: string }> {
  const child = nodeChildProcess().spawn(
    bwrapPath,
    [
      '--die-with-parent',
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--info-fd',
      '3',
      '--',
      'sh',
      '-c',
      'echo ready && exec cat',
    ],
    { stdio: ['pipe', 'pipe', 'ignore', 'pipe'], detached: true },
  );
  child.once('error', () => undefined);
  // Its lifeline: `cat` inside reads this pipe, whose only writer is agentx. When agentx ends, however
  // it ends, the kernel closes it, cat sees EOF and the holder ends (--die-with-parent alone does
  // not end the outer bwrap, only the process inside).
  child.stdin?.on('error', () => undefined);
  if (child.stdin instanceof Socket) child.stdin.unref();
  child.unref();
  let pid: number;
  try {
    [pid] = await Promise.all([childPid(child), insideReady(child)]);
  } catch (err) {
    child.kill('SIGKILL');
    return { failed: err instanceof Error ? err.message : String(err) };
  }
  // Opened now, while bwrap still runs (it exits with the process inside, and the exit has not
  // been seen): the pid is the holder's, not a reused one.
  const held = child.exitCode === null && child.signalCode === null ? openNamespaces(pid, isRoot) : undefined;
  if (held === undefined) {
    child.kill('SIGKILL');
    return { failed: 'the namespace holder ended before its namespace could be opened' };
  }
  const fd = (n: number): string => `/proc/${process.pid}/fd/${n}`;
  // Not root: the namespace belongs to the holder's user namespace, which must be joined too.
  const prefix =
    held.user === undefined
      ? ['nsenter', `--net=${fd(held.net)}`, '--']
      : ['nsenter', `--user=${fd(held.user)}`, `--net=${fd(held.net)}`, '--preserve-credentials', '--'];
  if (!(await runsOk([...prefix, bwrapPath, '--ro-bind', '/', '/', '--', 'true']))) {
    child.kill('SIGKILL');
    closeSync(held.net);
    if (held.user !== undefined) closeSync(held.user);
    return { failed: 'joining it (nsenter) failed' };
  }
  return { prefix, holderPid: pid };
}

/** Descriptors on the holder's namespaces (kept for the life of agentx; close-on-exec, so no command inherits them). */
function openNamespaces(pid: number, isRoot: boolean): { net: number; user: number | undefined } | undefined {
  let net: number | undefined;
  try {
    net = openSync(`/proc/${pid}/ns/net`, 'r');
    return { net, user: isRoot ? undefined : openSync(`/proc/${pid}/ns/user`, 'r') };
  } catch {
    if (net !== undefined) closeSync(net);
    return undefined;
  }
}

/**
 * The agentx process's shared network namespace, started on first use; a reason when there is
 * none (then each command gets a private one, as bwrap --unshare-net gives).
 */
export function sessionNetns(bwrapPath: string, isRoot: boolean): Promise<SessionNetns | { failed: string }> {
  holder ??= startHolder(bwrapPath, isRoot);
  return holder;
}
