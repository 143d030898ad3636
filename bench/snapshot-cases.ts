// Workspace snapshot benchmark cases (issue 16). Bundled and run by bench/snapshot.mjs.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkspaceSnapshots, type WorkspaceSnapshots } from '../src/workspace/index.ts';

export interface Timing {
  samples: number[];
}

function open(workspace: string, stateHome: string): Promise<WorkspaceSnapshots> {
  const env = { PATH: process.env.PATH, HOME: stateHome, XDG_STATE_HOME: stateHome };
  return openWorkspaceSnapshots({ workspace, env, homeDir: stateHome });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** CPU time (ms) of this process plus its finished children (the git processes), from /proc. */
export function cpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
  const ticks = ['11', '12', '13', '14'].reduce((sum, i) => sum + Number(fields[Number(i)] ?? 0), 0);
  return (ticks * 1000) / 100;
}

/** `dirs` × `perDir` small source-like files. */
export function makeSmallTree(root: string, dirs: number, perDir: number): void {
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${d % 20}`, `mod${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perDir; f++) fs.writeFileSync(path.join(dir, `file${f}.ts`), `export const v${d}_${f} = ${d * perDir + f};\n// module ${d}, file ${f}\n`);
  }
}

/** First snapshots (each into a fresh store) and incremental ones after one file changed. */
export async function benchSmallTree(workspace: string, stateRoot: string, firstRuns: number, incrementalRuns: number): Promise<{
  first: number[]; incremental: number[]; unchanged: number[]; incrementalCpuMs: number; files: number;
  loose: { disk: number; apparent: number }; packed: { disk: number; apparent: number }; tree: { disk: number; apparent: number };
}> {
  const first: number[] = [];
  let s: WorkspaceSnapshots | null = null;
  for (let i = 0; i < firstRuns; i++) {
    s = await open(workspace, path.join(stateRoot, `first${i}`));
    const store = s;
    first.push(await timed(() => store.snapshot()));
  }
  if (s === null) throw new Error('no runs');
  const store = s;
  const incremental: number[] = [];
  const unchanged: number[] = [];
  let cpu = 0;
  for (let i = 0; i < incrementalRuns + 3; i++) {
    fs.writeFileSync(path.join(workspace, 'pkg3', 'mod3', 'file7.ts'), `export const changed = ${i};\n`);
    const c0 = cpuMs();
    const ms = await timed(() => store.snapshot());
    if (i >= 3) cpu += cpuMs() - c0;
    const same = await timed(() => store.snapshot());
    if (i >= 3) {
      incremental.push(ms);
      unchanged.push(same);
    }
  }
  const loose = usage(store.storeDir ?? '');
  await store.prune([]);
  const packed = usage(store.storeDir ?? '');
  return { first, incremental, unchanged, incrementalCpuMs: cpu / incrementalRuns, files: countFiles(workspace), loose, packed, tree: usage(workspace) };
}

/** Reference for the machine: one lstat() of every file of the tree, from Node (the floor of any stat cache). */
export function lstatAll(dir: string, runs: number): number[] {
  const paths: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else paths.push(p);
    }
  };
  walk(dir);
  const out: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    for (const p of paths) fs.lstatSync(p);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

function countFiles(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1;
  return n;
}

/** Bytes a directory occupies: allocated blocks, and file sizes. */
export function usage(dir: string): { disk: number; apparent: number } {
  let disk = 0;
  let apparent = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const u = usage(p);
      disk += u.disk;
      apparent += u.apparent;
    } else {
      const st = fs.lstatSync(p);
      disk += st.blocks * 512;
      apparent += st.size;
    }
  }
  return { disk, apparent };
}

/**
 * A tree of `totalBytes` in files of `fileBytes` (random, so incompressible: the worst case), then
 * `turns` turns each rewriting one file, snapshotted before and after as the engine does.
 */
export async function benchStoreGrowth(workspace: string, stateHome: string, totalBytes: number, fileBytes: number, turns: number) {
  const files = Math.round(totalBytes / fileBytes);
  for (let i = 0; i < files; i++) {
    const dir = path.join(workspace, `data${i % 25}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `blob${i}.bin`), randomBytes(fileBytes));
  }
  const s = await open(workspace, stateHome);
  await s.snapshot();
  const storeDir = s.storeDir ?? '';
  const base = usage(storeDir);
  let changed = 0;
  const turnMs: number[] = [];
  for (let t = 0; t < turns; t++) {
    const t0 = process.hrtime.bigint();
    await s.snapshot();
    const content = randomBytes(fileBytes);
    fs.writeFileSync(path.join(workspace, `data${(t * 7) % 25}`, `blob${(t * 37) % files}.bin`), content);
    changed += content.length;
    await s.snapshot();
    turnMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const after = usage(storeDir);
  return { files, fileBytes, treeBytes: files * fileBytes, base, after, changed, turnMs };
}
