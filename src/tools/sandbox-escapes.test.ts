// The routes out of the sandbox that its walls alone did not close (issue 23), each against the
// real bwrap through the engine's command runner: Unix sockets (a server outside, a real tmux
// server), the terminal variables, a hidden path whose parent a command renames, and descriptors
// agentx inherited.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxSetting } from '../sandbox/policy.ts';
import { makeLayout, TEST_KEY, type Layout } from '../../test/support/sandbox.ts';
import { createCommandRunner, type CommandRunnerSetup } from './sandboxed.ts';
import type { ShellRunOptions } from './shell.ts';

let box: Layout;
beforeEach(() => {
  box = makeLayout();
});
afterEach(() => {
  box.remove();
});

function runner(setting: Partial<SandboxSetting> = {}, more: Partial<CommandRunnerSetup> = {}) {
  return createCommandRunner({
    setting: { mode: 'workspace-write', offIfUnavailable: false, network: false, ...setting },
    sessionDir: box.workspace,
    tempDir: box.tempDir,
    env: box.env,
    configFile: box.configFile,
    secrets: [TEST_KEY],
    platform: 'linux',
    notice: () => undefined,
    ...more,
  });
}

const opts = (command: string): ShellRunOptions => ({ command, cwd: box.workspace, timeoutMs: 15_000, maxOutputBytes: 64 * 1024, killGraceMs: 300 });

const hasPython = spawnSync('python3', ['-c', '1']).status === 0;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** A Unix socket server outside the sandbox, answering "hello from outside". */
async function unixServer(path: string): Promise<Server> {
  const server = createServer((s) => s.end('hello from outside\n'));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

const pyConnect = (path: string): string =>
  `python3 -c 'import socket;s=socket.socket(socket.AF_UNIX);s.connect("${path}");print(s.recv(100).decode().strip())'`;

describe.runIf(hasPython)('Unix sockets', () => {
  it('a server outside is not reachable by default; the refusal note names the setting; with AGENTX_SANDBOX_UNIX_SOCKETS=on it is', async () => {
    const path = join(box.workspace, 'outside.sock');
    const server = await unixServer(path);
    try {
      const refused = await runner().run(opts(pyConnect(path)));
      expect(refused.stdout).not.toContain('hello from outside');
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toContain('Operation not permitted');
      expect(refused.sandboxDenial?.kind).toBe('unix-socket');
      expect(refused.stderr).toContain('AGENTX_SANDBOX_UNIX_SOCKETS=on');
      // Node's own client too (libuv creates the socket the same way).
      const node = await runner().run(
        opts(
          `${process.execPath} -e "require('net').connect('${path}').on('data', d => process.stdout.write(d)).on('error', e => { console.error(e.message); process.exit(3); })"`,
        ),
      );
      expect(node.exitCode).toBe(3);
      expect(node.stdout).toBe('');

      const allowed = await runner({ unixSockets: true }).run(opts(pyConnect(path)));
      expect(allowed.stdout).toBe('hello from outside\n');
      expect(allowed.exitCode).toBe(0);
    } finally {
      server.close();
    }
  });

  it('long-running children (MCP servers) get the same filter, their stdin untouched', async () => {
    const wrap = await runner().childWrapper();
    if (wrap === null || 'refused' in wrap) throw new Error('expected a sandbox wrapper');
    const argv = wrap(['python3', '-c', 'import socket,sys\nprint(sys.stdin.readline().strip(), flush=True)\nsocket.socket(socket.AF_UNIX)'], box.workspace);
    const r = spawnSync(argv[0]!, argv.slice(1), { input: 'hello over stdin\n', encoding: 'utf8' });
    expect(r.stdout).toBe('hello over stdin\n');
    expect(r.stderr).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/);
  });

  it('socketpair and TCP sockets still work inside', async () => {
    const r = await runner().run(
      opts(`python3 -c 'import socket
a, b = socket.socketpair(); a.sendall(b"pair"); print(b.recv(4).decode())
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("tcp", t.family == socket.AF_INET)'`),
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('pair\ntcp True\n');
  });
});

describe('an architecture without a filter', () => {
  it('refuses sandboxed commands with one line naming the setting; with Unix sockets on they run', async () => {
    const notices: string[] = [];
    const r = await runner({}, { arch: 'riscv64', notice: (m) => notices.push(m) }).run(opts('echo ran'));
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'agentx: the sandbox has no Unix-socket filter for riscv64 (only x64 and arm64); set AGENTX_SANDBOX_UNIX_SOCKETS=on to run sandboxed without it, or --sandbox danger-full-access\n',
    );
    expect(notices).toHaveLength(1);
    expect((await runner({ unixSockets: true }, { arch: 'riscv64' }).run(opts('echo ran'))).stdout).toBe('ran\n');
  });
});

