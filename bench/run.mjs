// `npm run bench`: every row of issue 7, agentx and the peer (Codex CLI) measured side by side in
// one run against one emulator, written to BENCHMARKS.md. BENCH_RUNS (default 15) runs per case
// after 3 warm-up runs; BENCH_NO_PEER=1 skips the peer.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  AGENTX_READY,
  HAVE_TIME,
  REPO,
  bundleForBench,
  writeBenchSection,
  fmt,
  interleave,
  load,
  mib,
  pairedRatio,
  startEmulatorProcess,
  stats,
  x,
} from './lib.mjs';
import { CODEX_VERSION, codexEnv, codexExecArgs, codexHome, ensurePeer } from './peer.mjs';
import { driveConversation, measureStart } from './interactive.mjs';
import { compactionBench, compactionSection } from './compaction.mjs';
import { cleanupDaily, hugeOutputRss, longSessionRss, oneshotVsNode } from './daily.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 3;
// The conversation must reach turn 10 for the request-size row.
const TURNS = Math.max(10, WARMUP + RUNS);
// A startup pair costs a fraction of a second and its ratio is the noisiest: more runs.
const STARTUP_RUNS = 3 * RUNS;
const started = Date.now();
const loadBefore = load();
const uptime = () => spawnSync('uptime', { encoding: 'utf8' }).stdout?.trim() ?? '';
const uptimeBefore = uptime();
const log = (m) => process.stderr.write(`${m}\n`);
const rows = [];
const notes = [];
/** The compaction bench's result (bench/compaction.mjs), its own section of BENCHMARKS.md. */
let compaction = null;
const row = (r) => rows.push(r);

// ---- the bundle under test must be the current source -------------------------------------
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}
const distFresh =
  existsSync(join(REPO, 'dist/agentx.cjs')) &&
  existsSync(join(REPO, 'dist/emulator.js')) &&
  statSync(join(REPO, 'dist/agentx.cjs')).mtimeMs >= Math.max(newestMtime(join(REPO, 'src')), newestMtime(join(REPO, 'test/emulator')));
if (!distFresh) {
  log('dist/ is missing or older than src/: npm run build…');
  const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build failed');
}

const scratch = [];
const tmp = (name) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `agentx-bench-${name}-`)));
  scratch.push(dir);
  return dir;
};

// Measure a private copy of the build: other work in this checkout may rebuild dist/ (rm + write)
// while the bench runs, which would fail or mix runs of two builds.
function snapshotBuild() {
  const pkg = tmp('pkg');
  for (let attempt = 1; ; attempt++) {
    try {
      cpSync(join(REPO, 'dist'), join(pkg, 'dist'), { recursive: true });
      cpSync(join(REPO, 'bin'), join(pkg, 'bin'), { recursive: true });
      if (!existsSync(join(pkg, 'dist/agentx.cjs')) || !existsSync(join(pkg, 'dist/emulator.js'))) throw new Error('dist/ is incomplete');
      writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n');
      return pkg;
    } catch (err) {
      if (attempt >= 5) throw err;
      rmSync(join(pkg, 'dist'), { recursive: true, force: true });
      spawnSync('sleep', ['2']);
    }
  }
}
const PKG = snapshotBuild();
const CLI = join(PKG, 'bin/agentx.js');
const emu = await startEmulatorProcess(join(PKG, 'dist/emulator.js'));
log(`emulator at ${emu.baseUrl}`);
const peer = ensurePeer(log);
log(peer.ok ? `peer: ${peer.version} (${peer.bin})` : `peer unavailable: ${peer.reason}`);
const peerNA = peer.ok ? null : `peer unavailable: ${peer.reason}`;

