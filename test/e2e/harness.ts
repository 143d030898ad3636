// Spawns the built CLI (dist/agentx.cjs via bin/agentx.js) with an isolated HOME and cwd.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'bin/agentx.js');

export interface Sandbox {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * One V8 code cache for every sandbox of the suite (bin/agentx.js): each temp HOME would otherwise
 * compile the whole CLI on its first run and write a cache nobody reads again. The code cache's own
 * behaviour is tested with private cache directories (code-cache.test.ts).
 */
export const SHARED_CODE_CACHE = join(tmpdir(), 'agentx-test-code-cache');

/**
 * The state key every sandbox starts with: the code cache carries a MAC under a key derived from
 * `state.key` (bin/agentx.js), so sandboxes sharing one cache share the key too (a key of its own
 * would make every sandbox reject and rewrite the shared cache). A fixed test value, 0600.
 */
export const SHARED_STATE_KEY = `${'7e57'.repeat(16)}\n`;

/** A temp HOME and project dir; env without any real key or base URL from the developer's shell. */
export function sandbox(baseUrl?: string, extra: NodeJS.ProcessEnv = {}): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-e2e-')));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, '.local/state/agentx'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.local/state/agentx/state.key'), SHARED_STATE_KEY, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    SHELL: '/bin/sh',
    LANG: 'C.UTF-8',
    AGENTX_RETRY_BASE_MS: '20',
    // One retry, as one-shots had before their minute-long default (ONESHOT_POLICY): the suite's
    // fault scripts count attempts. The default itself is tested with this removed (oneshot-scripts).
    AGENTX_MAX_RETRIES: '1',
    XDG_CACHE_HOME: SHARED_CODE_CACHE,
    ...(baseUrl ? { AGENTX_BASE_URL: baseUrl, AGENTX_API_KEY: 'sk-test-e2e-secret-0123456789' } : {}),
    ...extra,
  };
  return { home, cwd, env };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string | { keepOpen: true }; // string: written then closed; keepOpen: a pipe never closed
  timeoutMs?: number;
  onSpawn?: (pid: number) => void;
}

export function runCli(args: string[], o: RunOptions): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    if (typeof o.stdin === 'string') child.stdin.end(o.stdin);
    else if (o.stdin === undefined) child.stdin.end();
    o.onSpawn?.(child.pid ?? -1);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agentx ${args.join(' ')} did not exit within ${o.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (typeof o.stdin === 'object') child.stdin.destroy();
      resolvePromise({ code, signal, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}

/** Creates a stored response on an emulator (as an earlier interactive turn would have). */
export async function storedResponse(emu: { baseUrl: string }, text = 'earlier turn'): Promise<string> {
  const res = await fetch(`${emu.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
    body: JSON.stringify({ model: 'gpt-5', input: text, store: true }),
  });
  const body = (await res.json()) as { id: string };
  return body.id;
}
