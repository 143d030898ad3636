// A throwaway machine layout for sandbox tests: a HOME with secrets, a workspace, a private temp
// dir and an "elsewhere" directory that no sandboxed command may change. All under one temp root,
// whose real path is used (bwrap and the policy compare real paths).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { agentxPaths, buildPolicy, realPathProbe, type SandboxPolicy, type SandboxSetting } from '../../src/sandbox/policy.ts';

export const TEST_KEY = 'sk-sandbox-test-0123456789abcdef';

export interface Layout {
  root: string;
  home: string;
  workspace: string;
  tempDir: string;
  elsewhere: string;
  configFile: string;
  stateStore: string;
  sshKey: string;
  env: NodeJS.ProcessEnv;
  policy(setting?: Partial<SandboxSetting>, extraEnv?: NodeJS.ProcessEnv): SandboxPolicy;
  remove(): void;
}

export function makeLayout(): Layout {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-sandbox-')));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  const tempDir = join(root, 'tmp');
  const elsewhere = join(root, 'elsewhere');
  const stateStore = join(home, '.local/state/agentx');
  for (const d of [home, workspace, tempDir, elsewhere, stateStore, join(home, '.ssh')]) mkdirSync(d, { recursive: true });
  const configFile = join(home, '.agentx');
  const sshKey = join(home, '.ssh/id_ed25519');
  writeFileSync(configFile, `AGENTX_API_KEY=${TEST_KEY}\n`);
  writeFileSync(sshKey, 'PRIVATE KEY\n');
  writeFileSync(join(stateStore, 'session.json'), '{"secret":"state"}\n');
  writeFileSync(join(elsewhere, 'keep.txt'), 'original\n');
  writeFileSync(join(home, 'notes.txt'), 'readable\n');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', LANG: 'C.UTF-8', AGENTX_API_KEY: TEST_KEY };
  const policyFor = (setting: Partial<SandboxSetting> = {}, extraEnv: NodeJS.ProcessEnv = {}): SandboxPolicy => {
    const policy = buildPolicy({
      setting: { mode: 'workspace-write', offIfUnavailable: false, network: false, ...setting },
      sessionDir: workspace,
      tempDir,
      paths: agentxPaths({ ...env, ...extraEnv }, home, configFile),
      probe: realPathProbe,
    });
    if (!policy) throw new Error('danger-full-access has no policy');
    return policy;
  };
  return {
    root,
    home,
    workspace,
    tempDir,
    elsewhere,
    configFile,
    stateStore,
    sshKey,
    env,
    policy: policyFor,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** /usr/bin/bwrap or the first on PATH; the tests need the real one (CI installs it, see .ci/run). */
export function bwrapPath(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = join(dir, 'bwrap');
    try {
      realpathSync(p);
      return p;
    } catch {
      /* next */
    }
  }
  throw new Error('bwrap is not installed: apt install bubblewrap (the sandbox tests need it)');
}

/**
 * Host pids of live processes whose command line contains `marker` (sandboxed processes have
 * other pids inside their namespace, so they are found from outside by what they run).
 * Zombies count as gone: they have finished all their work. The supervisor's watcher (its
 * arguments hold the command too) is agentx's guard, not the command: it is left out.
 */
export function processesRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(marker) && !cmdline.includes('agentx-supervisor') && state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      /* it exited while we looked */
    }
  }
  return found;
}

/**
 * A TCP server on the host's loopback, up for the tests of the describe block that calls this,
 * answering "hello from the host". `connect()` is a command that connects to it with node (which
 * certainly exists: it runs the tests), prints what it receives, and exits 3 when it cannot.
 */
export function hostTcpServer(): { connect: () => string } {
  let server: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    const s = createServer((socket) => socket.end('hello from the host\n'));
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const address = s.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        if (server) server.close(() => resolve());
        else resolve();
      }),
  );
  return {
    connect: () =>
      `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('data', d => process.stdout.write(d)).on('error', e => { console.error(e.message); process.exit(3); })"`,
  };
}
