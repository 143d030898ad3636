// The sandbox end to end: the built CLI with default settings, the emulator asking for hostile
// commands, the real bwrap. TMPDIR is private to each test, so only the project and that directory
// are writable and the temp HOME is not.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostTcpServer, processesRunning } from '../support/sandbox.ts';
import { waitFor } from '../support/tools.ts';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox, type Sandbox } from './harness.ts';

const KEY = 'sk-test-e2e-secret-0123456789';
let emu: Emulator;
let box: Sandbox;
let elsewhere: string;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
  const root = dirname(box.home);
  elsewhere = join(root, 'elsewhere');
  mkdirSync(elsewhere);
  mkdirSync(join(root, 'tmp'));
  box.env.TMPDIR = join(root, 'tmp');
  writeFileSync(join(elsewhere, 'keep.txt'), 'original\n');
  mkdirSync(join(box.home, '.ssh'));
  writeFileSync(join(box.home, '.ssh/id_ed25519'), 'PRIVATE KEY\n');
  mkdirSync(join(box.home, '.local/state/agentx'), { recursive: true });
  writeFileSync(join(box.home, '.local/state/agentx/session.json'), '{"stored":"state"}\n');
  // The key is in the config file too: `cat ~/.agentx` is one of the routes to it.
  writeFileSync(join(box.home, '.agentx'), `AGENTX_API_KEY=${KEY}\n`);
});

