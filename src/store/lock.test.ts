import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { procStartTime } from '../lib/zombie.ts';
import { LOCK_FILE, acquireSessionLock } from './lock.ts';

let dir: string;
let lockPath: string;
let childScript: string;
let scriptDir: string;

beforeAll(() => {
  // Real processes race for the lock: bundle a tiny entry around lock.ts for plain node.
  scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-lockchild-'));
  childScript = path.join(scriptDir, 'child.mjs');
  const entry = `
    import * as fs from 'node:fs';
    import { acquireSessionLock } from './lock.ts';
    const [dir, go] = process.argv.slice(2);
    process.stdout.write('ready\\n');
    while (!fs.existsSync(go)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    const lock = acquireSessionLock(dir);
    process.stdout.write(JSON.stringify({ ok: lock.ok, pid: lock.ok ? process.pid : lock.pid }) + '\\n');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `;
  buildSync({
    stdin: { contents: entry, resolveDir: import.meta.dirname, loader: 'ts', sourcefile: 'child.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: childScript,
    logLevel: 'silent',
  });
});
afterAll(() => fs.rmSync(scriptDir, { recursive: true, force: true }));

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-lock-'));
  lockPath = path.join(dir, LOCK_FILE);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('spawn failed');
  return child.pid;
}

function held(lock: ReturnType<typeof acquireSessionLock>): () => void {
  if (!lock.ok) throw new Error(`lock refused (pid ${lock.pid})`);
  return lock.release;
}

/** Starts `n` children, lets them race at once, and returns each one's result. */
async function race(n: number): Promise<{ ok: boolean; pid: number }[]> {
  const go = path.join(dir, 'go');
  const children = Array.from({ length: n }, () => spawn(process.execPath, [childScript, dir, go], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const lines = children.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
  const next = async (i: number): Promise<string> => {
    const line = await lines[i]?.next();
    if (line === undefined || line.done === true) throw new Error(`child ${i} ended early`);
    return line.value;
  };
  await Promise.all(children.map((_c, i) => next(i)));
  fs.writeFileSync(go, '');
  const results = await Promise.all(children.map(async (_c, i) => JSON.parse(await next(i)) as { ok: boolean; pid: number }));
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.on('exit', () => resolve());
          child.stdin.end();
        }),
    ),
  );
  fs.rmSync(go);
  return results;
}

describe('acquireSessionLock', () => {
  it('is exclusive within a process and reports our pid', () => {
    const release = held(acquireSessionLock(dir));
    expect(fs.readFileSync(lockPath, 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(fs.statSync(lockPath).mode & 0o777).toBe(0o600);
    expect(acquireSessionLock(dir)).toEqual({ ok: false, pid: process.pid });
    release();
    expect(fs.existsSync(lockPath)).toBe(false);
    held(acquireSessionLock(dir))();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('release leaves a lock that is no longer ours', () => {
    const release = held(acquireSessionLock(dir));
    fs.writeFileSync(lockPath, '1\nsomeone-else\n');
    release();
    expect(fs.readFileSync(lockPath, 'utf8')).toBe('1\nsomeone-else\n');
  });

  it('refuses a lock held by a live process', () => {
    fs.writeFileSync(lockPath, `${process.ppid}\nparent-token\n`);
    expect(acquireSessionLock(dir)).toEqual({ ok: false, pid: process.ppid });
  });

  it('takes over a lock whose live pid started at another time than its owner (the pid was reused), and records its own start time', () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = other.pid!;
      const started = procStartTime(pid);
      expect(started).toMatch(/^\d+$/);
      // The real owner: the same pid and start time — locked out.
      fs.writeFileSync(lockPath, `${pid}\nowner-token\n${started}\n`);
      expect(acquireSessionLock(dir)).toEqual({ ok: false, pid });
      // An owner that started earlier (and died): `sleep` now has its pid — taken over.
      fs.writeFileSync(lockPath, `${pid}\nowner-token\n${Number(started) - 1}\n`);
      const release = held(acquireSessionLock(dir));
      expect(fs.readFileSync(lockPath, 'utf8').split('\n').slice(0, 3)).toEqual([
        String(process.pid),
        expect.stringMatching(/^[0-9a-f]+$/),
        procStartTime(process.pid),
      ]);
      release();
    } finally {
      other.kill();
    }
  });

  it('takes over a lock whose process is dead', () => {
    const dead = deadPid();
    fs.writeFileSync(lockPath, `${dead}\nold-token\n`);
    const release = held(acquireSessionLock(dir));
    expect(fs.readFileSync(lockPath, 'utf8').split('\n')[0]).toBe(String(process.pid));
    release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock left by an earlier process with our pid', () => {
    fs.writeFileSync(lockPath, `${process.pid}\ntoken-of-a-previous-life\n`);
    held(acquireSessionLock(dir))();
  });

  it('waits out an unparsable lock while it is fresh, then takes it over', () => {
    fs.writeFileSync(lockPath, '');
    expect(acquireSessionLock(dir)).toEqual({ ok: false, pid: 0 });
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, old, old);
    held(acquireSessionLock(dir))();
  });

  it('skips a takeover claim whose owner died', () => {
    const dead = deadPid();
    fs.writeFileSync(lockPath, `${dead}\nstale\n`);
    const ino = fs.statSync(lockPath).ino;
    fs.writeFileSync(`${lockPath}.takeover-${ino}-0`, `${dead}\n`);
    held(acquireSessionLock(dir))();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('lets exactly one of 20 racing processes win a free lock', async () => {
    const results = await race(20);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const winner = results.find((r) => r.ok)?.pid;
    expect(results.filter((r) => !r.ok).every((r) => r.pid === winner)).toBe(true);
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('lets exactly one of 20 racing processes take over a stale lock', async () => {
    fs.writeFileSync(lockPath, `${deadPid()}\nstale\n`);
    const results = await race(20);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const winner = results.find((r) => r.ok)?.pid;
    expect(results.filter((r) => !r.ok).every((r) => r.pid === winner)).toBe(true);
    expect(fs.readdirSync(dir).filter((n) => n.includes('takeover') || n.includes('.tmp-'))).toEqual([]);
  });
});
