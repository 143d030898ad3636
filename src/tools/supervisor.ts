// The per-command supervisor: a POSIX sh script that becomes the command's process group leader.
// It exists so commands die with agentx even when agentx is SIGKILLed and cannot run any code.
//
// Lifeline: fd 3 is one end of a socketpair whose other end only agentx holds. A forked watcher
// subshell blocks reading it; the read sees EOF only when agentx's end closes, which the kernel
// does however agentx dies. The watcher then stops the whole group: TERM, grace, KILL.
//
// Why the shape below:
// - The watcher is a fork of this sh (no exec, no node): about a millisecond, not ~40 ms.
// - The script then `exec`s the user's shell in place (or bwrap running it, when sandboxed), so
//   the command keeps this pid (= the group id) and its exit status or death signal reaches agentx
//   untouched (bwrap reports a command's death by signal N as exit status 128+N).
// - The grace arrives as "$1" and the command as the remaining arguments, never spliced into the
//   script text: no quoting bugs.
// - The watcher's stdio is /dev/null so it never holds the stdout/stderr pipes open, and the
//   command gets fd 3 closed so it cannot see or leak the lifeline.
// - TERM/INT/HUP are ignored before the fork, so the watcher is immune from birth to the TERM
//   that agentx sends the group on timeout, Ctrl-C or cleanup, and stays on guard until the
//   final SIGKILL; they are reset before `exec`, so the user's command sees default signals.
// - `while read` loops in case anything is ever written; only EOF (or a broken fd, which should
//   fail safe) ends the watch.
// - Sandboxed, fd 4 is the start marker (SANDBOX_START_FD): a tiny sh inside bwrap writes one byte
//   to it once every mount is in place, then execs the command without it. bwrap can fail while
//   setting up (a state file replaced by rename between its bind and its read-only remount gives
//   "Can't bind mount … Invalid argument"); without the byte agentx knows for certain the command
//   never ran and may start it again (shell.ts). The watcher closes fd 4 so the marker pipe ends
//   when the sandbox does.
// - Sandboxed without Unix sockets, fd 5 (SANDBOX_SECCOMP_FD) carries the seccomp filter
//   (sandbox/seccomp.ts): agentx writes it and closes its end, bwrap reads it to the end and
//   closes it. The watcher closes its copy too.
// - Descriptors agentx inherited above these are /dev/null in the child (inherited-fds.ts).
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { Socket } from 'node:net';
import { basename, isAbsolute } from 'node:path';
import { nodeChildProcess } from '../lib/builtins.ts';
import { errorCode, isExecutableFile } from '../lib/fsutil.ts';
import { bwrapCommand } from '../sandbox/bwrap.ts';
import type { SandboxPolicy } from '../sandbox/policy.ts';
import { blankInheritedDescriptors, type ChildStdio } from './inherited-fds.ts';

/** The supervisor's shell script (its reasoning above); the MCP stdio transport reuses it. */
export const SUPERVISOR_SCRIPT = [
  "trap '' TERM INT HUP",
  '(',
  '  while read -r _ <&3; do :; done',
  '  kill -TERM -$$; kill -CONT -$$',
  '  sleep "$1"',
  '  kill -KILL -$$',
  ') </dev/null >/dev/null 2>&1 4>&- 5>&- &',
  'trap - TERM INT HUP',
  'shift',
  'exec "$@" 3<&-',
].join('\n');

/** Shells known to accept `-c command` with POSIX semantics; others (fish, csh, nu) are not used. */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);

const FALLBACK_SHELL = '/bin/sh';

/** The user's $SHELL when it is an absolute, existing, POSIX-like shell; /bin/sh otherwise. */
export function resolveUserShell(shellEnv: string | undefined): string {
  if (!shellEnv || !isAbsolute(shellEnv)) return FALLBACK_SHELL;
  if (!POSIX_SHELLS.has(basename(shellEnv))) return FALLBACK_SHELL;
  return isExecutableFile(shellEnv) ? shellEnv : FALLBACK_SHELL;
}

/**
 * Why a command cannot start in `cwd`, or undefined. Checked up front because spawn reports a
 * missing cwd as "spawn /bin/sh ENOENT", which misleads the model into blaming the shell.
 */
