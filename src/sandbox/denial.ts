// Did the sandbox refuse what a command tried? A heuristic over its output, used to tell the model
// (and, in the REPL, to offer the person a run without the sandbox). Pure.
import { isAbsolute } from 'node:path';
import { isWritable, type SandboxPolicy } from './policy.ts';

export type SandboxDenial =
  | { kind: 'write'; evidence: string }
  | { kind: 'read'; evidence: string }
  | { kind: 'network'; evidence: string }
  | { kind: 'unix-socket'; evidence: string };

export interface CommandOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
}

/**
 * The seccomp filter's refusal (sandbox/seccomp.ts): EPERM, "Operation not permitted", on a line
 * about a socket or a connection (tmux: "error connecting to /tmp/tmux-0/default (Operation not
 * permitted)"; Python: "PermissionError: [Errno 1] Operation not permitted"; Node: "socket EPERM").
 */
const OPERATION_NOT_PERMITTED = /operation not permitted|\bEPERM\b/i;
const ABOUT_SOCKETS = /socket|connect|\bunix\b|\.sock\b|\bagent\b|\bbus\b/i;
/** Python names no path when socket() fails (with a path it is a file's refusal). */
const PYTHON_BARE_EPERM = /PermissionError: \[Errno 1\] Operation not permitted\s*$/;

function isUnixSocketRefusal(line: string): boolean {
  return (OPERATION_NOT_PERMITTED.test(line) && ABOUT_SOCKETS.test(line)) || PYTHON_BARE_EPERM.test(line);
}

const READ_ONLY_FS = /read-only file system|\bEROFS\b/i;
const PERMISSION_DENIED = /permission denied|operation not permitted|\bEACCES\b|\bEPERM\b/i;
const NETWORK_DOWN = new RegExp(
  [
    'could not resolve host',
    'could not resolve hostname',
    'temporary failure in name resolution',
    'name or service not known',
    'network is unreachable',
    '\\bENETUNREACH\\b',
    '\\bEAI_AGAIN\\b',
    'getaddrinfo',
    'failed to establish a new connection',
    'connection refused',
    '\\bECONNREFUSED\\b',
    'no address associated with hostname',
    'unable to resolve host',
    'name resolution',
  ].join('|'),
  'i',
);

/** Absolute paths a message line mentions (quoted or bare), in order. */
function pathsIn(line: string): string[] {
  const found: string[] = [];
  // A bare path starts a word: "./run.sh" and "a/b" are relative, not "/run.sh" or "/b".
  for (const m of line.matchAll(/['"`\u2018\u201c]([^'"`\u2019\u201d]+)['"`\u2019\u201d]|(?<![\w.~-])(\/[^\s:'"`,;()]+)/g)) {
    const p = (m[1] ?? m[2] ?? '').trim();
    if (isAbsolute(p)) found.push(p);
  }
  return found;
}

function linesOf(r: CommandOutcome): string[] {
  return `${r.stderr}\n${r.stdout}`.split('\n');
}

/**
 * The first sign that the sandbox refused the command, or undefined. Only a failed command counts
 * (a command that handled the refusal and succeeded needs nothing from the person):
 * - a read-only file system anywhere (outside the writable roots everything is mounted read-only);
 * - "Permission denied" naming a path the policy does not let it write, or a hidden path;
 * - a name-resolution or connection failure while the network is off;
 * - "Operation not permitted" about a socket while Unix sockets are off (checked first: such a
 *   line often names a socket path outside the writable roots, which is no write refusal).
 */
export function looksLikeSandboxDenial(r: CommandOutcome, policy: SandboxPolicy | undefined): SandboxDenial | undefined {
  if (!policy || r.timedOut || r.interrupted || r.exitCode === 0) return undefined;
  for (const line of linesOf(r)) {
    if (policy.unixSockets !== true && isUnixSocketRefusal(line)) return { kind: 'unix-socket', evidence: line.trim() };
    if (READ_ONLY_FS.test(line)) return { kind: 'write', evidence: line.trim() };
    if (PERMISSION_DENIED.test(line)) {
      const paths = pathsIn(line);
      const hidden = paths.find((p) => policy.hidden.some((h) => p === h.path || p.startsWith(`${h.path}/`)));
      if (hidden !== undefined) return { kind: 'read', evidence: line.trim() };
      if (paths.some((p) => !isWritable(policy, p))) return { kind: 'write', evidence: line.trim() };
    }
    if (!policy.network && NETWORK_DOWN.test(line)) return { kind: 'network', evidence: line.trim() };
  }
  return undefined;
}

const WHAT = {
  write: 'writing outside the writable directories',
  read: 'reading a hidden credential or agentx file',
  network: 'network access',
  'unix-socket': 'a Unix socket (a local service outside the sandbox: tmux, a database, an agent)',
};

const ALLOW = {
  network: 'AGENTX_SANDBOX_NETWORK=on (network) or --sandbox danger-full-access (no sandbox)',
  'unix-socket': 'AGENTX_SANDBOX_UNIX_SOCKETS=on (Unix sockets) or --sandbox danger-full-access (no sandbox)',
};

/** What plan mode still lets the person allow: its sandbox stays read-only either way. */
const ALLOW_IN_PLAN_MODE = {
  network: 'AGENTX_SANDBOX_NETWORK=on (network; commands stay read-only)',
  'unix-socket': 'AGENTX_SANDBOX_UNIX_SOCKETS=on (Unix sockets; commands stay read-only)',
};

/**
 * The text appended to a refused command's output, for the model: what was refused and that only
 * the person can allow it (so the model asks instead of hunting for a way around). In plan mode
 * (`planMode`) nothing that writes is offered: plan mode changes nothing until the plan is approved.
 */
export function sandboxDenialNote(denial: SandboxDenial, policy: SandboxPolicy, planMode = false): string {
  if (planMode) {
    const what = denial.kind === 'write' ? 'writing files' : WHAT[denial.kind];
    const allow =
      denial.kind === 'network' || denial.kind === 'unix-socket'
        ? ` Only the user can allow it, by restarting agentx with ${ALLOW_IN_PLAN_MODE[denial.kind]}.`
        : '';
    return [
      `[agentx] This command was probably refused by the sandbox (plan mode: read-only, network ${policy.network ? 'on' : 'off'}): ${what} is not allowed.`,
      `Plan mode changes nothing: every command runs read-only until the user approves the plan.${allow}`,
      'Do not try to get around the sandbox; plan with what you can read, and make what needs more a step of the plan.',
    ].join('\n');
  }
  const allow = denial.kind === 'network' || denial.kind === 'unix-socket' ? ALLOW[denial.kind] : '--sandbox danger-full-access (no sandbox)';
  const writable = policy.writableRoots.length > 0 ? policy.writableRoots.join(', ') : 'nothing (read-only mode)';
  return [
    `[agentx] This command was probably refused by the sandbox (${policy.mode}, network ${policy.network ? 'on' : 'off'}): ${WHAT[denial.kind]} is not allowed.`,
    `Writable: ${writable}. Only the user can allow it, by restarting agentx with ${allow}.`,
    'Do not try to get around the sandbox; tell the user what you need and why.',
  ].join('\n');
}
