// `npm run bench:patch`: apply_patch parse + apply times, side by side with `git apply` on the
// same change, written to its section of BENCHMARKS.md. The library is bundled from src/ with esbuild (as
// bench/run.mjs does for the state write) and timed in-process; the same bundle also runs as a
// child process, so both tools are compared once including process start. BENCH_RUNS (default
// 30) runs per case after 5 warm-up runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO, bundleForBench, load, stats, writeBenchSection } from './lib.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 30));
const WARMUP = 5;
const log = (m) => process.stderr.write(`${m}\n`);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-bench-patch-')));
const loadBefore = load();

// ---- the library under test, bundled from the current source ------------------------------
const lib = join(scratch, 'patch.mjs');
await bundleForBench(lib, { entry: join(REPO, 'src/tools/patch/index.ts') });
const cli = join(scratch, 'apply-cli.mjs');
writeFileSync(
  cli,
  `import { readFileSync } from 'node:fs';\nimport { applyPatch, parsePatch } from ${JSON.stringify(lib)};\nconst r = await applyPatch(parsePatch(readFileSync(process.argv[3], 'utf8')), { root: process.argv[2] });\nif (!r.ok) { process.stderr.write(r.output); process.exit(1); }\n`,
);
const P = await import(lib);

// ---- inputs ---------------------------------------------------------------------------------
/** ~1 MB of code-like, unique lines. */
function bigText(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`    const value${i} = compute(${i}, "${((i * 2654435761) % 4294967296).toString(16)}"); // line ${i}`);
  return `${out.join('\n')}\n`;
}

/** An update of `count` evenly spread hunks: 3 context lines around one replaced line plus one added. */
function spreadHunks(lines, count, { indentContext = false } = {}) {
  const step = Math.floor(lines.length / (count + 1));
  const body = [];
  for (let k = 1; k <= count; k++) {
    const at = k * step;
    const ctx = (i) => ` ${indentContext ? lines[i].trim() : lines[i]}`;
    body.push(
      '@@',
      ctx(at - 3),
      ctx(at - 2),
      ctx(at - 1),
      `-${lines[at]}`,
      `+${lines[at].replace('compute', 'computeFast')}`,
      `+    // hunk ${k}`,
      ctx(at + 1),
      ctx(at + 2),
      ctx(at + 3),
    );
  }
  return body;
}

const envelope = (sections) => `*** Begin Patch\n${sections.join('\n')}\n*** End Patch\n`;

// ---- helpers --------------------------------------------------------------------------------
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const fmt = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const spread = (s) => `${fmt(s.median)} ms (p10–p90 ${fmt(s.p10)}–${fmt(s.p90)})`;

async function timed(fn, reset = () => {}) {
  const samples = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    reset();
    const t0 = process.hrtime.bigint();
    await fn();
    if (i >= WARMUP) samples.push(ms(t0));
  }
  return stats(samples);
}

/**
 * Several cases on one workspace, interleaved in rotating order round by round, so machine load
 * hits them alike; every run's result is verified (untimed). Returns per case its stats and its
 * samples in round order (paired ratios).
 */
async function interleaved(cases, reset, verify) {
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const names = Object.keys(cases);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      reset();
      const t0 = process.hrtime.bigint();
      await cases[name]();
      if (i >= WARMUP) samples[name].push(ms(t0));
      verify();
    }
  }
  return Object.fromEntries(names.map((n) => [n, { ...stats(samples[n]), samples: samples[n] }]));
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A workspace with `files` committed to git, and a unified diff of `after` for git apply. */
function gitWorkspace(name, files, after) {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  const write = (set) => {
    for (const [p, t] of Object.entries(set)) {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), t);
    }
  };
  write(files);
  const git = (...args) => run('git', ['-c', 'user.email=b@x', '-c', 'user.name=bench', ...args], { cwd: root });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  write(after);
  const diff = join(scratch, `${name}.diff`);
  writeFileSync(diff, git('diff', '--no-color'));
  write(files);
  return {
    root,
    diff,
    reset: () => write(files),
    check: (expect) => {
      for (const [p, t] of Object.entries(expect)) if (readFileSync(join(root, p), 'utf8') !== t) throw new Error(`${name}: ${p} is not the expected result`);
    },
  };
}

