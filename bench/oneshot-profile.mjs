// `node bench/oneshot-profile.mjs`: where the time of a plain one-shot goes (issue 15, item 9).
// Builds an unminified copy of the CLI (as it ships, names kept so profiles read), starts the emulator, and runs PROFILE_RUNS one-shots (`agentx "hello"`, stdin
// /dev/null, empty HOME) twice over: once plain for the wall clock and CPU time (interleaved
// with `node -e 0`), once under --cpu-prof with bench/phase-trace.mjs preloaded. Prints a
// Markdown report: wall-clock phases and CPU by phase (BENCHMARKS.md holds one).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli } from '../scripts/build-cli.mjs';
import { REPO, fmt, load, startEmulatorProcess, stats } from './lib.mjs';

const RUNS = Math.max(3, Number(process.env.PROFILE_RUNS ?? 20));
const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-profile-')));
const out = join(root, 'pkg');
// The CLI as it ships (scripts/build-cli.mjs: one script, started by bin/agentx.js with its V8 code
// cache), unminified with names kept so profiles read; the warm-up runs write the cache.
await buildCli({ outFile: join(out, 'dist/agentx.cjs'), version: JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version, minify: false });
cpSync(join(REPO, 'bin'), join(out, 'bin'), { recursive: true });
const cli = join(out, 'bin/agentx.js');
const emu = await startEmulatorProcess();
const home = join(root, 'home');
const cwd = join(root, 'project');
spawnSync('mkdir', ['-p', home, cwd]);
const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', LANG: 'C.UTF-8', AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'profile-key' };

/** Wall ms of one command (through `sh -c exec`, as for the CPU runs below). */
function timed(cmd, args, extraEnv = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/bin/sh', ['-c', 'exec "$@"', 'sh', cmd, ...args], {
    cwd,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return { wall, stdout: r.stdout };
}

/** CPU of a child via GNU time's format (user + sys seconds), when /usr/bin/time exists. */
function cpuOf(cmd, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', cmd, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  return m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
}

// ---- 1. wall and CPU, interleaved with the `node -e 0` floor ------------------------------
/** @type {{ node: number[], agentx: number[] }} */
const wall = { node: [], agentx: [] };
/** @type {{ node: number[], agentx: number[] }} */
const cpu = { node: [], agentx: [] };
for (let i = 0; i < RUNS + 3; i++) {
  const n = timed(process.execPath, ['-e', '0']);
  const a = timed(process.execPath, [cli, 'hello']);
  if (!a.stdout.includes('You said: hello')) throw new Error(`unexpected answer: ${a.stdout}`);
  if (i < 3) continue;
  wall.node.push(n.wall);
  wall.agentx.push(a.wall);
  cpu.node.push(cpuOf(process.execPath, ['-e', '0']));
  cpu.agentx.push(cpuOf(process.execPath, [cli, 'hello']));
}

// ---- 2. phases: wall-clock marks and a CPU profile per run --------------------------------
const profDir = join(root, 'prof');
const marks = [];
for (let i = 0; i < RUNS; i++) {
  const trace = join(root, `trace-${i}.json`);
  timed(
    process.execPath,
    ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '200', '--import', join(REPO, 'bench/phase-trace.mjs'), cli, 'hello'],
    { AGENTX_PHASE_TRACE: trace },
  );
  marks.push(JSON.parse(readFileSync(trace, 'utf8')));
}
emu.stop();

/** @type {[string, (m: Record<string, number>) => number][]} */
const WALL_PHASES = [
  ['node start → agentx code runs (Node bootstrap, ESM loader)', (m) => m.preload],
  ['agentx start → request sent (module load, config, checkpoint, first state write, request build)', (m) => m.requestStart - m.preload],
  ['request sent → connected', (m) => m.connected - m.requestStart],
  ['connected → response headers (the emulator)', (m) => m.headers - m.connected],
  ['headers → stream end (SSE events, rendering)', (m) => m.responseEnd - m.headers],
  ['stream end → exit (final state write, state file removed, exit)', (m) => m.exit - m.responseEnd],
];

/**
 * CPU phases, tested on the whole stack of a sample in order; the first rule that matches wins.
 * @type {[string, (names: string[], urls: string[], tops: boolean) => boolean][]}
 */
