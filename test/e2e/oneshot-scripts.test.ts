// One-shots in scripts (issue 26, part 4): retries that outlast a provider's blip and honour
// Retry-After, --fresh, a stdout closed early, leftover one-shot files pruned and cleaned, JSON
// error lines for every error, connection errors naming the server, unknown subcommands refused.
// The built CLI against the emulator, with faults injected there.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox, storedResponse, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  emu.clearQueue();
  box = sandbox(emu.baseUrl);
});

/** The one-shot's own retry defaults (the harness pins one retry for the other suites). */
function defaults(extra: NodeJS.ProcessEnv = {}): Sandbox {
  const env: NodeJS.ProcessEnv = { ...box.env };
  delete env.AGENTX_MAX_RETRIES;
  return { ...box, env: { ...env, ...extra } };
}

const since = (n: number) => emu.requests.slice(n);
const oneshotFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.startsWith('.agentx_responseid.oneshot-'))
    .sort();
const jsonLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('spawn failed');
  return child.pid;
}

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('retries', () => {
  it('a burst of 5xx does not end a one-shot: each wait is shown, then the answer comes', async () => {
    emu.enqueue({ kind: 'http_error', status: 503, times: 3 }, { kind: 'http_error', status: 500, times: 2 });
    const n = emu.requests.length;
    const r = await runCli(['--json', 'hello'], defaults());
    expect(r.code).toBe(0);
    expect(since(n).map((q) => q.status)).toEqual([503, 503, 503, 500, 500, 200]);
    const retries = jsonLines(r.stdout).filter((l) => l.type === 'retry');
    expect(retries.map((l) => l.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(retries.every((l) => l.max_attempts === 11 && typeof l.delay_ms === 'number' && l.delay_ms > 0)).toBe(true);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ type: 'final', text: 'You said: hello' });
  });

  it('a 429 with Retry-After: 2 waits at least the 2 s asked for, shown on stderr', async () => {
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 2 });
    const n = emu.requests.length;
    const started = Date.now();
    const r = await runCli(['hello'], defaults());
    const took = Date.now() - started;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: hello\n');
    expect(r.stderr).toMatch(/retrying in 2\.0 s/);
    expect(since(n).map((q) => q.status)).toEqual([429, 200]);
    const [failed, retried] = since(n);
    // Measured between the two requests at the server: the wait itself, not process start-up.
    expect((retried?.at ?? 0) - (failed?.at ?? 0)).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(15_000);
  });

  it('retry-after-ms is preferred to retry-after; a Retry-After of 0 still backs off', async () => {
    emu.enqueue({ kind: 'http_error', status: 503, retryAfter: 30, retryAfterMs: 600 }, { kind: 'http_error', status: 429, retryAfter: 0 });
    const r = await runCli(['--json', 'hello'], defaults());
    expect(r.code).toBe(0);
    const delays = jsonLines(r.stdout)
      .filter((l) => l.type === 'retry')
      .map((l) => l.delay_ms as number);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(600);
    expect(delays[0]).toBeLessThan(30_000);
    // The backoff of attempt 2 with AGENTX_RETRY_BASE_MS=20: 20–40 ms, never an instant hammer.
    expect(delays[1]).toBeGreaterThanOrEqual(20);
  });

  it('AGENTX_RETRY_MAX_MS bounds all waits together; the failure says how long agentx tried', async () => {
    emu.enqueue({ kind: 'http_error', status: 502, times: 50 });
    const n = emu.requests.length;
    const r = await runCli(['--json', 'hello'], defaults({ AGENTX_RETRY_BASE_MS: '100', AGENTX_RETRY_MAX_MS: '400' }));
    emu.clearQueue();
    expect(r.code).toBe(1);
    const lines = jsonLines(r.stdout);
    const waited = lines.filter((l) => l.type === 'retry').reduce((sum, l) => sum + (l.delay_ms as number), 0);
    expect(waited).toBeLessThanOrEqual(400);
    expect(waited).toBeGreaterThan(0);
    const attempts = since(n).length;
    expect(attempts).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatchObject({ type: 'error', kind: 'retryable', exit_code: 1 });
    expect(r.stderr).toMatch(
      new RegExp(`agentx: request failed: .* \\(gave up after ${attempts} attempts, [\\d.]+ s of waiting; AGENTX_MAX_RETRIES, AGENTX_RETRY_MAX_MS\\)\n`),
    );
  });

  it('the budget counts the failing attempts too: a server silent till the header timeout is not tried 11 times', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => {
      sockets.push(s);
    });
    const port = await new Promise<number>((res) => silent.listen(0, '127.0.0.1', () => res((silent.address() as { port: number }).port)));
    try {
      const started = Date.now();
      const r = await runCli(
        ['hello'],
        defaults({ AGENTX_BASE_URL: `http://127.0.0.1:${port}/v1`, AGENTX_HEADERS_TIMEOUT_MS: '300', AGENTX_RETRY_MAX_MS: '1000' }),
      );
      expect(r.code).toBe(1);
      // 300 ms per attempt, no retry starts after 1 s: 4 or 5 attempts, not the 11 allowed.
      expect(sockets.length).toBeGreaterThanOrEqual(3);
      expect(sockets.length).toBeLessThanOrEqual(6);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((res) => silent.close(res));
    }
  });

  it('a Retry-After longer than the budget left is not waited into', async () => {
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 5 });
    const n = emu.requests.length;
    const started = Date.now();
    const r = await runCli(['hello'], defaults({ AGENTX_RETRY_MAX_MS: '1000' }));
    expect(r.code).toBe(1);
    expect(since(n)).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('AGENTX_MAX_RETRIES=0 sends once; a bad value is one line and exit 2, before any request', async () => {
    emu.enqueue({ kind: 'http_error', status: 500 });
    const n = emu.requests.length;
    const once = await runCli(['hello'], defaults({ AGENTX_MAX_RETRIES: '0' }));
    expect(once.code).toBe(1);
    expect(since(n)).toHaveLength(1);
    emu.clearQueue();
    const bad = await runCli(['hello'], defaults({ AGENTX_MAX_RETRIES: 'lots' }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('agentx: AGENTX_MAX_RETRIES: expected a whole number ≥ 0, got "lots"\n');
    expect(since(n)).toHaveLength(1);
  });
});

