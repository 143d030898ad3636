// `npm run bench`: every benchmark, measured side by side in one run, written to BENCHMARKS.md.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CLI, REPO, fmt, interleave, peakRssKb, ratio, startEmulatorProcess, stats } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const rows = [];
const notes = [];
const row = (name, value, target, verdict, detail = '') => rows.push({ name, value, target, verdict, detail });

const project = mkdtempSync(join(tmpdir(), 'agentx-bench-'));
const home = mkdtempSync(join(tmpdir(), 'agentx-bench-home-'));
const emu = await startEmulatorProcess();
const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'bench-key' };
const opts = { cwd: project, env };

try {
  // 1. Startup: agentx --version vs node -e 0.
  process.stderr.write('startup…\n');
  const s = await interleave([
    { name: 'node', cmd: process.execPath, args: ['-e', '0'], opts },
    { name: 'agentx', cmd: process.execPath, args: [CLI, '--version'], opts },
  ], { runs: RUNS });
  const sn = stats(s.node), sa = stats(s.agentx);
  const r1 = sa.median / sn.median;
  row('`agentx --version` vs `node -e 0`', `${ratio(sa.median, sn.median)}× (${fmt(sa.median)} vs ${fmt(sn.median)}; p10–p90 ${fmt(sa.p10)}–${fmt(sa.p90)})`, '≤ 1.3×', r1 <= 1.3 ? 'met' : 'missed');

  // 2. One-shot latency: plain answer, one tool call, ten tool calls.
  process.stderr.write('one-shot…\n');
  const tenCalls = async () => emu.enqueue([...Array.from({ length: 10 }, () => ({ kind: 'shell', commands: ['true'] })), { kind: 'text', text: 'done' }]);
  const zeroCalls = async () => emu.enqueue([{ kind: 'text', text: 'done' }]);
  const o = await interleave([
    { name: 'node', cmd: process.execPath, args: ['-e', '0'], opts },
    { name: 'plain', cmd: process.execPath, args: [CLI, 'hello'], opts },
    { name: 'one', cmd: process.execPath, args: [CLI, 'run: true'], opts },
    { name: 'zero', cmd: process.execPath, args: [CLI, 'x'], opts, before: zeroCalls },
    { name: 'ten', cmd: process.execPath, args: [CLI, 'x'], opts, before: tenCalls },
  ], { runs: RUNS });
  const on = stats(o.node), op = stats(o.plain), o1 = stats(o.one), o0 = stats(o.zero), o10 = stats(o.ten);
  row('plain one-shot, wall', `${fmt(op.median)} (${ratio(op.median, on.median)}× \`node -e 0\`; p10–p90 ${fmt(op.p10)}–${fmt(op.p90)})`, 'report', '—');
  row('one-shot with one shell call (`true`), wall', `${fmt(o1.median)} (${ratio(o1.median, on.median)}× \`node -e 0\`)`, 'report', '—');
  const perCall = (o10.median - o0.median) / 10;
  row('overhead per tool call (10 calls of `true` vs 0), per call', fmt(perCall), '≤ 30 ms', perCall <= 30 ? 'met' : 'missed', 'includes one emulator round trip per call');

  // 3. Peak RSS of a one-shot.
  const rss = peakRssKb(process.execPath, [CLI, 'hello'], opts);
  const rssNode = peakRssKb(process.execPath, ['-e', '0'], opts);
  if (rss !== null) row('peak RSS of a plain one-shot', `${(rss / 1024).toFixed(1)} MiB (\`node -e 0\`: ${((rssNode ?? 0) / 1024).toFixed(1)} MiB)`, 'report', '—');

  // 4. State write with 20 checkpoints and a 64 KB transcript.
  process.stderr.write('state write…\n');
  const out = join(project, 'state-bench.mjs');
  await build({ entryPoints: [join(REPO, 'bench/state-write.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
  const { benchStateWrite } = await import(out);
  const w = benchStateWrite(project, 200);
  row('state write (20 checkpoints, 64 KB transcript), median of 200', `${w.median.toFixed(2)} ms (p90 ${w.p90.toFixed(2)} ms, ${w.bytes} bytes)`, '≤ 5 ms', w.median <= 5 ? 'met' : 'missed');
} finally {
  emu.stop();
}

const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
const md = [
  '# Benchmarks',
  '',
  `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} — ${machine}.`,
  `Each case: 3 warm-up runs, then ${RUNS} runs, interleaved with its reference so machine noise hits both alike; medians, ratios from the same run.`,
  'The emulator (dist/emulator.js) runs on loopback in a separate process.',
  '',
  '| case | measured | target | verdict |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.target} | ${r.verdict} |`),
  '',
  ...notes,
].join('\n');
writeFileSync(join(REPO, 'BENCHMARKS.md'), `${md}\n`);
process.stdout.write(`${md}\n`);
