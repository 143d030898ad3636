// Standard input of a one-shot (README "Standard input"): piped data is read to EOF, an idle pipe is not
// waited on when a message was given, a nohup-style unreadable stdin is no crash.
import { spawn, type StdioOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

interface Running {
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stderr shows `pattern` (the CLI's own signal), rejects if it exits first. */
  waitStderr(pattern: RegExp): Promise<void>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdin: NodeJS.WritableStream | null;
}

function start(args: string[], stdio: StdioOptions, env: NodeJS.ProcessEnv = box.env): Running {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: box.cwd, env, stdio });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of watchers) w();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(killer);
      for (const w of watchers) w();
      resolve({ code, stdout: out, stderr: err });
    });
  });
  let exited = false;
  void done.then(() => {
    exited = true;
  });
  return {
    stdout: () => out,
    stderr: () => err,
    done,
    stdin: child.stdin,
    waitStderr: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(err)) {
            watchers.delete(check);
            resolve();
          } else if (exited) {
            watchers.delete(check);
            reject(new Error(`exited before ${String(pattern)}; stderr: ${err}`));
          }
        };
        watchers.add(check);
        check();
      }),
  };
}

function lastUserText(): string {
  const body = emu.requests.at(-1)?.body as { input: { content?: { text: string }[] }[] };
  return (
    body.input
      .at(-1)
      ?.content?.map((c) => c.text)
      .join('\n') ?? ''
  );
}

describe('one-shot stdin', () => {
  it('keeps the data of a producer that is slow to start (used to be dropped after 200 ms)', async () => {
    const producer = spawn('sh', ['-c', 'sleep 0.6; printf "slow data"'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const r = start(['summarise'], [producer.stdout ?? 'ignore', 'pipe', 'pipe']);
    const done = await r.done;
    expect(done.code).toBe(0);
    expect(lastUserText()).toBe('summarise\n\nslow data');
  });

  it('reads a pipe that sends data and then stays open until it is closed, with a progress note', async () => {
    const r = start(['review'], ['pipe', 'pipe', 'pipe']);
    r.stdin?.write('part one, ');
    await r.waitStderr(/reading stdin until it is closed/);
    r.stdin?.end('part two');
    const done = await r.done;
    expect(done.code).toBe(0);
    expect(lastUserText()).toBe('review\n\npart one, part two');
  });

  it('answers at once when a message is given and the pipe stays idle, and says so', async () => {
    const r = start(['hi'], ['pipe', 'pipe', 'pipe']);
    const done = await r.done;
    r.stdin?.end();
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('You said: hi\n');
    expect(done.stderr).toMatch(/nothing on stdin within 1 s; answering without it/);
  });

  it('nohup-style write-only stdin (EBADF on read) is no internal error', async () => {
    const fd = openSync('/dev/null', 'w');
    try {
      const withMessage = await start(['hi'], [fd, 'pipe', 'pipe']).done;
      expect(withMessage.stderr).not.toMatch(/internal error/);
      expect(withMessage.code).toBe(0);
      expect(withMessage.stdout).toBe('You said: hi\n');
      const without = await start([], [fd, 'pipe', 'pipe']).done;
      expect(without.code).toBe(2);
      expect(without.stderr).toMatch(/^agentx: cannot read stdin \(EBADF\) and no message was given/);
    } finally {
      closeSync(fd);
    }
  });

  it('refuses piped input over AGENTX_MAX_STDIN_BYTES with one line and exit 2', async () => {
    const r = start(['-'], ['pipe', 'pipe', 'pipe'], { ...box.env, AGENTX_MAX_STDIN_BYTES: '1000' });
    r.stdin?.on('error', () => undefined);
    r.stdin?.end('x'.repeat(5000));
    const done = await r.done;
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/stdin holds more than 1000 bytes \(AGENTX_MAX_STDIN_BYTES\)/);
  });
});
