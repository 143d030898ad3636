// The refusal heuristic on the messages real tools print.
import { describe, expect, it } from 'vitest';
import { looksLikeSandboxDenial, sandboxDenialNote, type CommandOutcome } from './denial.ts';
import type { SandboxPolicy } from './policy.ts';

const policy: SandboxPolicy = {
  mode: 'workspace-write',
  writableRoots: ['/w', '/tmp'],
  readOnly: [],
  network: false,
  hidden: [
    { path: '/home/u/.ssh', kind: 'dir' },
    { path: '/home/u/.agentx', kind: 'file' },
  ],
};
const failed = (stderr: string, more: Partial<CommandOutcome> = {}): CommandOutcome => ({
  stdout: '',
  stderr,
  exitCode: 1,
  timedOut: false,
  interrupted: false,
  ...more,
});

describe('looksLikeSandboxDenial', () => {
  it('sees a refused Unix socket (the seccomp filter) while they are off, not while they are on', () => {
    for (const line of [
      'error connecting to /tmp/tmux-0/default (Operation not permitted)',
      'PermissionError: [Errno 1] Operation not permitted',
      'Error: connect EPERM /run/postgresql/.s.PGSQL.5432',
      'Error connecting to agent: Operation not permitted',
      'socat[12] E socket(1, 1, 0): Operation not permitted',
    ]) {
      expect(looksLikeSandboxDenial(failed(line), policy)).toEqual({ kind: 'unix-socket', evidence: line });
      expect(looksLikeSandboxDenial(failed(line), { ...policy, unixSockets: true })?.kind).not.toBe('unix-socket');
    }
    expect(looksLikeSandboxDenial(failed("PermissionError: [Errno 1] Operation not permitted: '/w/x'"), policy)?.kind).not.toBe('unix-socket');
    expect(looksLikeSandboxDenial(failed("chown: changing ownership of '/w/x': Operation not permitted"), policy)).toBeUndefined();
    const note = sandboxDenialNote({ kind: 'unix-socket', evidence: 'x' }, policy);
    expect(note).toContain('a Unix socket');
    expect(note).toContain('AGENTX_SANDBOX_UNIX_SOCKETS=on');
  });

  it('sees a write to the read-only file system', () => {
    expect(looksLikeSandboxDenial(failed("touch: cannot touch '/etc/x': Read-only file system\n"), policy)).toEqual({
      kind: 'write',
      evidence: "touch: cannot touch '/etc/x': Read-only file system",
    });
    expect(looksLikeSandboxDenial(failed("Error: EROFS: read-only file system, open '/home/u/x'"), policy)?.kind).toBe('write');
  });

  it('sees "Permission denied" on a path outside the writable roots, or a hidden one', () => {
    expect(looksLikeSandboxDenial(failed('sh: 1: cannot create /home/u/f: Permission denied'), policy)?.kind).toBe('write');
    expect(looksLikeSandboxDenial(failed('cat: /home/u/.ssh/id_rsa: Permission denied'), policy)?.kind).toBe('read');
    expect(looksLikeSandboxDenial(failed("cat: '/home/u/.agentx': Permission denied"), policy)?.kind).toBe('read');
    // GNU tools quote with typographic quotes in a UTF-8 locale (written as \u escapes in denial.ts: the bundle is ASCII).
    expect(looksLikeSandboxDenial(failed('cat: \u2018/home/u/.agentx\u2019: Permission denied'), policy)?.kind).toBe('read');
    expect(looksLikeSandboxDenial(failed('touch: cannot touch \u201c/w/a b\u201d: Permission denied'), policy)).toBeUndefined();
  });

  it('ignores "Permission denied" inside the workspace (a chmod problem, not the sandbox)', () => {
    expect(looksLikeSandboxDenial(failed('sh: 1: /w/run.sh: Permission denied'), policy)).toBeUndefined();
    expect(looksLikeSandboxDenial(failed('./run.sh: Permission denied'), policy)).toBeUndefined();
  });

  it('sees name resolution and connection failures while the network is off, not while it is on', () => {
    for (const line of [
      'curl: (6) Could not resolve host: example.com',
      "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
      'npm error code EAI_AGAIN',
      'connect: Network is unreachable',
      'ssh: Could not resolve hostname github.com: Temporary failure in name resolution',
      'Error: connect ECONNREFUSED 127.0.0.1:3000',
    ]) {
      expect(looksLikeSandboxDenial(failed(line), policy)?.kind).toBe('network');
      expect(looksLikeSandboxDenial(failed(line), { ...policy, network: true })).toBeUndefined();
    }
  });

  it('says nothing for a success, a timeout, an interruption, an unrelated failure or no sandbox', () => {
    const ro = "touch: cannot touch '/etc/x': Read-only file system";
    expect(looksLikeSandboxDenial(failed(ro, { exitCode: 0 }), policy)).toBeUndefined();
    expect(looksLikeSandboxDenial(failed(ro, { timedOut: true, exitCode: null }), policy)).toBeUndefined();
    expect(looksLikeSandboxDenial(failed(ro, { interrupted: true, exitCode: null }), policy)).toBeUndefined();
    expect(looksLikeSandboxDenial(failed('error: tests failed'), policy)).toBeUndefined();
    expect(looksLikeSandboxDenial(failed(ro), undefined)).toBeUndefined();
  });

  it('reads stdout too (some tools report errors there)', () => {
    expect(looksLikeSandboxDenial(failed('', { stdout: 'write failed: Read-only file system' }), policy)?.kind).toBe('write');
  });
});

describe('sandboxDenialNote', () => {
  it('tells the model what was refused and how only the person can allow it', () => {
    const note = sandboxDenialNote({ kind: 'write', evidence: 'x' }, policy);
    expect(note).toContain('refused by the sandbox (workspace-write, network off)');
    expect(note).toContain('Writable: /w, /tmp');
    expect(note).toContain('--sandbox danger-full-access');
    expect(note).not.toContain('AGENTX_SANDBOX_NETWORK');
    expect(sandboxDenialNote({ kind: 'network', evidence: 'x' }, policy)).toContain('AGENTX_SANDBOX_NETWORK=on');
    expect(sandboxDenialNote({ kind: 'write', evidence: 'x' }, { ...policy, mode: 'read-only', writableRoots: [] })).toContain(
      'Writable: nothing (read-only mode)',
    );
  });
});

describe('sandboxDenialNote in plan mode', () => {
  it('offers nothing that writes: no danger-full-access, no writable list; the network setting keeps commands read-only', () => {
    const readOnly = { ...policy, mode: 'read-only' as const, writableRoots: [] };
    const write = sandboxDenialNote({ kind: 'write', evidence: 'x' }, readOnly, true);
    expect(write).toContain('refused by the sandbox (plan mode: read-only, network off): writing files is not allowed');
    expect(write).toContain('Plan mode changes nothing');
    expect(write).not.toMatch(/danger-full-access|Writable:|restarting/);
    expect(sandboxDenialNote({ kind: 'read', evidence: 'x' }, readOnly, true)).not.toMatch(/danger-full-access|restarting/);
    const network = sandboxDenialNote({ kind: 'network', evidence: 'x' }, readOnly, true);
    expect(network).toContain('AGENTX_SANDBOX_NETWORK=on (network; commands stay read-only)');
    expect(network).not.toContain('danger-full-access');
    expect(sandboxDenialNote({ kind: 'unix-socket', evidence: 'x' }, readOnly, true)).not.toContain('danger-full-access');
  });
});