describe('--fresh', () => {
  it('starts from an empty conversation instead of the checkpoint, which stays as it was', async () => {
    const head = await storedResponse(emu);
    const cp = {
      version: 1,
      response_id: head,
      timestamp: new Date().toISOString(),
      usage: { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0, turns: 1 },
      source: 'turn',
    };
    writeFileSync(join(box.cwd, '.agentx_checkpoint'), `${JSON.stringify(cp)}\n`, { mode: 0o600 });
    const n = emu.requests.length;
    const r = await runCli(['--json', '--fresh', 'hello'], box);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ type: 'session', previous_response_id: null });
    expect((since(n)[0]?.body as { previous_response_id?: string }).previous_response_id).toBeUndefined();
    const branched = await runCli(['hello'], box);
    expect(branched.code).toBe(0);
    expect((emu.requests.at(-1)?.body as { previous_response_id?: string }).previous_response_id).toBe(head);
  });
});

describe('stdout closed early', () => {
  /** Spawns agentx with stdout a real pipe whose reading end is closed after `lines` lines (0: at once). */
  async function closedEarly(args: string[], lines: number): Promise<{ code: number | null; stderr: string; first: string[] }> {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: box.cwd, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const first: string[] = [];
    if (lines === 0) child.stdout.destroy();
    else {
      let buf = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        const got = buf.split('\n');
        if (got.length > lines) {
          first.push(...got.slice(0, lines));
          child.stdout.destroy(); // like `head -n`: take the lines, close the reading end
        }
      });
    }
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    return { code, stderr, first };
  }

  it('`agentx --json … | head -1`: the turn runs to its end, is saved, and agentx exits 0 quietly', async () => {
    const r = await closedEarly(['--json', 'run: sleep 0.3; echo ran > ran.txt'], 1);
    expect(JSON.parse(r.first[0] ?? '')).toMatchObject({ type: 'session' });
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, 'ran.txt'))).toBe(true);
    // Saved and finished: a successful one-shot leaves no state file behind.
    expect(oneshotFiles(box.cwd)).toEqual([]);
    expect(r.stderr).not.toMatch(/EPIPE|internal error|\n\s+at /);
  });

  it('plain output to a pipe closed before the answer: exit 0', async () => {
    const r = await closedEarly(['hello'], 0);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|internal error/);
  });

  it('141 when the turn did not finish, with its state kept', async () => {
    emu.enqueue({ kind: 'shell', commands: ['sleep 0.3'] }, { kind: 'http_error', status: 401 });
    const r = await closedEarly(['--json', 'go'], 1);
    expect(r.code).toBe(141);
    expect(oneshotFiles(box.cwd)).toHaveLength(1);
    expect(r.stderr).toMatch(/authentication failed/);
  });
});

