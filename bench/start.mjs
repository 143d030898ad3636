// `node bench/start.mjs [BASELINE_DIR]`: interactive start only (process start → ready prompt in a
// 120×40 pty), agentx vs `node -e` writing one line, Codex's TUI when the peer is installed
// (bench/peer.mjs; BENCH_NO_PEER=1 skips it) and — with BASELINE_DIR, a directory holding another
// build's bin/ and dist/ (e.g. main's) — that build too, all alternating in one run so machine
// noise hits each alike. The same measurement as bench/run.mjs's "interactive start" rows, without
// the rest of the bench: for before/after comparisons of start-up work.
// BENCH_RUNS (default 20) counted rounds after 3 warm-up rounds.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTX_READY, REPO, fmt, load, pairedRatio, startEmulatorProcess, stats, x } from './lib.mjs';
import { measureStart } from './interactive.mjs';
import { codexEnv, codexHome, ensurePeer } from './peer.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 20));
const WARMUP = 3;
const scratch = [];
const tmp = (name) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `agentx-bench-start-${name}-`)));
  scratch.push(dir);
  return dir;
};

/** A private copy of a build (bin/ + dist/), so a rebuild during the run cannot mix two builds. */
function snapshot(from, name) {
  const dir = tmp(name);
  cpSync(join(from, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(from, 'bin'), join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  return join(dir, 'bin/agentx.js');
}

const baselineDir = process.argv[2];
const emu = await startEmulatorProcess(join(REPO, 'dist/emulator.js'));
try {
  const home = tmp('home');
  const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/bash', LANG: 'C.UTF-8', AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'bench-key' };
  /** @type {{ name: string, file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: RegExp, runs: number }[]} */
  const cases = [
    { name: 'node', file: process.execPath, args: ['-e', 'process.stdout.write("ready\\n")'], cwd: tmp('node'), env, ready: /ready/, runs: 1 },
    { name: 'agentx', file: process.execPath, args: [snapshot(REPO, 'this')], cwd: tmp('agentx'), env, ready: AGENTX_READY, runs: 1 },
  ];
  if (baselineDir)
    cases.push({ name: 'baseline', file: process.execPath, args: [snapshot(baselineDir, 'base')], cwd: tmp('base'), env, ready: AGENTX_READY, runs: 1 });
  const peer = ensurePeer();
  if (peer.ok)
    cases.push({
      name: 'codex',
      file: peer.bin,
      args: [],
      cwd: tmp('codex'),
      env: codexEnv(codexHome(emu.baseUrl, () => tmp('codex-home'))),
      ready: /Ask Codex to do anything|for shortcuts/,
      runs: 1,
    });
  else console.log(`codex: ${peer.reason}`);
  // As after daily use (and as in bench/run.mjs, where the one-shot rows run first in the same
  // HOME): each build's full code cache is written by one answered one-shot before the rounds.
  for (const c of cases.filter((k) => k.name === 'agentx' || k.name === 'baseline')) {
    const r = spawnSync(c.file, [...c.args, 'hello'], { cwd: c.cwd, env, encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${c.name}: the warm-up one-shot exited ${r.status}: ${r.stderr}`);
  }
  const loadBefore = load();
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of cases) {
      const [ms] = await measureStart(c);
      if (i >= WARMUP) samples[c.name].push(ms);
    }
    process.stderr.write(`\r  round ${i + 1}/${WARMUP + RUNS}${i < WARMUP ? ' (warm-up)' : ''}   `);
  }
  process.stderr.write('\n');
  const line = (name) => {
    const s = stats(samples[name]);
    const vsNode = pairedRatio(samples[name], samples.node);
    return (
      `${name}: ${fmt(s.median)} (p10–p90 ${fmt(s.p10)}–${fmt(s.p90)}), n=${s.n}` +
      (name === 'node' ? '' : `; ${x(s.median / stats(samples.node).median)} node (paired p10–p90 ${x(vsNode.p10)}–${x(vsNode.p90)})`)
    );
  };
  for (const c of cases) console.log(line(c.name));
  if (peer.ok) console.log(`agentx / codex TUI (${peer.version}): ${x(stats(samples.agentx).median / stats(samples.codex).median)}`);
  if (baselineDir) {
    const r = pairedRatio(samples.agentx, samples.baseline);
    console.log(
      `agentx / baseline: ${x(stats(samples.agentx).median / stats(samples.baseline).median)} (paired median ${x(r.median)}, p10–p90 ${x(r.p10)}–${x(r.p90)})`,
    );
  }
  console.log(`load average before: ${loadBefore}, after: ${load()}`);
} finally {
  await emu.stop?.();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
}