// Both agents get an empty HOME, their own project directory and bash as the user's shell.
const agentxHome = tmp('home');
const agentxEnv = { PATH: process.env.PATH, HOME: agentxHome, SHELL: '/bin/bash', LANG: 'C.UTF-8', AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'bench-key' };
const agentx = (args, check) => ({ cmd: process.execPath, args: [CLI, ...args], opts: { cwd: tmp('agentx'), env: agentxEnv }, check });
const cHome = peer.ok ? codexHome(emu.baseUrl, () => tmp('codex-home')) : null;
// Called only when peer.ok: then peer.bin is the binary.
const codex = (prompt, check) => ({
  cmd: /** @type {string} */ (peer.bin),
  args: codexExecArgs(prompt),
  opts: { cwd: tmp('codex'), env: codexEnv(cHome) },
  check,
});
const says = (s) => (out) => out.includes(s);

function ratioCells(a, b) {
  const m = a.median / b.median;
  const pr = pairedRatio(a.samples, b.samples);
  return { m, text: `**${x(m)}** (paired p10–p90 ${x(pr.p10)}–${x(pr.p90)})` };
}
const spread = (s) => `${fmt(s.median)} (p10–p90 ${fmt(s.p10)}–${fmt(s.p90)})`;
const withSamples = (samples) => ({ ...stats(samples), samples });
/** agentx's REPL is ready: its prompt is drawn, with the status line under it (the composer). */
const verdict = (ok) => (ok ? 'met' : '**missed**');
async function section(name, fn) {
  log(`== ${name}`);
  try {
    await fn();
  } catch (err) {
    log(`${name} failed: ${err instanceof Error ? err.stack : String(err)}`);
    row({ name, agentx: `error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`, other: '—', ratio: '—', target: '—', verdict: 'error' });
  }
}

