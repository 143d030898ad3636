// `node bench/mcp.mjs`: what MCP support costs, written to its section of BENCHMARKS.md.
// 1. Startup without MCP, before and after: `agentx --version` and a plain one-shot, for the
//    build of this checkout and of a base commit (BENCH_MCP_BASE, default: merge-base with
//    main), interleaved so machine noise hits both alike.
// 2. `agentx mcp list` with no server and with one stdio server (the whole CLI: load the SDK
//    chunk, start the server, list, stop).
// 3. In one process (bench/mcp-probe.ts, bundled like the CLI): loading the SDK, starting one
//    stdio server, and the round trip of a trivial tool call.
// BENCH_RUNS (default 15) runs per case after 3 warm-up runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO, bundleForBench, fmt, interleave, load, startEmulatorProcess, stats, writeBenchSection } from './lib.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 3;
const PROBES = Math.max(3, Math.round(RUNS / 2));
const log = (m) => process.stderr.write(`${m}\n`);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-bench-mcp-')));
const git = (...args) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
const loadBefore = load();

// ---- the two builds: this checkout and the base commit ------------------------------------------
function buildTree(dir) {
  const r = spawnSync('node', ['scripts/build.mjs'], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`build failed in ${dir}`);
}
const base = process.env.BENCH_MCP_BASE ?? git('merge-base', 'HEAD', 'main');
const head = git('rev-parse', '--short', 'HEAD');
const baseDir = join(scratch, 'base');
mkdirSync(baseDir);
log(`base ${base.slice(0, 7)}: exporting and building…`);
execFileSync('sh', ['-c', `git archive ${base} | tar -x -C "${baseDir}"`], { cwd: REPO });
symlinkSync(join(REPO, 'node_modules'), join(baseDir, 'node_modules'));
buildTree(baseDir);
log('this checkout: building…');
buildTree(REPO);
// Private copies, so a rebuild in the checkout during the run cannot mix two builds.
const pkg = (from, name) => {
  const dir = join(scratch, name);
  cpSync(join(from, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(from, 'bin'), join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  return join(dir, 'bin/agentx.js');
};
const CLI = { base: pkg(baseDir, 'pkg-base'), head: pkg(REPO, 'pkg-head') };

const emu = await startEmulatorProcess(join(REPO, 'dist/emulator.js'));
const home = join(scratch, 'home');
const project = join(scratch, 'project');
mkdirSync(home);
mkdirSync(project);
const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', LANG: 'C.UTF-8', AGENTX_BASE_URL: emu.baseUrl, AGENTX_API_KEY: 'bench-key' };
const says = (text) => (stdout) => stdout.includes(text);
const run = (cli, args, check, extraEnv = {}) => ({ cmd: process.execPath, args: [cli, ...args], opts: { cwd: project, env: { ...env, ...extraEnv } }, check });
const median = (xs) => stats(xs).median;
const spread = (xs) => {
  const s = stats(xs);
  return `${fmt(s.median)} (p10 ${fmt(s.p10)}, p90 ${fmt(s.p90)})`;
};
const rows = [];

try {
  log('== startup without MCP');
  const s = await interleave(
    [
      { name: 'versionBase', ...run(CLI.base, ['--version'], says('agentx ')) },
      { name: 'versionHead', ...run(CLI.head, ['--version'], says('agentx ')) },
      { name: 'oneshotBase', ...run(CLI.base, ['hello'], says('You said: hello')) },
      { name: 'oneshotHead', ...run(CLI.head, ['hello'], says('You said: hello')) },
    ],
    { runs: RUNS, warmup: WARMUP, label: 'startup' },
  );
  rows.push(['`agentx --version`', spread(s.versionBase.ms), spread(s.versionHead.ms)]);
  rows.push(['plain one-shot (`agentx hello`, emulator)', spread(s.oneshotBase.ms), spread(s.oneshotHead.ms)]);

  log('== agentx mcp list');
  const server = join(REPO, 'test/mcp/servers/stdio-server.mjs');
  const withServer = join(scratch, 'xdg-one');
  mkdirSync(join(withServer, 'agentx'), { recursive: true });
  writeFileSync(
    join(withServer, 'agentx', 'mcp.json'),
    JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [server, 'serve', 'bench', 'echo'] } } }),
  );
  const l = await interleave(
    [
      { name: 'none', ...run(CLI.head, ['mcp', 'list'], says('No MCP servers')) },
      { name: 'one', ...run(CLI.head, ['mcp', 'list'], says('1 tool'), { XDG_CONFIG_HOME: withServer }) },
    ],
    { runs: RUNS, warmup: WARMUP, label: 'mcp list' },
  );

  log('== in-process probe');
  const probe = join(scratch, 'probe.mjs');
  await bundleForBench(probe, { entry: join(REPO, 'bench/mcp-probe.ts'), logLevel: 'error' });
  const results = [];
  for (let i = 0; i < PROBES; i++) {
    results.push(JSON.parse(execFileSync(process.execPath, [probe, server, '200'], { cwd: project, env, encoding: 'utf8' })));
    process.stderr.write(`\r  probe ${i + 1}/${PROBES}   `);
  }
  process.stderr.write('\n');
  const calls = results.flatMap((r) => r.callMs.slice(10));

  const cpu = cpus();
  const machine = `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch} (${hostname()}), Node ${process.version}`;
  const md = [
    '# MCP benchmarks',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}; load average ${loadBefore} at the start (the machine is shared).`,
    `\`node bench/mcp.mjs\`, ${RUNS} runs per case after ${WARMUP} warm-ups, interleaved; medians with p10–p90. Base build: ${base.slice(0, 7)}; this build: ${head}.`,
    '',
    '## Startup without MCP configured (before → after)',
    '',
    '| case | base | with MCP support |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    'The MCP client (`@modelcontextprotocol/client`) is a separate chunk of the bundle, loaded only when a server is configured;',
    'neither `--version` nor a one-shot without servers loads it.',
    '',
    '## With one stdio server',
    '',
    '| case | time |',
    '|---|---|',
    `| \`agentx mcp list\`, no server configured | ${spread(l.none.ms)} |`,
    `| \`agentx mcp list\`, one stdio server (load SDK, start, list, stop) | ${spread(l.one.ms)} |`,
    `| checking for config files when there are none (\`loadMcpConfig\`, in process) | ${spread(results.map((r) => r.noConfigMs))} |`,
    `| loading the SDK chunk (in process, ${PROBES} processes) | ${spread(results.map((r) => r.sdkMs))} |`,
    `| starting one stdio server: spawn, initialize, tools/list | ${spread(results.map((r) => r.startMs))} |`,
    `| one tool call round trip (\`echo\`), ${calls.length} calls | ${spread(calls)} |`,
    `| close(): stdin closed, server exits, group killed | ${spread(results.map((r) => r.closeMs))} |`,
    '',
    `Added to the time to first prompt by one stdio server: about ${fmt(median(results.map((r) => r.sdkMs)) + median(results.map((r) => r.startMs)))} (SDK load + server start; servers start in parallel, so more servers add little beyond the slowest).`,
    '',
  ].join('\n');
  mkdirSync(join(REPO, 'docs'), { recursive: true });
  writeBenchSection('mcp', md);
  log(md);
} finally {
  emu.stop();
  rmSync(scratch, { recursive: true, force: true });
}