const CPU_RULES = [
  ['idle (waiting for the server or I/O)', (names) => names.includes('(idle)')],
  ['garbage collection', (names) => names.includes('(garbage collector)')],
  ['state writes (saveState, rename, unlink)', (names) => names.some((n) => /^(saveState|writeFileAtomicSync|persist|rmSync|unlinkSync|renameSync)$/.test(n))],
  ['exit', (names) => names.some((n) => /^(exit|reallyExit|emitExit)$/.test(n))],
  ['undici (FormData/Headers/Response globals)', (names, urls) => urls.some((u) => u.includes('undici'))],
  [
    'module loading (compile, link, evaluate)',
    (names, urls, tops) =>
      tops ||
      names.some((n) =>
        /^(compileForInternalLoader|requireBuiltin|compileSourceTextModule|loadAndTranslate|getModuleJobForImport|moduleStrategy|link|instantiate|evaluate|compileForPublicLoader|defaultLoad|defaultResolve)$/.test(
          n,
        ),
      ),
  ],
  [
    'config, flags, stdin, checkpoint',
    (names) =>
      names.some((n) =>
        /^(parseArgs|resolveConfig|resolveLimits|readConfigFile|composeMessage|messageFromInput|readPipedInput|loadCheckpointWithNotices|pickTheme)$/.test(n),
      ),
  ],
  [
    'request build (SDK client, headers, body)',
    (names) =>
      names.some((n) => /^(createTurnDeps|createOpenAIClient|buildInstructions|buildHeaders|buildBody|buildRequest|authHeaders|prepareOptions)$/.test(n)) &&
      !names.includes('nodeFetch'),
  ],
  [
    'HTTP send and receive (node:http)',
    (names, urls) => names.includes('nodeFetch') || names.includes('send') || urls.some((u) => /^node:(_http|http|net)/.test(u)),
  ],
  [
    'stream parsing and events (SSE, engine, renderer)',
    (names) => names.some((n) => /^(_iterSSEMessages|iterSSEChunks|stream|turnLoop|streamOnce|handle|emit)$/.test(n)),
  ],
  ['other (event loop, Node internals)', () => true],
];

function cpuPhases(file) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map();
  p.samples.forEach((sample, i) => {
    const names = [];
    const urls = [];
    // A module's top-level code (line 0, column 0 of a bundle file) running: its evaluation.
    let tops = false;
    for (let id = sample; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      names.push(f.functionName || '(top)');
      urls.push(f.url);
      if (!f.functionName && f.lineNumber === 0 && f.columnNumber === 0 && f.url.startsWith('file:') && f.url.includes('agentx-profile-')) tops = true;
    }
    const rule = CPU_RULES.find(([, test]) => test(names, urls, tops));
    if (rule === undefined) throw new Error('no CPU phase rule matched (the last one matches every sample)');
    const [phase] = rule;
    totals.set(phase, (totals.get(phase) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return totals;
}
const perRun = readdirSync(profDir).map((f) => cpuPhases(join(profDir, f)));

// ---- report -------------------------------------------------------------------------------
const med = (xs) => stats(xs).median;
const lines = [
  `Plain one-shot (\`agentx "hello"\` against dist/emulator.js on loopback), ${RUNS} runs after 3 warm-up; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load()}, ${new Date().toISOString().slice(0, 16)} UTC.`,
  '',
  '| measure | `node -e 0` | agentx one-shot | ratio |',
  '|---|---|---|---|',
  `| wall, median (p10–p90) | ${fmt(med(wall.node))} (${fmt(stats(wall.node).p10)}–${fmt(stats(wall.node).p90)}) | ${fmt(med(wall.agentx))} (${fmt(stats(wall.agentx).p10)}–${fmt(stats(wall.agentx).p90)}) | **${(med(wall.agentx) / med(wall.node)).toFixed(2)}×** (paired median ${(med(wall.agentx.map((a, i) => a / wall.node[i]))).toFixed(2)}×) |`,
  `| CPU (user + sys), median | ${fmt(med(cpu.node))} | ${fmt(med(cpu.agentx))} | ${(med(cpu.agentx) / med(cpu.node)).toFixed(2)}× |`,
  '',
  'Wall-clock phases (medians of the traced runs; the profiler slows the traced runs a little):',
  '',
  '| phase | median | p10–p90 |',
  '|---|---|---|',
  ...WALL_PHASES.map(([name, f]) => {
    const s = stats(marks.map(f));
    return `| ${name} | ${fmt(s.median)} | ${fmt(s.p10)}–${fmt(s.p90)} |`;
  }),
  '',
  'CPU samples by phase (--cpu-prof, 200 µs interval; medians per run, whole process):',
  '',
  '| phase | CPU per run |',
  '|---|---|',
  ...CPU_RULES.map(([name]) => `| ${name} | ${fmt(med(perRun.map((t) => t.get(name) ?? 0)))} |`),
];
process.stdout.write(`${lines.join('\n')}\n`);
rmSync(root, { recursive: true, force: true });