const rows = [];
const notes = [];

// ---- 1. one 1 MB file, 50 hunks --------------------------------------------------------------
const text = bigText(17_000);
const lines = text.slice(0, -1).split('\n');
const bytes = Buffer.byteLength(text);
const exactPatch = envelope(['*** Update File: big.js', ...spreadHunks(lines, 50)]);
const fuzzPatch = envelope(['*** Update File: big.js', ...spreadHunks(lines, 50, { indentContext: true })]);
const expected = P.applyHunks(text, P.parsePatch(exactPatch)[0].hunks, { path: 'big.js' }).text;
if (P.applyHunks(text, P.parsePatch(fuzzPatch)[0].hunks, { path: 'big.js' }).text !== expected) throw new Error('the fuzzy patch gives another result');
log(`1 MB case: ${bytes} bytes, ${lines.length} lines, 50 hunks`);

const pureExact = await timed(() => P.applyHunks(text, P.parsePatch(exactPatch)[0].hunks, { path: 'big.js' }));
const pureFuzz = await timed(() => P.applyHunks(text, P.parsePatch(fuzzPatch)[0].hunks, { path: 'big.js' }));
rows.push({
  name: `parse + apply in memory: 1 file of ${(bytes / 2 ** 20).toFixed(2)} MiB (${lines.length.toLocaleString('en')} lines), 50 hunks`,
  agentx: spread(pureExact),
  git: '—',
  ratio: '—',
  target: '< 20 ms',
  verdict: pureExact.median < 20 ? 'met' : '**missed**',
});
rows.push({
  name: 'same, context lines re-indented (every hunk found at the 3rd matching level)',
  agentx: spread(pureFuzz),
  git: 'git apply cannot apply it',
  ratio: '—',
  target: '—',
  verdict: 'reported',
});

const big = gitWorkspace('big', { 'big.js': text }, { 'big.js': expected });
writeFileSync(join(scratch, 'big.patch'), exactPatch);
const applyIn = (root, patch, durable) => async () => {
  const r = await P.applyPatch(P.parsePatch(patch), { root, durable });
  if (!r.ok) throw new Error(r.output);
};
const bigRuns = await interleaved(
  {
    disk: applyIn(big.root, exactPatch, true),
    fast: applyIn(big.root, exactPatch, false),
    git: () => run('git', ['apply', big.diff], { cwd: big.root }),
    child: () => run(process.execPath, [cli, big.root, join(scratch, 'big.patch')]),
  },
  big.reset,
  () => big.check({ 'big.js': expected }),
);

// ---- 2. 200 files, one hunk each ---------------------------------------------------------------
const files = {};
const after = {};
const sections = [];
for (let f = 0; f < 200; f++) {
  const fl = bigText(100).replaceAll('value', `v${f}_`).slice(0, -1).split('\n');
  const path = `src/m${String(f).padStart(3, '0')}/file${f}.js`;
  files[path] = `${fl.join('\n')}\n`;
  const edited = [...fl];
  edited.splice(50, 1, fl[50].replace('compute', 'computeFast'), '    // edited');
  after[path] = `${edited.join('\n')}\n`;
  sections.push(
    `*** Update File: ${path}`,
    ` ${fl[47]}`,
    ` ${fl[48]}`,
    ` ${fl[49]}`,
    `-${fl[50]}`,
    `+${edited[50]}`,
    `+${edited[51]}`,
    ` ${fl[51]}`,
    ` ${fl[52]}`,
    ` ${fl[53]}`,
  );
}
const manyPatch = envelope(sections);
writeFileSync(join(scratch, 'many.patch'), manyPatch);
const many = gitWorkspace('many', files, after);
const pureMany = await timed(() => {
  for (const op of P.parsePatch(manyPatch)) P.applyHunks(files[op.path], op.hunks, { path: op.path });
});
const manyRuns = await interleaved(
  {
    disk: applyIn(many.root, manyPatch, true),
    fast: applyIn(many.root, manyPatch, false),
    git: () => run('git', ['apply', many.diff], { cwd: many.root }),
    child: () => run(process.execPath, [cli, many.root, join(scratch, 'many.patch')]),
  },
  many.reset,
  () => many.check(after),
);