try {
  // ---- 1. startup --------------------------------------------------------------------------
  await section('startup', async () => {
    const s = await interleave(
      [
        { name: 'node', cmd: process.execPath, args: ['-e', '0'], opts: { env: agentxEnv } },
        { name: 'agentx', ...agentx(['--version'], says('agentx ')) },
      ],
      { runs: STARTUP_RUNS, warmup: WARMUP, label: 'startup' },
    );
    const a = withSamples(s.agentx.ms),
      n = withSamples(s.node.ms);
    const r = ratioCells(a, n);
    row({
      name: '`agentx --version` vs `node -e 0`',
      agentx: spread(a),
      other: `node: ${spread(n)}`,
      ratio: r.text,
      target: '≤ 1.3×',
      verdict: verdict(r.m <= 1.3),
    });
  });

  // ---- 2. one-shots: plain, one shell call; peak RSS from the same runs --------------------
  await section('one-shot', async () => {
    /** @type {import('./lib.mjs').BenchCase[]} */
    const cases = [
      { name: 'aPlain', ...agentx(['hello'], says('You said: hello')) },
      { name: 'aCall', ...agentx(['run: true'], says('Ran it')) },
    ];
    if (peer.ok) cases.push({ name: 'cPlain', ...codex('hello', says('You said: hello')) }, { name: 'cCall', ...codex('run: true', says('Ran it')) });
    const s = await interleave(cases, { runs: RUNS, warmup: WARMUP, rss: true, label: 'one-shot' });
    for (const [label, a, c] of [
      ['plain one-shot answer, wall', 'aPlain', 'cPlain'],
      ['one-shot with one shell call (`true`), wall', 'aCall', 'cCall'],
    ]) {
      const as = withSamples(s[a].ms);
      if (!peer.ok) {
        row({ name: label, agentx: spread(as), other: peerNA, ratio: '—', target: '≤ 0.6×', verdict: 'agentx only' });
        continue;
      }
      const cs = withSamples(s[c].ms);
      const r = ratioCells(as, cs);
      row({ name: label, agentx: spread(as), other: `codex: ${spread(cs)}`, ratio: r.text, target: '≤ 0.6×', verdict: verdict(r.m <= 0.6) });
    }
    if (!HAVE_TIME) {
      row({ name: 'peak RSS of a one-shot', agentx: 'no /usr/bin/time (GNU time) here', other: '—', ratio: '—', target: '≤ 0.5×', verdict: 'not measured' });
      return;
    }
    const ar = withSamples(s.aPlain.rssKb);
    const rssCell = (st) => `${mib(st.median)} (p10–p90 ${mib(st.p10)}–${mib(st.p90)})`;
    if (!peer.ok) {
      row({ name: 'peak RSS of a plain one-shot', agentx: rssCell(ar), other: peerNA, ratio: '—', target: '≤ 0.5×', verdict: 'agentx only' });
      return;
    }
    const cr = withSamples(s.cPlain.rssKb);
    const r = ratioCells(ar, cr);
    row({
      name: 'peak RSS of a plain one-shot',
      agentx: rssCell(ar),
      other: `codex: ${rssCell(cr)}`,
      ratio: r.text,
      target: '≤ 0.5×',
      verdict: verdict(r.m <= 0.5),
    });
    const ac = withSamples(s.aCall.rssKb),
      cc = peer.ok ? withSamples(s.cCall.rssKb) : null;
    notes.push(`Peak RSS of the one-shot with one shell call: agentx ${mib(ac.median)}${cc ? `, codex ${mib(cc.median)} (${x(ac.median / cc.median)})` : ''}.`);
  });

  // ---- 3. per-tool-call overhead: 10 calls of `true` vs 0 calls ----------------------------
  await section('tool-call overhead', async () => {
    const ten = [...Array.from({ length: 10 }, () => ({ kind: 'shell', commands: ['true'] })), { kind: 'text', text: 'done' }];
    const zero = [{ kind: 'text', text: 'done' }];
    /** @type {import('./lib.mjs').BenchCase[]} */
    const cases = [
      { name: 'aZero', ...agentx(['go'], says('done')), before: () => emu.enqueue(zero) },
      { name: 'aTen', ...agentx(['go'], says('done')), before: () => emu.enqueue(ten) },
    ];
    if (peer.ok)
      cases.push(
        { name: 'cZero', ...codex('go', says('done')), before: () => emu.enqueue(zero) },
        { name: 'cTen', ...codex('go', says('done')), before: () => emu.enqueue(ten) },
      );
    await emu.reset();
    const s = await interleave(cases, { runs: RUNS, warmup: WARMUP, label: 'tool calls' });
    const perCall = (tenS, zeroS) => withSamples(tenS.map((t, i) => (t - zeroS[i]) / 10));
    const a = perCall(s.aTen.ms, s.aZero.ms);
    const c = peer.ok ? perCall(s.cTen.ms, s.cZero.ms) : null;
    row({
      name: 'overhead per tool call ((10 calls of `true` − 0 calls) / 10)',
      agentx: spread(a),
      other: c ? `codex: ${spread(c)}` : peerNA,
      ratio: c ? x(a.median / c.median) : '—',
      target: '≤ 30 ms',
      verdict: verdict(a.median <= 30),
    });
    notes.push(
      'Tool-call overhead includes one emulator round trip per call (request, SSE stream, tool output sent back) and one shell start; the paired per-round difference is used.',
    );
  });

  // ---- 4. interactive: echo, first token; request bytes of turn 10 --------------------------
  const turnBytes = {};
  const interactive = {};
  const turn10 = (requests) => {
    // The turn's own request (tools offered, last user message "turn 10: …"); side requests
    // (Codex's thread title) offer no tools.
    const hit = requests.find((r) => {
      const b = r.body;
      if (typeof b !== 'object' || !Array.isArray(b.tools) || b.tools.length === 0) return false;
      const input = typeof b.input === 'string' ? [{ role: 'user', content: b.input }] : (b.input ?? []);
      const users = input.filter((i) => i.role === 'user');
      return JSON.stringify(users[users.length - 1] ?? '').includes('turn 10: hello');
    });
    if (!hit) throw new Error('no request for turn 10 in the emulator log');
    return {
      bytes: hit.bytes,
      requests: requests.length,
      inputItems: Array.isArray(hit.body.input) ? hit.body.input.length : 1,
      previous: hit.body.previous_response_id ?? null,
      store: hit.body.store,
    };
  };
  // Start to a ready prompt, alternating the two programs so that machine noise hits both alike.
  /** @type {{ agentx: number[], codex: number[], node: number[] }} */
  const starts = { agentx: [], codex: [], node: [] };
  await section('interactive start', async () => {
    // The yardstick: node itself in the same pty, "ready" once it has printed one line (node -e 0 plus a write).
    const nodeStart = {
      file: process.execPath,
      args: ['-e', 'process.stdout.write("ready\\n")'],
      cwd: tmp('node-start'),
      env: agentxEnv,
      ready: /ready/,
      runs: 1,
    };
    const agentxStart = { file: process.execPath, args: [CLI], cwd: tmp('agentx-start'), env: agentxEnv, ready: AGENTX_READY, runs: 1 };
    const codexStart = peer.ok
      ? {
          file: peer.bin,
          args: [],
          cwd: tmp('codex-start'),
          env: codexEnv(codexHome(emu.baseUrl, () => tmp('codex-start-home'))),
          ready: /Ask Codex to do anything|for shortcuts/,
          runs: 1,
        }
      : null;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const nd = await measureStart(nodeStart);
      const a = await measureStart(agentxStart);
      const c = codexStart ? await measureStart(codexStart) : [];
      if (i >= WARMUP) {
        starts.node.push(...nd);
        starts.agentx.push(...a);
        starts.codex.push(...c);
      }
    }
    const a = withSamples(starts.agentx);
    const nd = withSamples(starts.node);
    const c = starts.codex.length > 0 ? withSamples(starts.codex) : null;
    const rn = ratioCells(a, nd);
    row({
      name: 'interactive start vs `node -e 0`, both in a pty',
      agentx: `${spread(a)}, n=${a.n}`,
      other: `node: ${spread(nd)}`,
      ratio: rn.text,
      target: 'report',
      verdict: 'reported',
    });
    row({
      name: 'interactive start: process start → ready prompt in a pty',
      agentx: `${spread(a)}, n=${a.n}`,
      other: c ? `codex: ${spread(c)}, n=${c.n}` : (peerNA ?? 'codex start failed'),
      ratio: c ? `**${x(a.median / c.median)}**` : '—',
      target: 'report',
      verdict: 'reported',
    });
    notes.push(
      'Interactive start: a fresh process in a 120×40 pty each time, from spawn until the prompt is drawn (agentx: its `>` prompt; codex: its composer hint), node -e with one line written as the yardstick; the three alternating, the first 3 of each not counted.',
    );
  });
  await section('interactive agentx', async () => {
    await emu.reset();
    const cwd = tmp('agentx-repl');
    interactive.agentx = await driveConversation({
      file: process.execPath,
      args: [CLI],
      cwd,
      env: agentxEnv,
      ready: AGENTX_READY,
      turns: TURNS,
      warmup: WARMUP,
      onTurn: (n) => process.stderr.write(`\r  agentx REPL: turn ${n}/${TURNS}   `),
    });
    process.stderr.write('\n');
    turnBytes.agentx = turn10(await emu.requests());
  });
  if (peer.ok) {
    await section('interactive codex', async () => {
      await emu.reset();
      const home = codexHome(emu.baseUrl, () => tmp('codex-home'));
      interactive.codex = await driveConversation({
        file: peer.bin,
        args: [],
        cwd: tmp('codex-tui'),
        env: codexEnv(home),
        ready: /Ask Codex to do anything|for shortcuts/,
        turns: TURNS,
        warmup: WARMUP,
        onTurn: (n) => process.stderr.write(`\r  codex TUI: turn ${n}/${TURNS}   `),
      });
      process.stderr.write('\n');
      turnBytes.codex = turn10(await emu.requests());
    });
  }
  if (turnBytes.agentx) {
    const a = turnBytes.agentx,
      c = turnBytes.codex;
    const desc = (t) =>
      `${t.bytes.toLocaleString('en')} B (${t.inputItems} input items, ${t.previous ? 'previous_response_id' : 'no previous_response_id'}, store: ${t.store})`;
    row({
      name: 'request bytes of the 10th turn of one conversation',
      agentx: desc(a),
      other: c ? `codex: ${desc(c)}` : (peerNA ?? 'codex session failed'),
      ratio: c ? `**${x(a.bytes / c.bytes)}**` : '—',
      target: '≤ 0.1×',
      verdict: c ? verdict(a.bytes / c.bytes <= 0.1) : 'agentx only',
    });
  }
  for (const [key, label] of [
    ['echoMs', 'interactive: keypress-to-echo in a pty'],
    ['firstTokenMs', 'interactive: Enter to first token rendered in a pty'],
  ]) {
    if (!interactive.agentx) continue;
    const a = withSamples(interactive.agentx[key]);
    const c = interactive.codex ? withSamples(interactive.codex[key]) : null;
    row({
      name: label,
      agentx: `${spread(a)}, n=${a.n}`,
      other: c ? `codex: ${spread(c)}, n=${c.n}` : (peerNA ?? 'codex session failed'),
      ratio: c ? x(a.median / c.median) : '—',
      target: 'report',
      verdict: 'reported',
    });
  }
  notes.push(
    `Interactive rows: one conversation of ${TURNS} turns per agent in a 120×40 pty (@lydell/node-pty), the first ${WARMUP} not counted; each message typed one key at a time (each letter's echo timed), first token = Enter → the first model output drawn (reasoning summary or answer). agentx runs its REPL; codex its TUI (terminal queries answered as xterm does).`,
  );

  // ---- 5. state write ----------------------------------------------------------------------
  await section('state write', async () => {
    const dir = tmp('state');
    const out = join(dir, 'state-bench.mjs');
    await bundleForBench(out, { entry: join(REPO, 'bench/state-write.ts') });
    const { benchStateWrite } = await import(out);
    const w = benchStateWrite(dir, 200);
    row({
      name: 'state write: 20 checkpoints + 64 KB transcript, interactive (fsynced) save, 200 runs',
      agentx: `${fmt(w.median)} (p10–p90 ${fmt(w.p10)}–${fmt(w.p90)}; ${w.bytes.toLocaleString('en')} B, ${w.historyEntries} checkpoints, transcript ${w.transcriptBytes.toLocaleString('en')} B)`,
      other: '—',
      ratio: '—',
      target: '≤ 5 ms median',
      verdict: verdict(w.median <= 5),
    });
    notes.push(`State write: temp file, fdatasync, rename, directory fsync on ${fsOf(dir)}; the cost is dominated by the two syncs.`);
    const { benchWritesPerToolCall } = await import(out);
    const c = await benchWritesPerToolCall(10);
    row({
      name: 'state writes per tool call (a turn with 10 calls, real engine and store)',
      agentx: `${c.perCall} per call (started, carrying the previous call's completed mark); +1 per response that asks for tools, +1 before its outputs are sent; ${c.perTurnOverhead} per turn; ${c.total} in all`,
      other: 'phase 1: 3 full writes per call',
      ratio: '—',
      target: '≤ 1 per durable transition',
      verdict: verdict(c.perCall <= 2),
    });
  });

  // ---- 6. daily use (issue 15): one-shot vs node -e 0, bounded memory ------------------------
  await section('daily use', async () => {
    const [o] = await oneshotVsNode(emu, [CLI], { runs: RUNS, warmup: WARMUP });
    row({
      name: 'plain one-shot vs `node -e 0`, wall',
      agentx: spread(o.agentx),
      other: `node: ${spread(o.node)}`,
      ratio: `**${x(o.ratio)}** (paired p10–p90 ${x(o.paired.p10)}–${x(o.paired.p90)})`,
      target: '≤ 1.25×',
      verdict: verdict(o.ratio <= 1.25),
    });
    const huge = await hugeOutputRss(emu, CLI);
    if (huge)
      row({
        name: 'peak RSS: one-shot whose command prints 1 GiB (model asks for no cap)',
        agentx: `${mib(huge.rssKb)} (${fmt(huge.ms)})`,
        other: '—',
        ratio: '—',
        target: '< 150 MiB',
        verdict: verdict(huge.rssKb !== null && huge.rssKb < 150 * 1024),
      });
    const long = await longSessionRss(emu, CLI, 200);
    row({
      name: 'peak RSS: 200-turn interactive session',
      agentx: `${mib(long.rssKb)} (state file ${long.stateBytes.toLocaleString('en')} B)`,
      other: '—',
      ratio: '—',
      target: '< 150 MiB',
      verdict: verdict(long.rssKb < 150 * 1024),
    });
    cleanupDaily();
  });
  // ---- 7. compaction: extra requests and bytes over a 200-turn session, per mechanism --------
  await section('compaction cost', async () => {
    compaction = await compactionBench({ turns: 200, window: 8000 });
    const base = compaction.results[0];
    for (const r of compaction.results.slice(1)) {
      row({
        name: `compaction over 200 turns, 8,000-token window: ${r.name}`,
        agentx: `+${r.requests - base.requests} requests, +${((r.bytesSent - base.bytesSent) / 1024).toFixed(1)} KiB sent, ${r.compactions} compactions, facts kept ${r.factsKept}`,
        other: `no window limit: ${base.requests} requests, ${(base.bytesSent / 1024).toFixed(1)} KiB`,
        ratio: '—',
        target: 'report',
        verdict: 'reported',
      });
    }
  });
} finally {
  emu.stop();
}
const codexConfig = cHome ? readFileSync(join(cHome, 'config.toml'), 'utf8') : '';