describe.runIf(hasTmux)('a real tmux server outside', () => {
  it('cannot be driven from inside (tmux run-shell would run outside the sandbox), and TMUX/STY are not passed', async () => {
    const sock = join(box.tempDir, 'tmux-test.sock');
    const pwned = join(box.elsewhere, 'pwned');
    execFileSync('tmux', ['-S', sock, '-f', '/dev/null', 'new-session', '-d', 'sleep 60']);
    try {
      const env = { ...box.env, TMUX: `${sock},1,0`, TMUX_PANE: '%0', STY: '123.pts-0.host' };
      const run = runner({}, { env });
      const r = await run.run(opts(`tmux -S ${sock} run-shell "touch ${pwned}"`));
      expect(r.stderr).toMatch(/Operation not permitted/);
      expect(existsSync(pwned)).toBe(false);
      const shown = await run.run(opts('env'));
      expect(shown.stdout).toMatch(/^HOME=/m);
      expect(shown.stdout).not.toMatch(/^(TMUX|TMUX_PANE|STY)=/m);
      expect(r.sandboxDenial?.kind).toBe('unix-socket');
      // Control: the same line outside the sandbox does reach it.
      execFileSync('tmux', ['-S', sock, 'run-shell', `touch ${pwned}`]);
      expect(existsSync(pwned)).toBe(true);
    } finally {
      spawnSync('tmux', ['-S', sock, 'kill-server']);
    }
  });
});

describe('a hidden path inside a writable root (HOME under the temp dir)', () => {
  it('cannot be moved away with its parent and planted anew; ordinary writes there still work', async () => {
    const home = join(box.tempDir, 'home');
    const cache = join(home, '.cache/agentx');
    const state = join(home, '.local/state/agentx');
    for (const d of [cache, state]) mkdirSync(d, { recursive: true });
    writeFileSync(join(cache, 'real.cache'), 'ours\n');
    const env = { ...box.env, HOME: home };
    const run = runner({}, { env, configFile: join(home, '.agentx') });
    const plant = (parent: string, hidden: string): string => `mv ${parent} ${parent}.moved && mkdir -p ${hidden} && echo planted > ${hidden}/planted`;
    const r1 = await run.run(opts(plant(join(home, '.cache'), cache)));
    const r2 = await run.run(opts(plant(join(home, '.local'), state)));
    const r3 = await run.run(opts(plant(home, cache)));
    for (const r of [r1, r2, r3]) expect(r.exitCode).not.toBe(0);
    expect(readdirSync(cache)).toEqual(['real.cache']);
    expect(readdirSync(state)).toEqual([]);
    for (const moved of ['.cache.moved', '.local.moved']) expect(existsSync(join(home, moved))).toBe(false);
    expect(existsSync(`${home}.moved`)).toBe(false);
    const ok = await run.run(opts(`echo pip > ${home}/.cache/pip-cache && mkdir ${home}/.local/bin && echo ok`));
    expect(ok.stdout).toBe('ok\n');
    expect(readFileSync(join(home, '.cache/pip-cache'), 'utf8')).toBe('pip\n');
  });
});

