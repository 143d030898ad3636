// What compaction costs over a long session, per mechanism: extra requests and bytes against a
// baseline with an unlimited window, tokens processed, facts still recalled at the end.
// `npm run bench` (bench/run.mjs) adds a row per mechanism to its table and writes this
// section of BENCHMARKS.md; `npm run bench:compaction` measures and writes only this section. COMPACTION_TURNS (200) and
// COMPACTION_WINDOW (8000 tokens) change the session.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, bundleForBench, writeBenchSection } from './lib.mjs';

const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
const signed = (n, unit = '') => `${n >= 0 ? '+' : '−'}${Math.abs(n).toLocaleString('en-US')}${unit}`;

/** Runs the scripted session for every mechanism; returns { turns, window, results, markdown }. */
export async function compactionBench({ turns = 200, window = 8000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-compaction-bench-'));
  try {
    const out = join(dir, 'compaction-run.mjs');
    await bundleForBench(out, { entry: join(REPO, 'bench/compaction-run.ts'), cjs: true });
    const r = spawnSync(process.execPath, [out], {
      encoding: 'utf8',
      maxBuffer: 16 * 2 ** 20,
      timeout: 600_000,
      env: { ...process.env, COMPACTION_TURNS: String(turns), COMPACTION_WINDOW: String(window) },
    });
    if (r.status !== 0) throw new Error(`compaction bench failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
    const data = JSON.parse(r.stdout);
    return { ...data, markdown: toMarkdown(data) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function toMarkdown({ turns, window, results }) {
  const base = results[0];
  const lines = [
    `| mechanism | requests | extra requests | failed probes | bytes sent | extra bytes | compactions | input tokens processed | max context | facts kept | wall time |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const r of results) {
    const isBase = r === base;
    lines.push(
      [
        r.name,
        r.requests,
        isBase ? '—' : signed(r.requests - base.requests),
        r.failedRequests,
        kib(r.bytesSent),
        isBase ? '—' : `${signed(Math.round(((r.bytesSent - base.bytesSent) / 1024) * 10) / 10)} KiB`,
        r.compactions,
        r.inputTokens.toLocaleString('en-US'),
        r.maxContextTokens.toLocaleString('en-US'),
        r.factsKept,
        `${(r.ms / 1000).toFixed(2)} s`,
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .replace(/$/, ' |'),
    );
  }
  return [
    `${turns} scripted turns (every 10th gives a fact \`remember K=V\`, every 7th runs a tool call answered with ~800 bytes, the rest are notes of 20–140 words),`,
    `window ${window.toLocaleString('en-US')} tokens, AGENTX_AUTO_COMPACT 0.85, driven through the engine (src/engine/engine.ts, its turn loop and compaction) with the real client against the emulator.`,
    `The baseline has no window limit, so it never compacts: extra requests and bytes are what compaction costs;`,
    `"input tokens processed" is the sum of input_tokens over all responses (what the service bills), which compaction lowers.`,
    `Failed probes: one refused \`context_management\` (HTTP 400) and/or one 404 from \`/responses/compact\`, once per server.`,
    '',
    ...lines,
  ].join('\n');
}

/** The BENCHMARKS.md section (`<!-- bench:compaction -->`): title, machine and date, how to rerun, the table. */
export function compactionSection(result, machine, date) {
  return [
    '# What compaction costs (200 turns)',
    '',
    `Measured ${date} on ${machine}. Rerun: \`npm run bench:compaction\` (this section) or \`npm run bench\` (everything).`,
    'Requests and bytes are deterministic for a given script; wall time includes the emulator in the same process and varies with load.',
    '',
    result.markdown,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const turns = Number(process.env.COMPACTION_TURNS ?? 200);
  const window = Number(process.env.COMPACTION_WINDOW ?? 8000);
  const result = await compactionBench({ turns, window });
  const cpu = cpus();
  const machine = `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch} (${hostname()}), Node ${process.version}`;
  const section = compactionSection(result, machine, `${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`);
  writeBenchSection('compaction', section);
  process.stdout.write(`${section}\n\nwritten to BENCHMARKS.md\n`);
}
