// Startup and paste costs of the terminal work (issue 14 §3, issue 15 §5–6), side by side with an
// earlier build: `node bench/termui.mjs [BASE_DIR]`, where BASE_DIR holds a build of the commit
// before (bin/agentx.js + dist/). Without it only this build is measured. Prints a Markdown
// report on stdout (BENCHMARKS.md keeps one). BENCH_RUNS (default 20) runs per case.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import { REPO, fmt, interleave, load, startEmulatorProcess, stats } from './lib.mjs';

const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 20));
const BASE = process.argv[2];
const scratch = [];
const tmp = (name) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `agentx-termui-${name}-`)));
  scratch.push(dir);
  return dir;
};

const builds = [{ name: 'this build', cli: join(REPO, 'bin/agentx.js') }];
if (BASE) builds.unshift({ name: 'before', cli: join(BASE, 'bin/agentx.js') });

const emu = await startEmulatorProcess(join(REPO, 'dist/emulator.js'));
const home = tmp('home');
const env = {
  PATH: process.env.PATH,
  HOME: home,
  SHELL: '/bin/sh',
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  AGENTX_BASE_URL: emu.baseUrl,
  AGENTX_API_KEY: 'bench-key',
};
const MARKDOWN =
  '# Result\n\nSome **bold** text, `code` and a list:\n\n- one\n- two\n\n```ts\nconst x: number = 1;\nfunction f(a: string) { return a; }\n```\n';
const rows = [];
const spread = (s) => `${fmt(s.median)} (p10 ${fmt(s.p10)}, p90 ${fmt(s.p90)})`;

// ---- process startup: --version and a one-shot to a pipe -----------------------------------
{
  const cwd = tmp('pipe');
  const cases = [{ name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'], opts: { cwd, env } }];
  for (const b of builds) {
    cases.push({ name: `${b.name}: --version`, cmd: process.execPath, args: [b.cli, '--version'], opts: { cwd, env } });
    cases.push({
      name: `${b.name}: one-shot to a pipe`,
      cmd: process.execPath,
      args: [b.cli, 'hello'],
      opts: { cwd, env },
      check: (out) => out.includes('You said: hello'),
    });
  }
  const r = await interleave(cases, { runs: RUNS, label: 'startup' });
  for (const c of cases) rows.push([c.name, spread(stats(r[c.name].ms))]);
}

// ---- a one-shot on a terminal (pty): Markdown rendering vs --raw ------------------------------
function ptyOneshot(cli, args, cwd) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = pty.spawn(process.execPath, [cli, ...args], { name: 'xterm-256color', cols: 120, rows: 40, cwd, env });
    let out = '';
    p.onData((d) => {
      out += d;
    });
    const timer = setTimeout(() => {
      p.kill();
      reject(new Error(`pty one-shot timed out: ${out}`));
    }, 30_000);
    p.onExit(({ exitCode }) => {
      clearTimeout(timer);
      if (exitCode !== 0) reject(new Error(`exit ${exitCode}: ${out}`));
      else resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, out });
    });
  });
}
{
  const cwd = tmp('tty');
  const cases = builds.flatMap((b) => [
    { name: `${b.name}: one-shot on a terminal${b.name === 'before' ? '' : ', Markdown'}`, cli: b.cli, args: ['show'] },
    ...(b.name === 'before' ? [] : [{ name: `${b.name}: one-shot on a terminal, --raw`, cli: b.cli, args: ['--raw', 'show'] }]),
  ]);
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let i = 0; i < RUNS + 3; i++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(i + k) % cases.length];
      await emu.enqueue([{ kind: 'text', text: MARKDOWN, chunks: 6 }]);
      const r = await ptyOneshot(c.cli, c.args, cwd);
      if (i >= 3) samples[c.name].push(r.ms);
    }
    process.stderr.write(`\r  terminal one-shots: round ${i + 1}/${RUNS + 3}   `);
  }
  process.stderr.write('\n');
  for (const c of cases) rows.push([c.name, spread(stats(samples[c.name]))]);
}

// ---- paste into the REPL: bracketed paste of N KB until the request reaches the server ------
// At the second prompt: the first one did not show the quadratic cost (issue 15).
async function pasteOnce(cli, kb, timeoutMs) {
  const cwd = tmp('paste');
  const p = pty.spawn(process.execPath, [cli], { name: 'xterm-256color', cols: 160, rows: 50, cwd, env });
  let out = '';
  p.onData((d) => {
    out += d;
  });
  const waitFor = async (re) => {
    const deadline = Date.now() + 20_000;
    while (!re.test(out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''))) {
      if (Date.now() > deadline) throw new Error(`waiting for ${re}: ${out}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    await waitFor(/> $/);
    p.write('first');
    p.write('\r');
    await waitFor(/You said: first[\s\S]*> $/);
    const before = (await emu.requests()).length;
    const line = 'pasted text for the benchmark, line ';
    const text = Array.from({ length: Math.ceil((kb * 1024) / (line.length + 6)) }, (_, i) => `${line}${i}`)
      .join('\n')
      .slice(0, kb * 1024);
    const t0 = process.hrtime.bigint();
    p.write(`\x1b[200~${text}\x1b[201~`);
    p.write('\r');
    for (;;) {
      if ((await emu.requests()).length > before) return Number(process.hrtime.bigint() - t0) / 1e6;
      if (Number(process.hrtime.bigint() - t0) / 1e6 > timeoutMs) return null;
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    p.kill('SIGKILL');
  }
}
for (const b of builds) {
  for (const kb of b.name === 'before' ? [5, 10, 20] : [5, 10, 20, 100, 1024]) {
    const ms = [];
    for (let i = 0; i < 3; i++) ms.push(await pasteOnce(b.cli, kb, 120_000));
    const done = ms.filter((m) => m !== null);
    rows.push([
      `${b.name}: paste ${kb >= 1024 ? `${kb / 1024} MB` : `${kb} KB`} at the second prompt → request sent`,
      done.length === ms.length ? spread(stats(done)) : `over 120 s (${done.length}/3 finished)`,
    ]);
    process.stderr.write(`  paste ${b.name} ${kb} KB: ${ms.map((m) => (m === null ? '>120s' : fmt(m))).join(', ')}\n`);
  }
}

emu.stop();
for (const d of scratch) rmSync(d, { recursive: true, force: true });
const cpu = cpus();
console.log(
  [
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM (${hostname()}), Node ${process.version}; load average at the end ${load()}.`,
    `Date: ${new Date().toISOString()}. Runs per case: ${RUNS} (3 for pastes), interleaved; median (p10, p90).`,
    '',
    '| case | wall time |',
    '| --- | --- |',
    ...rows.map(([a, b]) => `| ${a} | ${b} |`),
  ].join('\n'),
);
