// Did the sandbox refuse what a command tried? A heuristic over its output, used to tell the model
// (and, in the REPL, to offer the person a run without the sandbox). Pure.
import { isAbsolute } from 'node:path';
import { isWritable, type SandboxPolicy } from './policy.ts';

export type SandboxDenial =
  | { kind: 'write'; evidence: string }
  | { kind: 'read'; evidence: string }
  | { kind: 'network'; evidence: string };

export interface CommandOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
}

const READ_ONLY_FS = /read-only file system|\bEROFS\b/i;
const PERMISSION_DENIED = /permission denied|operation not permitted|\bEACCES\b|\bEPERM\b/i;
const NETWORK_DOWN = new RegExp([
  'could not resolve host', 'could not resolve hostname', 'temporary failure in name resolution',
  'name or service not known', 'network is unreachable', '\\bENETUNREACH\\b', '\\bEAI_AGAIN\\b',
  'getaddrinfo', 'failed to establish a new connection', 'connection refused', '\\bECONNREFUSED\\b',
  'no address associated with hostname', 'unable to resolve host', 'name resolution',
].join('|'), 'i');

/** Absolute paths a message line mentions (quoted or bare), in order. */
function pathsIn(line: string): string[] {
  const found: string[] = [];
  // A bare path starts a word: "./run.sh" and "a/b" are relative, not "/run.sh" or "/b".
  for (const m of line.matchAll(/['"`‘“]([^'"`’”]+)['"`’”]|(?<![\w.~-])(\/[^\s:'"`,;()]+)/g)) {
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
 * - a name-resolution or connection failure while the network is off.
 */
export function looksLikeSandboxDenial(r: CommandOutcome, policy: SandboxPolicy | undefined): SandboxDenial | undefined {
  if (!policy || r.timedOut || r.interrupted || r.exitCode === 0) return undefined;
  for (const line of linesOf(r)) {
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

const WHAT = { write: 'writing outside the writable directories', read: 'reading a hidden credential or agentx file', network: 'network access' };

/**
 * The text appended to a refused command's output, for the model: what was refused and that only
 * the person can allow it (so the model asks instead of hunting for a way around).
 */
export function sandboxDenialNote(denial: SandboxDenial, policy: SandboxPolicy): string {
  const allow = denial.kind === 'network'
    ? 'AGENTX_SANDBOX_NETWORK=on (network) or --sandbox danger-full-access (no sandbox)'
    : '--sandbox danger-full-access (no sandbox)';
  const writable = policy.writableRoots.length > 0 ? policy.writableRoots.join(', ') : 'nothing (read-only mode)';
  return [
    `[agentx] This command was probably refused by the sandbox (${policy.mode}, network ${policy.network ? 'on' : 'off'}): ${WHAT[denial.kind]} is not allowed.`,
    `Writable: ${writable}. Only the user can allow it, by restarting agentx with ${allow}.`,
    'Do not try to get around the sandbox; tell the user what you need and why.',
  ].join('\n');
}