type ShellOutput = { type: string; output: { stdout: string; stderr: string; outcome: { type: string; exit_code?: number } }[] };
/** The shell_call_output items agentx sent since request `from`. */
function shellOutputs(from: number): ShellOutput['output'] {
  return emu.requests.slice(from).flatMap((r) => {
    const input = (r.body as { input?: unknown }).input;
    return Array.isArray(input) ? (input as ShellOutput[]).filter((i) => i.type === 'shell_call_output').flatMap((i) => i.output) : [];
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('sandboxed by default', () => {
  it('changes nothing outside the project and tells the model why its write failed', async () => {
    const before = emu.requests.length;
    emu.enqueue({ kind: 'shell', commands: ['echo inside > made.txt', `echo changed > ${elsewhere}/keep.txt`, `echo planted > ${box.home}/.bashrc`] });
    const r = await runCli(['go'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(elsewhere, 'keep.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(box.home, '.bashrc'))).toBe(false);
    const [inside, outside, home] = shellOutputs(before);
    expect(inside?.outcome).toEqual({ type: 'exit', exit_code: 0 });
    expect(outside?.stderr).toMatch(/Read-only file system\n\[agentx\] This command was probably refused by the sandbox \(workspace-write, network off\)/);
    expect(outside?.stderr).toContain('--sandbox danger-full-access');
    expect(home?.stderr).toMatch(/Read-only file system/);
    expect(r.stderr).toContain('[agentx] This command was probably refused by the sandbox');
  });

  it('keeps the key out of reach by every route: environment, config file, /proc, state files, requests', async () => {
    const before = emu.requests.length;
    emu.enqueue({
      kind: 'shell',
      commands: [
        'env',
        'cat ~/.agentx',
        'cat /proc/$PPID/environ',
        'cat /proc/[0-9]*/environ',
        'ls /proc',
        'cat ~/.ssh/id_ed25519',
        'cat ~/.local/state/agentx/session.json',
        'grep -r sk- ~ 2>&1 | head',
      ],
    });
    let agentxPid = -1;
    const r = await runCli(['go'], {
      ...box,
      onSpawn: (p) => {
        agentxPid = p;
      },
    });
    expect(r.code).toBe(0);
    const outputs = shellOutputs(before);
    expect(outputs).toHaveLength(8);
    const everything = [
      r.stdout,
      r.stderr,
      JSON.stringify(emu.requests.slice(before).map((q) => q.body)),
      ...filesUnder(box.cwd).map((f) => readFileSync(f, 'utf8')),
    ].join('\n');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toContain('"stored"');
    // The PID namespace: agentx's own pid is not among the processes the command can see.
    const procEntries =
      outputs[4]?.stdout
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number) ?? [];
    expect(procEntries.length).toBeGreaterThan(0);
    expect(procEntries).not.toContain(agentxPid);
    expect(outputs[1]?.stderr).toMatch(/\.agentx: Permission denied/);
    expect(outputs[5]?.stderr).toMatch(/id_ed25519: Permission denied/);
  });

  it('keeps the key out of the state file that journals the command outputs', async () => {
    // The request after the commands fails, so the one-shot keeps its state file (with the outputs).
    emu.enqueue({ kind: 'shell', commands: ['env', 'cat ~/.agentx', 'cat /proc/[0-9]*/environ'] }, { kind: 'http_error', status: 500, times: 2 });
    const r = await runCli(['go'], box);
    expect(r.code).toBe(1);
    const stateFiles = readdirSync(box.cwd).filter((f) => f.startsWith('.agentx_responseid'));
    expect(stateFiles).toHaveLength(1);
    const state = readFileSync(join(box.cwd, stateFiles[0] ?? ''), 'utf8');
    expect(state).toContain('GIT_EDITOR=false');
    expect(state).not.toContain(KEY);
  });

  it('makes git commit without -m fail at once instead of opening an editor', async () => {
    emu.enqueue({ kind: 'shell', commands: ['git init -q . && echo x > f && git add f && git -c user.name=a -c user.email=a@b commit'] });
    const before = emu.requests.length;
    const r = await runCli(['go'], { ...box, stdin: { keepOpen: true } });
    expect(r.code).toBe(0);
    expect(shellOutputs(before)[0]?.stderr).toMatch(/problem with the editor/);
  });

  it('leaves no sandboxed process behind when agentx is killed with SIGKILL', async () => {
    const marker = `${process.pid}.${Date.now() % 100000}7`;
    emu.enqueue({ kind: 'shell', commands: [`sleep ${marker} & sleep ${marker}`] });
    const child = spawn(process.execPath, [CLI, 'go'], { cwd: box.cwd, env: box.env, stdio: 'ignore' });
    expect(await waitFor(() => processesRunning(`sleep ${marker}`).some((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('sleep')), 10_000)).toBe(
      true,
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(await waitFor(() => processesRunning(`sleep ${marker}`).length === 0, 10_000)).toBe(true);
  });
});

describe('network', () => {
  const { connect } = hostTcpServer();

  it('is off by default: a server on the host is unreachable, and the model is told the setting', async () => {
    emu.enqueue({ kind: 'shell', commands: [connect()] });
    const before = emu.requests.length;
    await runCli(['go'], box);
    const [out] = shellOutputs(before);
    expect(out?.stdout).toBe('');
    // Refused on the namespace's own loopback, or unreachable while it is not up yet: the host's server is never reached.
    expect(out?.stderr).toMatch(/ECONNREFUSED|ENETUNREACH/);
    expect(out?.stderr).toContain('AGENTX_SANDBOX_NETWORK=on');
  });

  it('AGENTX_SANDBOX_NETWORK=on lets it through', async () => {
    emu.enqueue({ kind: 'shell', commands: [connect()] });
    const before = emu.requests.length;
    await runCli(['go'], { ...box, env: { ...box.env, AGENTX_SANDBOX_NETWORK: 'on' } });
    expect(shellOutputs(before)[0]?.stdout).toBe('hello from the host\n');
  });
});

describe('modes and a missing bwrap', () => {
  it('--sandbox danger-full-access runs as before (writes anywhere), and the key is still never sent', async () => {
    emu.enqueue({ kind: 'shell', commands: [`echo changed > ${elsewhere}/keep.txt`, 'env', 'cat ~/.agentx'] });
    const before = emu.requests.length;
    const r = await runCli(['--sandbox', 'danger-full-access', 'go'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(elsewhere, 'keep.txt'), 'utf8')).toBe('changed\n');
    // The config file is readable without the sandbox; redaction is the second line of defence.
    expect(shellOutputs(before)[2]?.stdout).toBe('AGENTX_API_KEY=[REDACTED]\n');
    expect(JSON.stringify(emu.requests.slice(before).map((q) => q.body))).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('--sandbox read-only writes nowhere, not even in the project', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo x > made.txt'] });
    await runCli(['--sandbox', 'read-only', 'go'], box);
    expect(existsSync(join(box.cwd, 'made.txt'))).toBe(false);
  });

  it('without a usable bwrap, model commands fail with the fix, said once on stderr', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo ran > one.txt', 'echo ran > two.txt'] });
    const before = emu.requests.length;
    const r = await runCli(['go'], { ...box, env: { ...box.env, AGENTX_BWRAP: '/nonexistent/bwrap' } });
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(false);
    expect(existsSync(join(box.cwd, 'two.txt'))).toBe(false);
    const outs = shellOutputs(before);
    expect(outs.map((o) => o.outcome.exit_code)).toEqual([127, 127]);
    expect(outs[0]?.stderr).toContain('apt install bubblewrap');
    expect(r.stderr.match(/^agentx: model commands cannot be sandboxed: .*Fix: apt install bubblewrap/gm)).toHaveLength(1);
  });

  it('with AGENTX_SANDBOX=off-if-unavailable, they run unsandboxed after one warning', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo ran > one.txt', 'echo ran > two.txt'] });
    const r = await runCli(['go'], { ...box, env: { ...box.env, AGENTX_BWRAP: '/nonexistent/bwrap', AGENTX_SANDBOX: 'off-if-unavailable' } });
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'two.txt'), 'utf8')).toBe('ran\n');
    expect(r.stderr.match(/WITHOUT a sandbox/g)).toHaveLength(1);
  });

  it('refuses a bad AGENTX_SANDBOX before doing anything, exit 2', async () => {
    const r = await runCli(['go'], { ...box, env: { ...box.env, AGENTX_SANDBOX: 'strict' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agentx: AGENTX_SANDBOX: expected read-only, workspace-write, danger-full-access or off-if-unavailable, got "strict"/);
  });
});
