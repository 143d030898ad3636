// Helpers for the workspace tests: real directories, the real git, a temporary XDG_STATE_HOME.

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { openWorkspaceSnapshots, type Span, type WorkspaceSnapshots, type WorkspaceSnapshotsOptions } from '../../src/workspace/index.ts';

export interface Sandbox {
  root: string;
  ws: string;
  stateHome: string;
  env: Record<string, string>;
  open(extra?: Partial<WorkspaceSnapshotsOptions>): Promise<WorkspaceSnapshots>;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-ws-')));
  const ws = path.join(root, 'ws');
  const stateHome = path.join(root, 'state');
  fs.mkdirSync(ws);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: path.join(root, 'home'), XDG_STATE_HOME: stateHome };
  fs.mkdirSync(env.HOME);
  return {
    root,
    ws,
    stateHome,
    env,
    open: (extra = {}) => openWorkspaceSnapshots({ workspace: ws, env, homeDir: env.HOME, graceMs: 0, lockWaitMs: 5_000, ...extra }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export function write(ws: string, rel: string, content: string | Buffer, mode?: number): void {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mode !== undefined) fs.chmodSync(file, mode);
}

function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

/**
 * Every file under `dir` as `path → description` (type, permission bits, content hash or link
 * target), so two states of a tree compare exactly. `skip` names directories left out.
 */
export function treeOf(dir: string, skip: readonly string[] = ['.git']): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const abs = path.join(dir, childRel);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[childRel] = `link ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        if (skip.includes(entry.name)) continue;
        out[`${childRel}/`] = 'dir';
        walk(childRel);
      } else out[childRel] = `file ${(st.mode & 0o777).toString(8)} ${sha(fs.readFileSync(abs))}`;
    }
  };
  walk('');
  return out;
}

/** Every byte of a directory (a .git), with modification times: "byte-identical and untouched". */
export function dirDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const abs = path.join(dir, childRel);
      const st = fs.lstatSync(abs);
      if (st.isDirectory()) walk(childRel);
      else out[childRel] = `${st.mtimeMs} ${st.isSymbolicLink() ? fs.readlinkSync(abs) : sha(fs.readFileSync(abs))}`;
    }
  };
  walk('');
  return out;
}

/** The person's git, run as the person would (own repository, no store variables). */
export function personGit(cwd: string, args: readonly string[], env: Record<string, string> = {}): string {
  const res = spawnSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'P',
      GIT_AUTHOR_EMAIL: 'p@example.com',
      GIT_COMMITTER_NAME: 'P',
      GIT_COMMITTER_EMAIL: 'p@example.com',
      ...env,
    },
  });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/** git on the private store (to inspect it in tests). */
export function storeGit(gitDir: string, args: readonly string[], input?: string): string {
  const res = spawnSync('git', [...args], {
    encoding: 'utf8',
    input,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_DIR: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/** Bundles a child-process entry (TypeScript source whose imports are relative to src/workspace/, e.g. ./index.ts) for plain node. */
export function bundleChild(source: string, outDir: string, name: string): string {
  const outfile = path.join(outDir, `${name}.mjs`);
  buildSync({
    stdin: { contents: source, resolveDir: path.join(import.meta.dirname, '../../src/workspace'), loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** A seeded PRNG (mulberry32): the seed is printed and can be set with AGENTX_TEST_SEED. */
export function seededRandom(label: string): { seed: number; next: () => number } {
  const fromEnv = Number(process.env.AGENTX_TEST_SEED);
  const seed = Number.isInteger(fromEnv) && process.env.AGENTX_TEST_SEED !== '' ? fromEnv : 20261;
  process.stdout.write(`${label}: seed ${seed} (set AGENTX_TEST_SEED to change)\n`);
  let a = seed >>> 0;
  return {
    seed,
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Polls until `condition` holds (no fixed sleeps in tests). */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A snapshot's id; a test that expects a snapshot fails loudly without one. */
export async function snapId(s: WorkspaceSnapshots): Promise<string> {
  const r = await s.snapshot();
  if (r === null) throw new Error('no snapshot');
  return r.id;
}

/** One turn of a session: snapshot, the turn's effects on the files, snapshot. */
export async function turn(s: WorkspaceSnapshots, effects: () => void): Promise<Span> {
  const from = await snapId(s);
  effects();
  return { from, to: await snapId(s) };
}