describe('leftover one-shot files', () => {
  const DAY = 24 * 3600_000;
  const name = (pid: number, at: Date): string => `.agentx_responseid.oneshot-${pid}-${at.toISOString().replace(/[:.]/g, '-')}`;
  function leftover(pid: number, ageMs: number): string {
    const at = new Date(Date.now() - ageMs);
    const file = name(pid, at);
    writeFileSync(join(box.cwd, file), '{"version":1}\n', { mode: 0o600 });
    utimesSync(join(box.cwd, file), at, at);
    return file;
  }

  it('those older than 7 days are pruned when a one-shot starts, said in one line', async () => {
    const dead = deadPid();
    const old = leftover(dead, 8 * DAY);
    const older = leftover(dead + 0, 30 * DAY + 1000);
    const recent = leftover(dead, 6 * DAY);
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(oneshotFiles(box.cwd)).toEqual([recent]);
    expect(oneshotFiles(box.cwd)).not.toContain(old);
    expect(oneshotFiles(box.cwd)).not.toContain(older);
    expect(r.stderr.split('\n').filter((l) => l.includes('leftover'))).toEqual([
      'agentx: removed 2 leftover one-shot files older than 7 days (.agentx_responseid.oneshot-*)',
    ]);
    // Nothing more to prune: nothing said.
    expect((await runCli(['hello'], box)).stderr).not.toContain('leftover');
  });

  it('`agentx clean` removes every leftover now, never the file of a one-shot still running', async () => {
    const recent = leftover(deadPid(), 60_000);
    emu.enqueue({ kind: 'hang' });
    const asked = emu.requests.length;
    const running = spawn(process.execPath, [CLI, 'wait for me'], { cwd: box.cwd, env: { ...box.env, AGENTX_STREAM_IDLE_MS: '60000' }, stdio: 'ignore' });
    // The one-shot's own file, not the temporary file of its atomic write (`….tmp-PID-…`), which
    // exists for an instant before the rename; by the time its request reached the server, the
    // file is written.
    const ownFile = (f: string): boolean => f.includes(`.oneshot-${running.pid}-`) && !f.includes('.tmp-');
    try {
      await waitFor(() => emu.requests.length > asked && oneshotFiles(box.cwd).some(ownFile));
      const mine = oneshotFiles(box.cwd).find(ownFile) ?? '';
      // Even aged past the pruning limit, a running one-shot's file stays.
      const aged = new Date(Date.now() - 9 * DAY);
      utimesSync(join(box.cwd, mine), aged, aged);
      const n = emu.requests.length;
      const clean = await runCli(['clean'], box);
      expect(clean.code).toBe(0);
      expect(clean.stdout).toBe('removed 1 leftover one-shot file; kept 1 file of running one-shots\n');
      expect(oneshotFiles(box.cwd)).toEqual([mine]);
      expect(oneshotFiles(box.cwd)).not.toContain(recent);
      const pruning = await runCli(['hello'], box);
      expect(pruning.stderr).not.toContain('leftover');
      expect(oneshotFiles(box.cwd)).toEqual([mine]);
      // `clean` is a command, not a prompt: it sent nothing.
      expect(since(n).filter((q) => JSON.stringify(q.body).includes('clean'))).toEqual([]);
      expect((await runCli(['clean'], box)).stdout).toBe('nothing to clean; kept 1 file of running one-shots\n');
    } finally {
      running.kill('SIGTERM');
      await new Promise((r) => running.on('close', r));
      emu.clearQueue();
    }
  });
});

