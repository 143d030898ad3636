// The bubblewrap command line for one sandboxed command. Pure: policy + command in, argv out.
//
// Why each part:
// - `--ro-bind / /` first, then writable binds, then read-only files inside them, then the hidden
//   paths: later mounts cover earlier ones, so a hidden path inside a writable root (a temp HOME
//   under /tmp) stays hidden.
// - Directories between a writable root and a hidden path inside it are bound onto themselves
//   (policy.ts pinnedAncestors): a mount point cannot be renamed, so the hidden path cannot be
//   moved out from under its mount and planted anew.
// - Hidden files get /dev/null bound over them (bwrap mounts it nodev, so opening it is refused);
//   hidden directories an empty tmpfs with mode 0000 (nothing to list, nothing to write).
// - `--dev /dev` and `--proc /proc`: a minimal /dev without the host's disks, and a /proc that
//   shows only the sandbox's own PID namespace, so agentx's /proc/<pid>/environ is out of reach.
// - `--unshare-pid`, `--unshare-ipc`, `--unshare-net` (when the network is off): no other
//   process, shared memory or network interface than the sandbox's own (loopback only).
// - `--cap-drop ALL`: as root, bwrap would otherwise hand the command every capability, and a
//   root command could `mount -o remount,rw /` and escape. As a normal user it changes nothing.
// - `--seccomp FD` (unless Unix sockets are allowed): the filter of sandbox/seccomp.ts, which
//   bwrap reads from FD, closes, and applies last, after its own setup (which needs sockets).
// - `--die-with-parent`: the command is SIGKILLed when bwrap's parent (agentx) dies, on top of
//   the supervisor's lifeline (tools/supervisor.ts).
// - No `--new-session`, on purpose: the supervisor already starts the command in a new session
//   with no controlling terminal (setsid), and the sandbox's /dev has its own devpts, so no
//   terminal is reachable. With it, bwrap's init would leave the supervisor's process group, and
//   a Ctrl-C landing while bwrap starts (before its init arms --die-with-parent) orphaned the
//   whole sandbox for good; inside the group, the group's SIGKILL always reaches it.
import type { SandboxPolicy } from './policy.ts';

export interface BwrapInvocation {
  policy: SandboxPolicy;
  /** Where the command starts (it need not be writable). */
  cwd: string;
  /** The command to run inside, e.g. [shell, '-c', commandLine]. */
  argv: readonly string[];
  /** The fd bwrap reads the seccomp filter from (sandbox/seccomp.ts); absent: no filter. */
  seccompFd?: number;
}

function namespaceArgs(policy: SandboxPolicy): string[] {
  // Joining the session's namespace (netns.ts), bwrap keeps the one it starts in: nsenter's.
  const privateNet = !policy.network && policy.joinNetns === undefined;
  return ['--unshare-pid', '--unshare-ipc', ...(privateNet ? ['--unshare-net'] : [])];
}

function mountArgs(policy: SandboxPolicy): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const root of policy.writableRoots) args.push('--bind', root, root);
  // Before anything mounted inside them (they would cover it). -try: a concurrent command may
  // have renamed one away meanwhile; what it leads to is then not there to protect either.
  for (const dir of policy.pinned ?? []) args.push('--bind-try', dir, dir);
  // -try: a concurrent one-shot removes its state file when it ends, maybe between the listing
  // and this mount; a file that is gone needs no protecting (and must not fail the command).
  for (const file of policy.readOnly) args.push('--ro-bind-try', file, file);
  for (const hidden of policy.hidden) {
    if (hidden.kind === 'file') args.push('--ro-bind', '/dev/null', hidden.path);
    else args.push('--perms', '0000', '--tmpfs', hidden.path);
  }
  return args;
}

/** The arguments that follow the bwrap executable; the command comes after `--`. */
export function bwrapArgs(inv: BwrapInvocation): string[] {
  return [
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    ...namespaceArgs(inv.policy),
    ...mountArgs(inv.policy),
    ...(inv.seccompFd === undefined ? [] : ['--seccomp', String(inv.seccompFd)]),
    '--chdir',
    inv.cwd,
    '--',
    ...inv.argv,
  ];
}

/** The whole command line: bwrap and its arguments, behind the shared namespace's nsenter when joined. */
export function bwrapCommand(bwrapPath: string, inv: BwrapInvocation): string[] {
  return [...(inv.policy.network ? [] : (inv.policy.joinNetns ?? [])), bwrapPath, ...bwrapArgs(inv)];
}
