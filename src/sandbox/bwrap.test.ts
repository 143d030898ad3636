// The bwrap command line, first as argv, then enforced by the real bwrap on real files.
import { createServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runShellCommand, type ShellRunResult } from '../tools/shell.ts';
import { bwrapArgs } from './bwrap.ts';
import type { SandboxPolicy } from './policy.ts';
import { bwrapPath, hostTcpServer, makeLayout, TEST_KEY, type Layout } from '../../test/support/sandbox.ts';

let box: Layout;
beforeEach(() => {
  box = makeLayout();
});
afterEach(() => {
  box.remove();
});

function inSandbox(command: string, policy: SandboxPolicy = box.policy(), cwd = box.workspace): Promise<ShellRunResult> {
  return runShellCommand({
    command,
    cwd,
    timeoutMs: 15_000,
    maxOutputBytes: 64 * 1024,
    killGraceMs: 500,
    env: { ...box.env, AGENTX_API_KEY: undefined },
    sandbox: { bwrapPath: bwrapPath(), policy },
  });
}

describe('bwrapArgs', () => {
  const policy: SandboxPolicy = {
    mode: 'workspace-write',
    writableRoots: ['/w', '/tmp'],
    readOnly: ['/w/.agentx_responseid'],
    network: false,
    hidden: [
      { path: '/h/.agentx', kind: 'file' },
      { path: '/h/.ssh', kind: 'dir' },
    ],
  };

  it('binds / read-only first, then the writable roots, then hides, then runs the command after --', () => {
    const args = bwrapArgs({ policy, cwd: '/w/sub', argv: ['/bin/sh', '-c', 'echo "$HOME"'] });
    const at = (flag: string, value: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    expect(at('--ro-bind', '/')).toBeGreaterThan(-1);
    expect(at('--bind', '/w')).toBeGreaterThan(at('--ro-bind', '/'));
    expect(at('--ro-bind-try', '/w/.agentx_responseid')).toBeGreaterThan(at('--bind', '/tmp'));
    expect(at('--ro-bind', '/dev/null')).toBeGreaterThan(at('--ro-bind-try', '/w/.agentx_responseid'));
    expect(args.slice(at('--ro-bind', '/dev/null'), at('--ro-bind', '/dev/null') + 3)).toEqual(['--ro-bind', '/dev/null', '/h/.agentx']);
    expect(args.slice(args.indexOf('/h/.ssh') - 3, args.indexOf('/h/.ssh') + 1)).toEqual(['--perms', '0000', '--tmpfs', '/h/.ssh']);
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['/bin/sh', '-c', 'echo "$HOME"']);
    expect(args.slice(at('--chdir', '/w/sub'), at('--chdir', '/w/sub') + 2)).toEqual(['--chdir', '/w/sub']);
    for (const flag of ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-net']) expect(args).toContain(flag);
    // bwrap's init must stay in the supervisor's process group (see bwrap.ts).
    expect(args).not.toContain('--new-session');
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
  });

  it('keeps the network namespace only when the network is on', () => {
    expect(bwrapArgs({ policy: { ...policy, network: true }, cwd: '/', argv: ['true'] })).not.toContain('--unshare-net');
  });
});

describe('the real bwrap: file system', () => {
  it('lets the command write in the workspace and the temp dir, and nowhere else', async () => {
    const r = await inSandbox(
      [
        'echo inside > made.txt',
        `echo tmp > ${box.tempDir}/t.txt`,
        `echo changed > ${box.elsewhere}/keep.txt`,
        `echo new > ${box.elsewhere}/new.txt`,
        `echo home > ${box.home}/planted.txt`,
        'echo etc > /etc/agentx-sandbox-test',
        'exit 0',
      ].join('; '),
    );
    expect(readFileSync(join(box.workspace, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(box.tempDir, 't.txt'), 'utf8')).toBe('tmp\n');
    expect(readFileSync(join(box.elsewhere, 'keep.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(box.elsewhere, 'new.txt'))).toBe(false);
    expect(existsSync(join(box.home, 'planted.txt'))).toBe(false);
    expect(existsSync('/etc/agentx-sandbox-test')).toBe(false);
    expect(r.stderr.match(/Read-only file system/g)).toHaveLength(4);
  });

  it('read-only mode writes nowhere, not even the workspace, but reads it', async () => {
    const r = await inSandbox(`cat ${box.home}/notes.txt; echo x > made.txt; echo t > ${box.tempDir}/t.txt; ls`, box.policy({ mode: 'read-only' }));
    expect(r.stdout).toBe('readable\n');
    expect(existsSync(join(box.workspace, 'made.txt'))).toBe(false);
    expect(existsSync(join(box.tempDir, 't.txt'))).toBe(false);
    expect(r.stderr).toMatch(/Read-only file system/);
  });

  it('hides the config file, the state store and ~/.ssh, and leaves the rest of HOME readable', async () => {
    const r = await inSandbox(`cat ${box.configFile}; cat ${box.stateStore}/session.json; cat ${box.sshKey}; ls ${box.home}/.ssh; cat ${box.home}/notes.txt`);
    expect(r.stdout).toBe('readable\n');
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
    expect(r.stdout + r.stderr).not.toContain('PRIVATE KEY');
    expect(r.stdout + r.stderr).not.toContain('"secret"');
    expect(r.stderr.match(/Permission denied/g)).toHaveLength(4);
  });

  it('cannot write into the hidden paths either', async () => {
    await inSandbox(`echo AGENTX_BASE_URL=http://evil > ${box.configFile}; echo k > ${box.home}/.ssh/authorized_keys`);
    expect(readFileSync(box.configFile, 'utf8')).toBe(`AGENTX_API_KEY=${TEST_KEY}\n`);
    expect(existsSync(join(box.home, '.ssh/authorized_keys'))).toBe(false);
  });

  it('starts in the given directory, which need not be the workspace root', async () => {
    const sub = join(box.workspace, 'sub');
    await inSandbox('mkdir sub');
    const r = await inSandbox('pwd; cd .. && pwd', box.policy(), sub);
    expect(r.stdout).toBe(`${sub}\n${box.workspace}\n`);
  });
});

describe('the real bwrap: processes and privileges', () => {
  it('runs in its own PID namespace: agentx and every other process are invisible', async () => {
    const r = await inSandbox(`cat /proc/${process.pid}/environ; echo; ls /proc | grep '^[0-9]*$' | tr '\\n' ' '`);
    expect(r.stderr).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file`));
    // A fresh namespace numbers from 1: bwrap's init, the shell, ls, grep, tr.
    const pids = r.stdout.trim().split(' ').map(Number);
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.every((p) => p >= 1 && p < 20)).toBe(true);
  });

  it('drops every capability, so even root cannot remount / read-write and write outside', async () => {
    const escape = [
      'grep CapEff /proc/self/status',
      'mount -o remount,rw / && echo REMOUNTED',
      `mount -o remount,bind,rw "$(stat -c %m ${box.elsewhere})" && echo REMOUNTED`,
      `echo escaped > ${box.elsewhere}/escape.txt`,
    ].join('; ');
    const r = await inSandbox(escape);
    expect(r.stdout).toContain('CapEff:\t0000000000000000');
    expect(r.stdout).not.toContain('REMOUNTED');
    expect(existsSync(join(box.elsewhere, 'escape.txt'))).toBe(false);
  });

  it('shows why the cap drop is needed: without it, root escapes (a normal user does not)', async () => {
    const policy = box.policy();
    const args = bwrapArgs({
      policy,
      cwd: box.workspace,
      argv: ['/bin/sh', '-c', `mount -o remount,bind,rw "$(stat -c %m ${box.elsewhere})" && echo escaped > ${box.elsewhere}/escape.txt`],
    });
    const withoutDrop = args.filter((a, i) => a !== '--cap-drop' && args[i - 1] !== '--cap-drop');
    const { spawnSync } = await import('node:child_process');
    spawnSync(bwrapPath(), withoutDrop, { env: box.env, stdio: 'ignore' });
    expect(existsSync(join(box.elsewhere, 'escape.txt'))).toBe(process.getuid?.() === 0);
  });

  it('has no controlling terminal', async () => {
    // In a subshell: a failed redirection of a special builtin would end a POSIX shell.
    const r = await inSandbox('(exec 3</dev/tty) 2>/dev/null && echo has-tty || echo no-tty; ps -o tty= -p $$');
    expect(r.stdout).toBe('no-tty\n?\n');
  });
});

describe('the real bwrap: unix sockets', () => {
  it('cannot connect to the ssh agent socket (or any hidden socket), though a read-only mount alone would allow it', async () => {
    const socketPath = join(box.elsewhere, 'agent.sock');
    const server = createServer((socket) => socket.end('agent here\n'));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const connect = `${process.execPath} -e "require('net').connect('${socketPath}').on('data', d => process.stdout.write(d)).on('error', e => { console.error(e.code); process.exit(3); })"`;
      const hidden = await inSandbox(connect, box.policy({}, { SSH_AUTH_SOCK: socketPath }));
      expect(hidden.stdout).toBe('');
      expect(hidden.stderr).toMatch(/ECONNREFUSED|EACCES/);
      const notHidden = await inSandbox(connect, box.policy());
      expect(notHidden.stdout).toBe('agent here\n');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('the real bwrap: network', () => {
  // bash's /dev/tcp would need bash; node is certainly here (it runs this test).
  const { connect } = hostTcpServer();

  it('cannot reach a server on the host when the network is off', async () => {
    const r = await inSandbox(connect());
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
  });

  it('reaches it when the network is on', async () => {
    const r = await inSandbox(connect(), box.policy({ network: true }));
    expect(r.stdout).toBe('hello from the host\n');
  });
});
