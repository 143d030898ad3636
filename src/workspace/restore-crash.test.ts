// kill -9 during a restore: at the next start the interrupted restore is finished, so the files
// are fully as before the restore (killed before it began) or fully restored, never a mix.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Span, WorkspaceSnapshots } from './index.ts';
import { iterations } from '../../test/support/iterations.ts';
import { bundleChild, makeSandbox, seededRandom, treeOf, write, type Sandbox } from '../../test/support/workspace.ts';

// Each scene is a fresh workspace with two git snapshots, a few seconds on 2 cores, so `npm test`
// restores 120 files and kills 3 restores; the full size (300 files, 6 kills) runs under
// `npm run fault`, or set FAULT_RESTORE_FILES / FAULT_RESTORE_KILLS.
const FILES = iterations('RESTORE_FILES', 120, 300);
const KILLS = iterations('RESTORE_KILLS', 3, 6);

let scripts: string;
let child: string;
beforeAll(() => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-wsrestore-'));
  child = bundleChild(
    `
    import { openWorkspaceSnapshots } from './index.ts';
    const [ws, stateHome, spansJson] = process.argv.slice(2);
    const env = { PATH: process.env.PATH, HOME: stateHome, XDG_STATE_HOME: stateHome };
    const s = await openWorkspaceSnapshots({ workspace: ws, env, homeDir: stateHome });
    const plan = await s.planRestore(JSON.parse(spansJson));
    process.stdout.write('start\\n');
    const result = await s.applyRestore(plan);
    process.stdout.write(JSON.stringify({ restored: result.restored.length }) + '\\n');
  `,
    scripts,
    'restore-child',
  );
});
afterAll(() => fs.rmSync(scripts, { recursive: true, force: true }));

interface Scene {
  sb: Sandbox;
  s: WorkspaceSnapshots;
  span: Span;
  target: Record<string, string>;
  current: Record<string, string>;
}

/** A session turn that rewrote, created and deleted many files. */
async function scene(): Promise<Scene> {
  const sb = makeSandbox();
  for (let i = 0; i < FILES; i++) write(sb.ws, `src/m${i % 10}/f${i}.txt`, `original ${i}\n${'x'.repeat(2000 + i)}\n`);
  const s = await sb.open();
  const target = treeOf(sb.ws);
  const from = (await s.snapshot())?.id ?? '';
  for (let i = 0; i < FILES; i++) {
    const rel = `src/m${i % 10}/f${i}.txt`;
    if (i % 3 === 0) fs.unlinkSync(path.join(sb.ws, rel));
    else write(sb.ws, rel, `agent ${i}\n`, i % 3 === 1 ? 0o755 : 0o644);
    if (i % 4 === 0) write(sb.ws, `gen/g${i}/new.txt`, `created ${i}\n`);
  }
  const to = (await s.snapshot())?.id ?? '';
  return { sb, s, span: { from, to }, target, current: treeOf(sb.ws) };
}

/** Runs the restore in a child, killed with SIGKILL `killAfterMs` after it starts (never, if null). */
function restoreInChild(sc: Scene, killAfterMs: number | null): Promise<{ ms: number; completed: boolean }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, sc.sb.ws, sc.sb.stateHome, JSON.stringify([sc.span])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let started = 0;
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (started === 0 && out.includes('start\n')) {
        started = performance.now();
        if (killAfterMs !== null) setTimeout(() => p.kill('SIGKILL'), killAfterMs);
      }
    });
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    p.on('close', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL') reject(new Error(`restore child failed: ${err}`));
      else resolve({ ms: performance.now() - started, completed: /"restored":\d+/.test(out) });
    });
  });
}

function leftovers(ws: string): string[] {
  return fs.readdirSync(ws).filter((n) => n.startsWith('.agentx_'));
}

