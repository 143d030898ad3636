// Several real processes snapshot the same workspace at once (concurrent one-shots during a
// REPL session): every snapshot is complete and correct, and the store stays sound.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterations } from '../../test/support/iterations.ts';
import { bundleChild, makeSandbox, seededRandom, storeGit, write, type Sandbox } from '../../test/support/workspace.ts';

// Every snapshot is a few git processes, so `npm test` races 4 processes × 4 snapshots and kills 2
// of them; the full size (4 × 12 snapshots, 4 kills) runs under `npm run fault`, or set
// FAULT_SNAPSHOT_ROUNDS / FAULT_SNAPSHOT_KILLS.
const CHILDREN = 4;
const ROUNDS = iterations('SNAPSHOT_ROUNDS', 4, 12);
const KILLS = iterations('SNAPSHOT_KILLS', 2, 4);

let scripts: string;
let child: string;
beforeAll(() => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-wschild-'));
  child = bundleChild(
    `
    import * as fs from 'node:fs';
    import { openWorkspaceSnapshots } from './index.ts';
    const [ws, stateHome, name, rounds, go] = process.argv.slice(2);
    const env = { PATH: process.env.PATH, HOME: stateHome, XDG_STATE_HOME: stateHome };
    const s = await openWorkspaceSnapshots({ workspace: ws, env, homeDir: stateHome });
    while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < Number(rounds); i++) {
      const content = name + ' version ' + i + '\\n';
      fs.writeFileSync(ws + '/' + name + '.txt', content);
      const snap = await s.snapshot();
      process.stdout.write(JSON.stringify({ id: snap.id, content }) + '\\n');
    }
  `,
    scripts,
    'snapshot-child',
  );
});
afterAll(() => fs.rmSync(scripts, { recursive: true, force: true }));

function run(sb: Sandbox, name: string, go: string): Promise<Array<{ id: string; content: string }>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, sb.ws, sb.stateHome, name, String(ROUNDS), go], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`child ${name} exited ${code}: ${err}`));
      else
        resolve(
          out
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { id: string; content: string }),
        );
    });
  });
}

describe('concurrent snapshots', () => {
  it(`${CHILDREN} processes × ${ROUNDS} snapshots: each one holds what its process wrote, and the store is sound`, async () => {
    const sb = makeSandbox();
    try {
      for (let i = 0; i < 200; i++) write(sb.ws, `base/f${i}.txt`, `base ${i}\n`);
      const go = path.join(sb.root, 'go');
      const runs = Array.from({ length: CHILDREN }, (_, i) => run(sb, `child${i}`, go));
      fs.writeFileSync(go, '');
      const settled = await Promise.allSettled(runs);
      const failures = settled.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
      const results = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const s = await sb.open();
      const gitDir = path.join(s.storeDir ?? '', 'git');
      results.forEach((snaps, i) => {
        expect(snaps).toHaveLength(ROUNDS);
        for (const snap of snaps) {
          expect(storeGit(gitDir, ['cat-file', 'blob', `${snap.id}:child${i}.txt`])).toBe(snap.content);
          expect(
            storeGit(gitDir, ['ls-tree', '-r', '--name-only', snap.id])
              .split('\n')
              .filter((p) => p.startsWith('base/')),
          ).toHaveLength(200);
        }
      });
      storeGit(gitDir, ['fsck', '--strict', '--no-dangling']);
      const leftovers = fs.readdirSync(s.storeDir ?? '').filter((n) => n.includes('.tmp-') || n.endsWith('.lock'));
      expect(leftovers).toEqual([]);
      // The shared cache survived the races: a new snapshot from it matches the files exactly.
      const final = await s.snapshot();
      const expected = storeGit(gitDir, ['ls-tree', '-r', '--name-only', final?.id ?? ''])
        .split('\n')
        .filter(Boolean);
      expect(expected.filter((p) => p.startsWith('child'))).toEqual(Array.from({ length: CHILDREN }, (_, i) => `child${i}.txt`));
      for (let i = 0; i < CHILDREN; i++) {
        expect(storeGit(gitDir, ['cat-file', 'blob', `${final?.id ?? ''}:child${i}.txt`])).toBe(`child${i} version ${ROUNDS - 1}\n`);
      }
    } finally {
      sb.cleanup();
    }
  }, 120_000);

  it('pruning while other processes snapshot leaves every kept snapshot complete', async () => {
    const sb = makeSandbox();
    try {
      for (let i = 0; i < 100; i++) write(sb.ws, `base/f${i}.txt`, `base ${i}\n`);
      const s = await sb.open({ graceMs: 0 });
      const go = path.join(sb.root, 'go');
      const runs = Array.from({ length: 2 }, (_, i) => run(sb, `child${i}`, go));
      let done = false;
      const all = Promise.allSettled(runs).finally(() => {
        done = true;
      });
      fs.writeFileSync(go, '');
      let removed = 0;
      while (!done) removed += (await s.prune([])).removed;
      const settled = await all;
      expect(settled.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []))).toEqual([]);
      expect(removed).toBeGreaterThan(0);
      const gitDir = path.join(s.storeDir ?? '', 'git');
      storeGit(gitDir, ['fsck', '--strict', '--no-dangling']);
      const final = await s.snapshot();
      expect(
        storeGit(gitDir, ['ls-tree', '-r', '--name-only', final?.id ?? ''])
          .split('\n')
          .filter(Boolean),
      ).toHaveLength(102);
      storeGit(gitDir, ['fsck', '--strict', '--no-dangling']);
    } finally {
      sb.cleanup();
    }
  }, 120_000);

  it('a process killed in the middle of snapshots leaves nothing that blocks or breaks the store', async () => {
    const rnd = seededRandom('snapshot kill points');
    const sb = makeSandbox();
    try {
      for (let i = 0; i < 300; i++) write(sb.ws, `base/f${i}.txt`, `base ${i}\n`);
      const before = JSON.stringify(fs.readdirSync(sb.ws));
      for (let round = 0; round < KILLS; round++) {
        const go = path.join(sb.root, `go${round}`);
        const p = spawn(process.execPath, [child, sb.ws, sb.stateHome, `killed${round}`, '50', go], { stdio: ['ignore', 'pipe', 'ignore'] });
        const delay = Math.floor(rnd.next() * 150);
        const exited = new Promise((resolve) => p.on('close', resolve));
        p.stdout.once('data', () => setTimeout(() => p.kill('SIGKILL'), delay));
        fs.writeFileSync(go, '');
        await exited;
      }
      const s = await sb.open({ lockWaitMs: 2_000 });
      const gitDir = path.join(s.storeDir ?? '', 'git');
      expect((await s.snapshot())?.id).toMatch(/^[0-9a-f]{40}$/);
      await s.prune([]);
      storeGit(gitDir, ['fsck', '--strict', '--no-dangling']);
      expect(fs.readdirSync(s.storeDir ?? '').filter((n) => n.includes('.tmp-') || n.startsWith('index.empty-'))).toEqual([]);
      expect(fs.readdirSync(path.join(s.storeDir ?? '', 'lock.readers'))).toEqual([]);
      // Snapshots never write into the workspace: only the files the children wrote are new.
      expect(fs.readdirSync(sb.ws).filter((n) => !n.startsWith('killed'))).toEqual(JSON.parse(before));
    } finally {
      sb.cleanup();
    }
  }, 120_000);
});
