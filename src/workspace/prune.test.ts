import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceSnapshots } from './index.ts';
import { acquireStoreLock } from './store-lock.ts';
import { makeSandbox, snapId, storeGit, write, type Sandbox } from '../../test/support/workspace.ts';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

function refs(s: WorkspaceSnapshots): string[] {
  return fs.readdirSync(path.join(s.storeDir ?? '', 'git', 'refs', 'agentx', 'snapshots')).sort();
}

function hasObject(s: WorkspaceSnapshots, spec: string): boolean {
  try {
    storeGit(path.join(s.storeDir ?? '', 'git'), ['cat-file', '-e', spec]);
    return true;
  } catch {
    return false;
  }
}

/** A clock that moves on by a minute per call, so snapshot times are distinct and ordered. */
function ticking(start: number): () => Date {
  let t = start;
  return () => new Date((t += 60_000));
}

describe('prune', () => {
  it('keeps the snapshots checkpoints refer to and the newest one, and drops the rest with their content', async () => {
    const s = await sb.open({ now: ticking(Date.UTC(2026, 0, 1)) });
    write(sb.ws, 'a.txt', 'kept 1\n');
    const keep = await snapId(s);
    write(sb.ws, 'a.txt', 'dropped, only in this snapshot\n');
    const drop = await snapId(s);
    const dropBlob = storeGit(path.join(s.storeDir ?? '', 'git'), ['rev-parse', `${drop}:a.txt`]).trim();
    write(sb.ws, 'a.txt', 'newest\n');
    const newest = await snapId(s);
    const result = await s.prune([keep]);
    expect(result).toEqual({ removed: 1, kept: 2 });
    expect(refs(s)).toEqual([keep, newest].sort());
    expect(hasObject(s, drop)).toBe(false);
    expect(hasObject(s, dropBlob)).toBe(false);
    expect(storeGit(path.join(s.storeDir ?? '', 'git'), ['cat-file', 'blob', `${keep}:a.txt`])).toBe('kept 1\n');
    storeGit(path.join(s.storeDir ?? '', 'git'), ['fsck', '--strict', '--no-dangling']);
  });

  it('never drops a snapshot younger than the grace period (another process may be about to record it)', async () => {
    const s = await sb.open({ graceMs: 60 * 60_000 });
    write(sb.ws, 'a.txt', '1');
    const young = await snapId(s);
    write(sb.ws, 'a.txt', '2');
    await snapId(s);
    expect(await s.prune([])).toEqual({ removed: 0, kept: 2 });
    expect(hasObject(s, young)).toBe(true);
  });

  it('waits for, then gives up on, a live process holding the store lock', async () => {
    const s = await sb.open({ now: ticking(Date.UTC(2026, 0, 1)), lockWaitMs: 50 });
    write(sb.ws, 'a.txt', '1');
    await snapId(s);
    write(sb.ws, 'a.txt', '2');
    await snapId(s);
    const lock = await acquireStoreLock(path.join(s.storeDir ?? '', 'lock'), 0);
    expect(lock.ok).toBe(true);
    expect((await s.prune([])).removed).toBe(0);
    if (lock.ok) lock.release();
    expect((await s.prune([])).removed).toBe(1);
  });
});

describe('compaction', () => {
  it('packs many loose objects into one pack, and every snapshot stays readable', async () => {
    for (let i = 0; i < 1200; i++) write(sb.ws, `src/f${i}.txt`, `file ${i}\n`);
    const s = await sb.open();
    const id = await snapId(s);
    const objects = path.join(s.storeDir ?? '', 'git', 'objects');
    const loose = (): number =>
      fs
        .readdirSync(objects)
        .filter((d) => /^[0-9a-f]{2}$/.test(d))
        .reduce((n, d) => n + fs.readdirSync(path.join(objects, d)).length, 0);
    expect(loose()).toBeGreaterThan(1000);
    await s.prune([id]);
    expect(loose()).toBe(0);
    expect(fs.readdirSync(path.join(objects, 'pack')).filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(storeGit(path.join(s.storeDir ?? '', 'git'), ['cat-file', 'blob', `${id}:src/f777.txt`])).toBe('file 777\n');
    write(sb.ws, 'src/f1.txt', 'after packing\n');
    const next = await snapId(s);
    expect((await s.diff(id, next)).summary).toEqual(['M src/f1.txt']);
    storeGit(path.join(s.storeDir ?? '', 'git'), ['fsck', '--strict', '--no-dangling']);
  });
});

describe('size cap', () => {
  it('removes the oldest snapshots across projects first, drops emptied projects, and says so in one line', async () => {
    const clock = ticking(Date.UTC(2026, 0, 1));
    const other = path.join(sb.root, 'other');
    fs.mkdirSync(other);
    const old = await sb.open({ workspace: other, now: clock });
    for (let i = 0; i < 3; i++) {
      write(other, `big${i}.bin`, randomBytes(200_000));
      await snapId(old);
    }
    const current = await sb.open({ now: clock });
    const currentIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      write(sb.ws, `big${i}.bin`, randomBytes(200_000));
      currentIds.push(await snapId(current));
    }
    const root = path.join(sb.stateHome, 'agentx', 'snapshots');
    const usage = (): number => Number(/^(\d+)/.exec(spawnDu(root))?.[1] ?? 0) * 1024;
    const total = usage();
    // Room for the current project, not for both: the other (older) project must go entirely.
    const capped = await sb.open({ now: clock, capBytes: Math.floor(total * 0.6) });
    const notice = await capped.enforceCap();
    expect(notice).toMatch(
      /^snapshot store was [\d.]+ MB, over its [\d.]+ KB cap: removed the 3 oldest snapshots \(up to 2026-01-01 00:03 UTC\); rolling back that far restores the conversation only$/,
    );
    expect(fs.existsSync(old.storeDir ?? '')).toBe(false);
    expect(refs(current)).toEqual([...currentIds].sort());
    expect(usage()).toBeLessThanOrEqual(Math.floor(total * 0.6));
    expect(await capped.enforceCap()).toBeNull();
  });

  it("keeps the current project's newest snapshot even when it alone is over the cap", async () => {
    const s = await sb.open({ now: ticking(Date.UTC(2026, 0, 1)), capBytes: 10_000 });
    write(sb.ws, 'big.bin', randomBytes(100_000));
    await snapId(s);
    write(sb.ws, 'big.bin', randomBytes(100_000));
    const newest = await snapId(s);
    const notice = await s.enforceCap();
    expect(notice).toMatch(/removed the 1 oldest snapshot /);
    expect(refs(s)).toEqual([newest]);
    expect(await s.enforceCap()).toMatch(/^snapshot store is .* over its 9\.8 KB cap, and nothing more can be removed \(the newest snapshot is kept\)$/);
  });
});

/** `du -sk`: an independent measure of what the store occupies. */
function spawnDu(dir: string): string {
  return spawnSync('du', ['-sk', dir], { encoding: 'utf8' }).stdout;
}