describe('agentx files that do not exist yet inside a writable root (HOME under the temp dir)', () => {
  // Before the fix a command could create ~/.agentx (AGENTX_BASE_URL, AGENTX_SANDBOX=...) and
  // ~/.config/agentx/{hooks,mcp}.json, which agentx then read and trusted.
  it('cannot be planted: ~/.agentx, ~/.config/agentx/hooks.json and mcp.json; an existing config dir is read-only, its mcp.json hidden', async () => {
    const home = join(box.tempDir, 'home');
    mkdirSync(home, { recursive: true });
    const env = { ...box.env, HOME: home };
    const run = runner({}, { env, configFile: join(home, '.agentx') });
    const plant = [
      `echo AGENTX_SANDBOX=danger-full-access > ${home}/.agentx`,
      `mkdir -p ${home}/.config/agentx`,
      `echo '{"hooks":{}}' > ${home}/.config/agentx/hooks.json`,
      `echo '{"mcpServers":{}}' > ${home}/.config/agentx/mcp.json`,
    ];
    for (const line of plant) await run.run(opts(line));
    const planted = (f: string): string => (existsSync(join(home, f)) ? readFileSync(join(home, f), 'utf8') : '');
    expect(planted('.agentx')).toBe('');
    // The mount points left behind are private and writable by the person (bwrap alone leaves 0444).
    expect(statSync(join(home, '.agentx')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.agentx_history')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(home, '.config/agentx/hooks.json'))).toBe(false);
    expect(existsSync(join(home, '.config/agentx/mcp.json'))).toBe(false);

    // The person's own config dir, existing: readable (a hook's script), not writable; mcp.json unreadable.
    const configDir = join(home, '.config/agentx');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'check.sh'), 'echo hook-script\n');
    writeFileSync(join(configDir, 'mcp.json'), '{"mcpServers":{"x":{"env":{"TOKEN":"secret-token"}}}}\n');
    const r = await run.run(
      opts(`sh ${configDir}/check.sh; cat ${configDir}/mcp.json; echo x > ${configDir}/hooks.json; mv ${home}/.config ${home}/.config.moved; echo done`),
    );
    expect(r.stdout).toContain('hook-script');
    expect(r.stdout).not.toContain('secret-token');
    expect(existsSync(join(configDir, 'hooks.json'))).toBe(false);
    expect(existsSync(`${home}/.config.moved`)).toBe(false);
    // Ordinary files in HOME are still writable.
    const ok = await run.run(opts(`echo fine > ${home}/.bashrc && echo ok`));
    expect(ok.stdout).toBe('ok\n');
  });
});

