import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { acquireSharedLock, acquireStoreLock } from './store-lock.ts';
import { bundleChild } from '../../test/support/workspace.ts';

let dir: string;
let lockFile: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-slock-'));
  lockFile = path.join(dir, 'lock');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('spawn failed');
  return child.pid;
}

let scripts: string;
let child: string;
beforeAll(() => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-slockchild-'));
  // Takes the exclusive lock when the go file appears, holds it briefly, reports overlap.
  child = bundleChild(
    `
    import * as fs from 'node:fs';
    import { acquireStoreLock } from './store-lock.ts';
    const [lockFile, go, counter] = process.argv.slice(2);
    while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 1));
    const lock = await acquireStoreLock(lockFile, 20000);
    if (!lock.ok) process.exit(3);
    const inside = fs.readdirSync(counter).length;
    fs.writeFileSync(counter + '/' + process.pid, '');
    await new Promise((r) => setTimeout(r, 5));
    fs.unlinkSync(counter + '/' + process.pid);
    lock.release();
    process.stdout.write(String(inside));
  `,
    scripts,
    'lock-child',
  );
});
afterAll(() => fs.rmSync(scripts, { recursive: true, force: true }));

describe('store lock', () => {
  it('is exclusive, and free again after release', async () => {
    const a = await acquireStoreLock(lockFile, 0);
    expect(a.ok).toBe(true);
    expect(await acquireStoreLock(lockFile, 30)).toEqual({ ok: false, pid: process.pid });
    if (a.ok) a.release();
    const b = await acquireStoreLock(lockFile, 0);
    expect(b.ok).toBe(true);
    if (b.ok) b.release();
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('takes over the lock of a process that died (kill -9 leaves it behind)', async () => {
    fs.writeFileSync(lockFile, `${deadPid()}\ntoken\n`);
    const lock = await acquireStoreLock(lockFile, 0);
    expect(lock.ok).toBe(true);
    expect(fs.readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
  });

  it('lets readers share the store, keeps them out while it is held, and waits for them', async () => {
    const r1 = await acquireSharedLock(lockFile, 0);
    const r2 = await acquireSharedLock(lockFile, 0);
    expect(r1.ok && r2.ok).toBe(true);
    expect((await acquireStoreLock(lockFile, 30)).ok).toBe(false);
    if (r1.ok) r1.release();
    if (r2.ok) r2.release();
    const w = await acquireStoreLock(lockFile, 0);
    expect(w.ok).toBe(true);
    expect((await acquireSharedLock(lockFile, 30)).ok).toBe(false);
    if (w.ok) w.release();
    expect((await acquireSharedLock(lockFile, 0)).ok).toBe(true);
  });

  it('ignores readers that died', async () => {
    fs.mkdirSync(`${lockFile}.readers`);
    fs.writeFileSync(`${lockFile}.readers/${deadPid()}-abc`, '');
    expect((await acquireStoreLock(lockFile, 0)).ok).toBe(true);
    expect(fs.readdirSync(`${lockFile}.readers`)).toEqual([]);
  });

  it('never lets two processes hold it at once', async () => {
    const go = path.join(dir, 'go');
    const counter = path.join(dir, 'inside');
    fs.mkdirSync(counter);
    const runs = Array.from(
      { length: 6 },
      () =>
        new Promise<string>((resolve, reject) => {
          const p = spawn(process.execPath, [child, lockFile, go, counter], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          p.stdout.on('data', (d: Buffer) => {
            out += d.toString();
          });
          p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
        }),
    );
    fs.writeFileSync(go, '');
    expect(await Promise.all(runs)).toEqual(['0', '0', '0', '0', '0', '0']);
  });
});