describe('--json: every error is a JSON error line', () => {
  const cases: [string, string[], NodeJS.ProcessEnv, string, RegExp][] = [
    ['an unknown flag', ['--json', '--nope', 'hi'], {}, 'usage', /unknown option --nope/],
    ['an unknown command', ['--json', 'mcp', 'serve', 'x'], {}, 'usage', /unknown command 'mcp serve'/],
    ['a missing directory', ['--json', '-C', '/nonexistent-agentx', 'hi'], {}, 'usage', /not a directory/],
    ['no API key', ['--json', 'hi'], { AGENTX_API_KEY: '' }, 'config', /No API key/],
    ['a bad setting', ['--json', 'hi'], { AGENTX_SANDBOX: 'nope' }, 'config', /AGENTX_SANDBOX/],
    // The subcommands print text for a person: --json with one is refused, whichever it is.
    ['--json clean', ['--json', 'clean'], {}, 'usage', /^--json is only accepted by one-shots .*not by `agentx clean`/],
    ['--json mcp list', ['--json', 'mcp', 'list'], {}, 'usage', /not by `agentx mcp list`/],
    ['--json resume', ['--json', 'resume'], {}, 'usage', /not by `agentx resume`/],
    ['--json setup', ['--json', 'setup'], {}, 'usage', /not by `agentx setup`/],
    ['mcp get NAME --json', ['mcp', 'get', 'x', '--json'], {}, 'usage', /not by `agentx mcp get`/],
  ];
  for (const [what, args, env, kind, message] of cases) {
    it(`${what}: one JSON line on stdout, the same one line on stderr, exit 2`, async () => {
      const r = await runCli(args, { ...box, env: { ...box.env, ...env } });
      expect(r.code).toBe(2);
      const lines = jsonLines(r.stdout);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ type: 'error', kind, exit_code: 2 });
      expect(lines[0]?.message).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(String(lines[0]?.message));
    });
  }

  it('without --json, stdout stays empty', async () => {
    const r = await runCli(['--nope'], box);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('connection errors', () => {
  it('name the base URL, never credentials in it', async () => {
    const port = await freePort();
    const down = sandbox(`http://someone:hunter2@127.0.0.1:${port}/v1`);
    const r = await runCli(['hello'], down);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`request failed: connection failed: ECONNREFUSED \\(http://127\\.0\\.0\\.1:${port}/v1\\) \\(gave up after 2 attempts`));
    expect(r.stderr).not.toContain('hunter2');
  });
});

describe('unknown subcommands are errors, not paid prompts', () => {
  const cases: [string[], RegExp][] = [
    [
      ['mcp', 'serve', 'docs'],
      /^agentx: unknown command 'mcp serve'; commands: setup, mcp list\|add\|get\|remove\|login\|logout, resume, clean \(to send it as a message, quote it: agentx "mcp serve docs"\)/,
    ],
    [['continue'], /^agentx: 'continue' is not a command; commands: setup, mcp list\|add.*, resume, clean \(to send it as a message: agentx -- continue\)/],
    // A real command, but the REPL's: without a terminal it is refused, not sent as a prompt.
    [['resume'], /^agentx: agentx resume starts the interactive session: it needs a terminal/],
    [['setup', 'eslint'], /unknown command 'setup eslint'/],
  ];
  for (const [args, message] of cases) {
    it(`agentx ${args.join(' ')}`, async () => {
      const n = emu.requests.length;
      const r = await runCli(args, box);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(since(n)).toEqual([]);
    });
  }

  it('the same words quoted or after -- are a message', async () => {
    const r = await runCli(['--', 'resume'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: resume\n');
    const quoted = await runCli(['setup eslint'], box);
    expect(quoted.stdout).toBe('You said: setup eslint\n');
  });
});