describe('descriptors agentx inherited', () => {
  it('do not reach a sandboxed command: fd 50, open on a file outside, cannot be written through', async () => {
    const bundle = join(box.root, 'run-one.mjs');
    await build({
      stdin: {
        contents: [
          "import { createCommandRunner } from './src/tools/sandboxed.ts';",
          'const [setup, command] = JSON.parse(process.argv[2]);',
          'const r = await createCommandRunner({ ...setup, notice: () => {} }).run({ command, cwd: setup.sessionDir, timeoutMs: 15000, maxOutputBytes: 65536 });',
          'process.stdout.write(JSON.stringify(r));',
        ].join('\n'),
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'warning',
    });
    const target = join(box.elsewhere, 'keep.txt');
    const setup = {
      setting: { mode: 'workspace-write', offIfUnavailable: false, network: false },
      sessionDir: box.workspace,
      tempDir: box.tempDir,
      env: box.env,
      configFile: box.configFile,
      secrets: [TEST_KEY],
      platform: 'linux',
    };
    const command = [
      'ls /proc/self/fd | tr "\\n" " "; echo',
      'echo via-proc > /proc/self/fd/50',
      ...(hasPython ? ['python3 -c "import os; os.write(50, b\\"via-write\\n\\")"'] : []),
      'bash -c "echo via-redirect >&50"',
      'true',
    ].join('; ');
    const fd = openSync(target, 'a');
    let out = '';
    try {
      const stdio = ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(47).fill('ignore'), fd] as const;
      const child = spawn(process.execPath, [bundle, JSON.stringify([setup, command])], { stdio: [...stdio] });
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
      });
      await new Promise((resolve) => child.on('close', resolve));
    } finally {
      closeSync(fd);
    }
    const r = JSON.parse(out) as { stdout: string; stderr: string };
    expect(readFileSync(target, 'utf8')).toBe('original\n');
    const fds = (r.stdout.split('\n')[0] ?? '').trim().split(' ').map(Number);
    // 0-2, and the directory ls reads: no 3 (lifeline), 4 (marker), 5 (filter); 50 is /dev/null at most.
    expect(fds.filter((n) => n > 2 && n !== 50 && n < 10)).toHaveLength(1);
  });

  // The child is what main does first (closeInheritedDescriptors), then a tty exec session while
  // another tty session is live, a shell-tool command and a hook, all sandboxed. Before the fix fd
  // 50 reached the PTY session and the hook, and every child held the other session's PTY master.
  it("do not reach a tty exec session, a command or a hook: neither fd 50 nor another tty session's terminal", async () => {
    const bundle = join(box.root, 'run-all.mjs');
    await build({
      stdin: {
        contents: [
          "import { closeInheritedDescriptors } from './src/lib/descriptors.ts';",
          "import { createCommandRunner } from './src/tools/sandboxed.ts';",
          "import { createExecTools } from './src/tools/exec/exec-tool.ts';",
          "import { ExecManager } from './src/tools/exec/manager.ts';",
          "import { runHookCommand } from './src/frontends/hooks/run.ts';",
          'closeInheritedDescriptors(process.env);',
          'const [setup, probe] = JSON.parse(process.argv[2]);',
          'const runner = createCommandRunner({ ...setup, notice: () => {} });',
          'const manager = new ExecManager({ graceMs: 300 });',
          'const [exec] = createExecTools({ manager, launch: (c, cwd) => runner.sessionLaunch(c, cwd), redact: (t) => runner.redact(t) });',
          'const ctx = { cwd: setup.sessionDir, workspaceRoot: setup.sessionDir, signal: new AbortController().signal, retry: false, progress: () => {} };',
          "const call = async (args) => (await exec.run(exec.parse({ type: 'function_call', call_id: 'c', name: exec.name, arguments: JSON.stringify(args) }).call, ctx)).reply.text;",
          "const other = await call({ cmd: 'sleep 30', tty: true, yield_time_ms: 300 });",
          'const pty = await call({ cmd: probe, tty: true, yield_time_ms: 8000 });',
          'const shell = (await runner.run({ command: probe, cwd: setup.sessionDir, timeoutMs: 15000, maxOutputBytes: 65536 })).stdout;',
          'const wrap = await runner.childWrapper();',
          "const hook = (await runHookCommand(wrap(['/bin/sh', '-c', probe], setup.sessionDir), { cwd: setup.sessionDir, env: { PATH: setup.env.PATH, HOME: setup.env.HOME }, input: '{}', timeoutMs: 15000 })).stdout;",
          'manager.killAllNow();',
          'process.stdout.write(JSON.stringify({ other, pty, shell, hook }));',
          'process.exit(0);',
        ].join('\n'),
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'warning',
      // node-pty stays a package (native code), found from here although the bundle is elsewhere.
      plugins: [
        {
          name: 'pty',
          setup: (b) => {
            b.onResolve({ filter: /^@lydell\/node-pty$/ }, () => ({ path: createRequire(import.meta.url).resolve('@lydell/node-pty'), external: true }));
          },
        },
      ],
    });
    const target = join(box.elsewhere, 'keep.txt');
    const setup = {
      setting: { mode: 'workspace-write', offIfUnavailable: false, network: false },
      sessionDir: box.workspace,
      tempDir: box.tempDir,
      env: box.env,
      configFile: box.configFile,
      secrets: [TEST_KEY],
      platform: 'linux',
    };
    const probe = [
      'echo "fds: $(ls -l /proc/self/fd/ | grep -c -e ptmx -e keep.txt)"',
      'echo via-proc > /proc/self/fd/50',
      ...(hasPython ? ['python3 -c "import os; os.write(50, b\\"via-write\\n\\")"'] : []),
      'bash -c "echo via-redirect >&50"',
      'echo probed',
    ].join('; ');
    const fd = openSync(target, 'a');
    let out = '';
    try {
      const stdio = ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(47).fill('ignore'), fd] as const;
      const child = spawn(process.execPath, [bundle, JSON.stringify([setup, probe])], { stdio: [...stdio], cwd: process.cwd() });
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
      });
      await new Promise((resolve) => child.on('close', resolve));
    } finally {
      closeSync(fd);
    }
    const r = JSON.parse(out) as Record<'other' | 'pty' | 'shell' | 'hook', string>;
    expect(r.other).toMatch(/Process running with session ID/);
    for (const name of ['pty', 'shell', 'hook'] as const) {
      expect(r[name], name).toContain('probed');
      expect(r[name], name).toContain('fds: 0');
    }
    expect(readFileSync(target, 'utf8')).toBe('original\n');
  }, 30_000);
});