describe('kill -9 during a restore', () => {
  it('is finished at the next start: the files end fully restored, or untouched if the kill came first', async () => {
    const rnd = seededRandom('restore kill points');
    const calibration = await scene();
    let full: number;
    try {
      const run = await restoreInChild(calibration, null);
      expect(run.completed).toBe(true);
      expect(treeOf(calibration.sb.ws)).toEqual(calibration.target);
      full = run.ms;
    } finally {
      calibration.sb.cleanup();
    }
    process.stdout.write(`an uninterrupted restore of ${FILES} files took ${full.toFixed(0)} ms\n`);
    const outcomes: string[] = [];
    for (let round = 0; round < KILLS; round++) {
      const sc = await scene();
      try {
        const delay = Math.floor(rnd.next() * full);
        const run = await restoreInChild(sc, delay);
        const interrupted = fs.existsSync(path.join(sc.s.storeDir ?? '', 'restore.json'));
        const notice = await sc.s.resumeInterruptedRestore();
        const tree = treeOf(sc.sb.ws);
        const state =
          JSON.stringify(tree) === JSON.stringify(sc.target) ? 'restored' : JSON.stringify(tree) === JSON.stringify(sc.current) ? 'untouched' : 'MIXED';
        outcomes.push(`kill at ${delay} ms: ${run.completed ? 'completed' : interrupted ? 'interrupted, resumed' : 'killed before it began'} → ${state}`);
        if (state === 'MIXED') {
          const keys = new Set([...Object.keys(tree), ...Object.keys(sc.target)]);
          const differing = [...keys].filter((k) => tree[k] !== sc.target[k]).slice(0, 10);
          expect.fail(`${outcomes.at(-1) ?? ''}: differs from the restored tree at ${differing.join(', ')}`);
        }
        if (interrupted) {
          expect(state).toBe('restored');
          expect(notice).toMatch(/^finished a file restore interrupted at \S+: \d+ files? restored$/);
        } else expect(notice).toBeNull();
        expect(leftovers(sc.sb.ws)).toEqual([]);
        expect(fs.existsSync(path.join(sc.s.storeDir ?? '', 'restore.json'))).toBe(false);
      } finally {
        sc.sb.cleanup();
      }
    }
    process.stdout.write(`${outcomes.join('\n')}\n`);
  }, 180_000);

  it('finishes a half-done journaled restore, skipping a file someone changed meanwhile', async () => {
    const sc = await scene();
    try {
      const plan = await sc.s.planRestore([sc.span]);
      const storeDir = sc.s.storeDir ?? '';
      fs.writeFileSync(
        path.join(storeDir, 'restore.json'),
        JSON.stringify({
          version: 1,
          pid: 999_999_999,
          startedAt: '2026-01-02T03:04:05.000Z',
          workspace: plan.workspace,
          startSnapshot: plan.startSnapshot,
          actions: plan.actions,
        }),
      );
      // Half of it happened before the crash, and a leftover staging directory is still there.
      write(sc.sb.ws, 'src/m1/f1.txt', 'original 1\n' + 'x'.repeat(2001) + '\n', 0o644);
      fs.rmSync(path.join(sc.sb.ws, 'gen', 'g0'), { recursive: true });
      write(sc.sb.ws, '.agentx_restore-999999999-abcd/src/m2/f2.txt', 'staged');
      write(sc.sb.ws, 'src/m5/f5.txt', 'the person edited this meanwhile\n');
      const notice = await sc.s.resumeInterruptedRestore();
      expect(notice).toBe(
        'finished a file restore interrupted at 2026-01-02T03:04:05.000Z: ' +
          `${plan.actions.length - 1} files restored, skipped 1 changed since (src/m5/f5.txt)`,
      );
      const expected = { ...sc.target, 'src/m5/f5.txt': treeOf(sc.sb.ws)['src/m5/f5.txt'] ?? '' };
      expect(treeOf(sc.sb.ws)).toEqual(expected);
      expect(leftovers(sc.sb.ws)).toEqual([]);
      expect(await sc.s.resumeInterruptedRestore()).toBeNull();
    } finally {
      sc.sb.cleanup();
    }
  });

  it('reports a damaged journal instead of guessing', async () => {
    const sb = makeSandbox();
    try {
      write(sb.ws, 'a.txt', 'a');
      const s = await sb.open();
      await s.snapshot();
      fs.writeFileSync(path.join(s.storeDir ?? '', 'restore.json'), '{"version":1,"actions":[{"path":"../../etc/passwd"');
      expect(await s.resumeInterruptedRestore()).toBe(
        'an interrupted file restore could not be finished: the restore journal is damaged; check the files with /diff',
      );
      expect(fs.existsSync(path.join(s.storeDir ?? '', 'restore.json'))).toBe(false);
    } finally {
      sb.cleanup();
    }
  });
});
