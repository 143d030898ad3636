// `node bench/sandbox.mjs`: what the sandbox costs per model command. The engine's own command
// runner (src/tools/sandboxed.ts) runs `true` BENCH_RUNS times (default 50) unsandboxed
// (danger-full-access) and in bwrap (workspace-write), interleaved round by round, after warm-up
// runs (the one-time bwrap probe is measured on its own). Writes docs/SANDBOX-BENCH.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, hostname, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO, load, stats } from './lib.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 50));
const WARMUP = 5;
const TARGET_MS = 15;
const log = (m) => process.stderr.write(`${m}\n`);

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-bench-sandbox-')));
try {
  const bundle = join(scratch, 'sandboxed.mjs');
  await build({ entryPoints: [join(REPO, 'src/tools/sandboxed.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'warning' });
  const { createCommandRunner } = await import(bundle);

  const workspace = join(scratch, 'workspace');
  const home = join(scratch, 'home');
  mkdirSync(workspace);
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', LANG: 'C.UTF-8' };
  const runnerFor = (mode) => createCommandRunner({
    setting: { mode, offIfUnavailable: false, network: false }, sessionDir: workspace, env,
    configFile: join(home, '.agentx'), secrets: ['sk-bench-not-a-key-0123'], platform: process.platform,
    notice: (m) => { throw new Error(m); },
  });
  const cases = [
    { name: 'unsandboxed (danger-full-access)', runner: runnerFor('danger-full-access') },
    { name: 'bwrap (workspace-write)', runner: runnerFor('workspace-write') },
  ];
  const once = async (runner) => {
    const t0 = process.hrtime.bigint();
    const r = await runner.run({ command: 'true', cwd: workspace, timeoutMs: 30_000, maxOutputBytes: 4096 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.exitCode !== 0) throw new Error(`true exited ${r.exitCode}: ${r.stderr}`);
    return ms;
  };

  const loadBefore = load();
  const firstSandboxed = await once(cases[1].runner);
  const samples = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    // Alternate which goes first, so neither always runs right after the other.
    const order = i % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const ms = await once(c.runner);
      if (i >= WARMUP) samples[c.name].push(ms);
    }
    process.stderr.write(`\r  round ${i + 1}/${WARMUP + RUNS}${i < WARMUP ? ' (warm-up)' : ''}   `);
  }
  process.stderr.write('\n');
  const [plain, boxed] = cases.map((c) => stats(samples[c.name]));
  const overhead = samples[cases[1].name].map((ms, i) => ms - samples[cases[0].name][i]);
  const o = stats(overhead);

  const fmt = (x) => x.toFixed(1);
  const bwrapVersion = execFileSync('bwrap', ['--version'], { encoding: 'utf8' }).trim();
  const cpu = cpus();
  const lines = [
    '# Sandbox overhead per command',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`node bench/sandbox.mjs\` (BENCH_RUNS=${RUNS}, ${WARMUP} warm-up rounds).`,
    `Machine: ${hostname()}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()},`,
    `Node ${process.version}, ${bwrapVersion}, running as uid ${process.getuid?.() ?? '?'}. Load average before: ${loadBefore}, after: ${load()}.`,
    '',
    'Each run is the engine\'s command runner (`createCommandRunner`, src/tools/sandboxed.ts) running `true`:',
    'supervisor, user shell, and for the sandbox the policy (≈30 stat calls) plus bwrap with its namespaces and mounts.',
    'The two cases alternate round by round; the overhead is the per-round difference.',
    '',
    '| case | median ms | p10 | p90 | max |',
    '|---|---:|---:|---:|---:|',
    `| unsandboxed (danger-full-access) | ${fmt(plain.median)} | ${fmt(plain.p10)} | ${fmt(plain.p90)} | ${fmt(plain.max)} |`,
    `| bwrap (workspace-write) | ${fmt(boxed.median)} | ${fmt(boxed.p10)} | ${fmt(boxed.p90)} | ${fmt(boxed.max)} |`,
    `| **overhead (paired difference)** | **${fmt(o.median)}** | ${fmt(o.p10)} | ${fmt(o.p90)} | ${fmt(o.max)} |`,
    '',
    `Target: overhead under ${TARGET_MS} ms per command → ${o.median < TARGET_MS ? 'met' : 'NOT met'} (median ${fmt(o.median)} ms).`,
    `Once per session, the first sandboxed command also probes bwrap: that first command took ${fmt(firstSandboxed)} ms.`,
    '',
  ];
  mkdirSync(join(REPO, 'docs'), { recursive: true });
  writeFileSync(join(REPO, 'docs/SANDBOX-BENCH.md'), lines.join('\n'));
  log(lines.join('\n'));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