// Process start alone, to read the child-process rows.
const nodeStart = await timed(() => run(process.execPath, ['-e', '0']));
const gitStart = await timed(() => run('git', ['--version']));

/** median/median, with the p10–p90 of the per-round ratios (both measured in the same round). */
function ratio(a, b) {
  const paired = stats(a.samples.map((v, i) => v / b.samples[i]));
  return `**${(a.median / b.median).toFixed(2)}×** (paired p10–p90 ${paired.p10.toFixed(2)}–${paired.p90.toFixed(2)})`;
}
const versus = (runs, label, name) => ({
  name,
  agentx: spread(runs[label]),
  git: spread(runs.git),
  ratio: ratio(runs[label], runs.git),
  target: '—',
  verdict: 'reported',
});
rows.push(
  versus(bigRuns, 'disk', '1 MiB file, 50 hunks, on disk (read, plan, diff, atomic write, fsync), in-process'),
  versus(bigRuns, 'fast', 'same without fsync (`durable: false`)'),
  versus(bigRuns, 'child', 'same as a child process (`node` + bundle) vs the `git apply` process'),
  { name: 'parse + apply in memory: 200 files × 100 lines, one hunk each', agentx: spread(pureMany), git: '—', ratio: '—', target: '—', verdict: 'reported' },
  versus(manyRuns, 'disk', '200-file patch on disk, in-process (fsync per file)'),
  versus(manyRuns, 'fast', 'same without fsync (`durable: false`)'),
  versus(manyRuns, 'child', 'same as a child process vs the `git apply` process'),
);
notes.push(
  `Process start alone: \`node -e 0\` ${spread(nodeStart)}, \`git --version\` ${spread(gitStart)}; the child-process rows include it.`,
  '`git apply` neither fsyncs nor checks the workspace boundary or symlinks; agentx writes each file through a temp file and rename and, by default, fsyncs the data and the directories (exactly-once relies on it).',
  'Each disk run starts from the original files (rewritten between runs, not timed). The final files of every run are checked against the expected result.',
);

// ---- report ---------------------------------------------------------------------------------
const cpu = cpus();
const fsType = run('df', ['-T', scratch]).trim().split('\n')[1]?.split(/\s+/)[1] ?? 'unknown';
const md = [
  '# apply_patch benchmarks',
  '',
  `Measured by \`npm run bench:patch\` (bench/patch.mjs) on ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
  '',
  `- Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch}, Node ${process.version}, ${run('git', ['--version']).trim()}, temp files on ${fsType}.`,
  `- Load average before: ${loadBefore}; after: ${load()} (the machine is shared with other work: absolute times are noisy).`,
  `- Method: ${WARMUP} warm-up runs then ${RUNS} runs per case; median and p10–p90. Cases on disk run interleaved round by round (rotating order) with \`git apply\` on the same change; ratios are median/median with the p10–p90 of the per-round ratios. The library is bundled from src/tools/patch with esbuild.`,
  '',
  '| case | agentx | git apply | ratio | target | verdict |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.agentx} | ${r.git} | ${r.ratio} | ${r.target} | ${r.verdict} |`),
  '',
  ...notes.map((n) => `- ${n}`),
  '',
].join('\n');
writeBenchSection('patch', md);
process.stdout.write(md);
rmSync(scratch, { recursive: true, force: true });