export function cwdProblem(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory()) return `working directory is not a directory: ${cwd}`;
    return undefined;
  } catch (err) {
    const code = errorCode(err);
    return code === 'ENOENT' ? `working directory does not exist: ${cwd}` : `cannot use working directory ${cwd}: ${String(code)}`;
  }
}

/** Run the command inside bubblewrap with this policy (src/sandbox/). */
export interface SandboxLaunch {
  bwrapPath: string;
  policy: SandboxPolicy;
  /** The encoded seccomp filter bwrap applies (sandbox/seccomp.ts); absent: none (Unix sockets allowed). */
  seccomp?: Buffer;
}

export interface SupervisedSpawn {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  graceMs: number;
  sandbox?: SandboxLaunch;
}

/** The fd a sandboxed command's start marker arrives on (stdio[4] of the supervisor). */
export const SANDBOX_START_FD = 4;
/** The fd bwrap reads the seccomp filter from (stdio[5]). */
export const SANDBOX_SECCOMP_FD = 5;
/**
 * Inside bwrap: say "started" on the marker fd, then become the command with that fd closed. If the
 * marker cannot be written (a wrapper that does not pass fd 4 on), the command must not run: a
 * missing marker has to mean "never ran", or a failing command would be run again.
 */
const START_MARKER_SCRIPT = `printf s >&${SANDBOX_START_FD} || { echo "agentx: the sandbox did not pass fd ${SANDBOX_START_FD} on; command not run" >&2; exit 125; }; exec "$@" ${SANDBOX_START_FD}>&-`;

/** What the supervisor execs: the shell with the command, wrapped in bwrap when sandboxed. */
export function commandArgv(shell: string, opts: Pick<SupervisedSpawn, 'command' | 'cwd' | 'sandbox'>): string[] {
  const inner = [shell, '-c', opts.command];
  if (!opts.sandbox) return inner;
  const marked = [FALLBACK_SHELL, '-c', START_MARKER_SCRIPT, 'agentx-sandbox', ...inner];
  const seccompFd = opts.sandbox.seccomp ? SANDBOX_SECCOMP_FD : undefined;
  return bwrapCommand(opts.sandbox.bwrapPath, { policy: opts.sandbox.policy, cwd: opts.cwd, argv: marked, seccompFd });
}

/**
 * Starts the command under the supervisor, detached (setsid: its own session and process group,
 * no controlling terminal, so terminal Ctrl-C reaches only agentx) with stdin from /dev/null.
 * stdio[3] of the result is agentx's end of the lifeline, stdio[4] (sandboxed) the start marker. May throw (e.g. a NUL in the command).
 */
export function spawnSupervised(opts: SupervisedSpawn): ChildProcess {
  const shell = resolveUserShell(opts.env.SHELL);
  const graceSeconds = String(Math.max(1, Math.ceil(opts.graceMs / 1000)));
  const stdio: ChildStdio = ['ignore', 'pipe', 'pipe', 'pipe'];
  if (opts.sandbox) stdio.push('pipe');
  if (opts.sandbox?.seccomp) stdio.push('pipe');
  const child = nodeChildProcess().spawn(FALLBACK_SHELL, ['-c', SUPERVISOR_SCRIPT, 'agentx-supervisor', graceSeconds, ...commandArgv(shell, opts)], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: blankInheritedDescriptors(stdio),
  });
  if (opts.sandbox?.seccomp) sendFilter(child, opts.sandbox.seccomp);
  return child;
}

/** Writes the filter and closes agentx's end, so bwrap reads it to EOF. Errors (bwrap gone first) are its own failure to report. */
function sendFilter(child: ChildProcess, filter: Buffer): void {
  // The stdio tuple type ends at index 4.
  const pipe = (child.stdio as readonly unknown[])[SANDBOX_SECCOMP_FD];
  if (!(pipe instanceof Socket)) return;
  pipe.on('error', () => undefined);
  pipe.end(filter);
  // Nothing comes back; flowing, the pipe sees its EOF and closes once bwrap has closed its copy.
  pipe.resume();
  pipe.unref();
  child.once('exit', () => pipe.destroy());
}