function fsOf(dir) {
  const r = spawnSync('df', ['-T', dir], { encoding: 'utf8' });
  return r.status === 0 ? (r.stdout.trim().split('\n')[1]?.split(/\s+/)[1] ?? 'unknown fs') : 'unknown fs';
}

// ---- report ----------------------------------------------------------------------------------
const loadAfter = load();
const uptimeAfter = uptime();
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const cpu = cpus();
const machine = `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch} (${hostname()}), Node ${process.version}`;
const busy = Number(loadBefore.split(',')[0]) > cpu.length * 0.75 || Number(loadAfter.split(',')[0]) > cpu.length * 0.75;
const analysis = existsSync(join(REPO, 'bench/ANALYSIS.md')) ? readFileSync(join(REPO, 'bench/ANALYSIS.md'), 'utf8').trim() : '';
const md = [
  '# Startup, one-shots, tool calls, interactive, state write',
  '',
  `Measured by \`npm run bench\` on ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC (${minutes} min).`,
  '',
  `- Machine: ${machine}`,
  `- \`uptime\` before: \`${uptimeBefore}\`; after: \`${uptimeAfter}\``,
  `- Load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}${busy ? ' — **the machine was busy** (shared with other test runs): absolute times are inflated and noisy; the paired ratios (both sides measured in the same round) are the numbers to read' : ''}.`,
  `- Peer: ${peer.ok ? `${peer.version} (\`@openai/codex@${CODEX_VERSION}\` from npm, installed on demand into bench/.peer; its native binary run directly, without the npm package's Node launcher)` : `unavailable (${peer.reason})`}.`,
  `- Method: ${WARMUP} warm-up runs then ${RUNS} runs per case (startup: ${STARTUP_RUNS}), all cases of a row interleaved in rotating order; median and p10–p90; ratios are median/median with the p10–p90 of the per-round paired ratios. One emulator (dist/emulator.js, loopback, schema-validating) serves both agents; every run must produce the expected answer.`,
  '',
  '| case | agentx | peer / reference | ratio | target | verdict |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.agentx} | ${r.other} | ${r.ratio} | ${r.target} | ${r.verdict} |`),
  '',
  ...notes.map((n) => `- ${n}`),
  '',
  peer.ok
    ? [
        'Codex runs as `codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --color never "…" </dev/null` (one-shots) and as its TUI (interactive rows), with a fresh `CODEX_HOME/config.toml`:',
        '',
        '```toml',
        codexConfig.replace(/base_url = ".*"/, 'base_url = "http://127.0.0.1:<port>/v1"').trim(),
        '```',
      ].join('\n')
    : '',
  '',
  '',
  analysis,
].join('\n');
writeBenchSection('main', md.replace(/\n{3,}/g, '\n\n'));
if (compaction) writeBenchSection('compaction', compactionSection(compaction, machine, `${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`));
process.stdout.write(`${md}\n`);
// Codex keeps its sessions and sqlite state under each CODEX_HOME: remove what this run made.
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
