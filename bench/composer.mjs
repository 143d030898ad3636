// The composer's latency (issue 26, "Done when"): `node bench/composer.mjs [--write]`.
// 1. Keystroke to paint in a real pty: agentx's REPL against the bundled emulator, one key
//    written, the time until the terminal receives the redraw; with an empty composer and with a
//    100-line message in it, the status line shown. Includes the pty's own transport.
// 2. The same keystroke inside the process (reduce → frame → screen diff), no pty.
// 3. The `@` finder over a git tree of COMPOSER_FILES files (default 100,000): the time to the
//    first ranked results while the list streams in, the whole list (index, then untracked files),
//    the fuzzy ranking, and the ranking alone per typed character.
// Prints a Markdown report; --write also puts it into BENCHMARKS.md (section bench:composer).
// BENCH_KEYS (default 300) keystrokes per pty case. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import { REPO, bundleForBench, fmt, load, startEmulatorProcess, writeBenchSection } from './lib.mjs';

const KEYS = Math.max(20, Number(process.env.BENCH_KEYS ?? 300));
const scratch = [];
const tmp = (name) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `agentx-composer-${name}-`)));
  scratch.push(dir);
  return dir;
};
const ms = (v) => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : fmt(v));
const row = (s) => `${ms(s.median)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.max)}`;

function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { median: q(0.5), p90: q(0.9), p99: q(0.99), max: s.at(-1) ?? 0 };
}

async function inProcess() {
  const dir = tmp('run');
  const out = join(dir, 'composer-run.mjs');
  await bundleForBench(out, { entry: join(REPO, 'bench/composer-run.ts'), cjs: true });
  const r = spawnSync(process.execPath, [out], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20, timeout: 600_000, env: process.env });
  if (r.status !== 0) throw new Error(`composer-run failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout);
}

/** Keystroke → first bytes of the redraw, in a pty, with `lines` lines already in the composer. */
async function ptyKeystrokes(baseUrl, lines) {
  const home = tmp('home');
  const cwd = tmp('cwd');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    SHELL: '/bin/sh',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    AGENTX_BASE_URL: baseUrl,
    AGENTX_API_KEY: 'bench-key',
  };
  const p = pty.spawn(process.execPath, [join(REPO, 'bin/agentx.js')], { name: 'xterm-256color', cols: 120, rows: 40, cwd, env });
  let waiter;
  let seen = '';
  p.onData((d) => {
    seen += d;
    const w = waiter;
    if (w && w.test(seen)) {
      waiter = undefined;
      w.resolve();
    }
  });
  const until = (test, timeoutMs = 20_000) =>
    /** @type {Promise<void>} */ (
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`pty wait timed out; last output: ${seen.slice(-300)}`)), timeoutMs);
        waiter = {
          test,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        if (test(seen)) {
          waiter = undefined;
          clearTimeout(timer);
          resolve();
        }
      })
    );
  try {
    await until((s) => s.includes('network off'));
    for (let i = 0; i < lines; i++) {
      seen = '';
      // One line and Ctrl-J, one write each (a chunk with a newline inside would read as a paste).
      p.write(`line ${i} of a long message`);
      await until((s) => s.includes(`line ${i} of`));
      seen = '';
      p.write('\n');
      await until((s) => s.length > 0);
    }
    await new Promise((r) => setTimeout(r, 200));
    const samples = [];
    for (let i = 0; i < KEYS; i++) {
      seen = '';
      const t0 = process.hrtime.bigint();
      p.write('x');
      await until((s) => s.includes('x'));
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return summary(samples.slice(10));
  } finally {
    p.kill();
  }
}

const emu = await startEmulatorProcess(join(REPO, 'dist/emulator.js'));
try {
  const ptyEmpty = await ptyKeystrokes(emu.baseUrl, 0);
  const ptyFull = await ptyKeystrokes(emu.baseUrl, 100);
  const inside = await inProcess();
  const f = inside.finder;
  const md = [
    '## Composer: keystroke latency and the `@` finder',
    '',
    `\`node bench/composer.mjs --write\`. Machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}, load average ${load()} (shared).`,
    `Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    '| case | median | p90 | p99 | max |',
    '| --- | --- | --- | --- | --- |',
    `| pty: key → redraw received, empty composer, status line (${KEYS - 10} keys) | ${row(ptyEmpty)} |`,
    `| pty: key → redraw received, 100-line composer, status line | ${row(ptyFull)} |`,
    `| in process: reduce + frame + screen diff, empty composer (${inside.keys} keys) | ${row(inside.empty)} |`,
    `| in process: reduce + frame + screen diff, 100-line composer | ${row(inside.full)} |`,
    `| \`@\` finder: first ranked results while listing ${f.files.toLocaleString('en-US')} files (git's index streams in; median ${Math.round(f.firstFiles.median).toLocaleString('en-US')} paths by then) | ${row(f.first)} |`,
    `| \`@\` finder: the whole list (index, then untracked files), ${f.files.toLocaleString('en-US')} files | ${row(f.list)} |`,
    `| \`@\` finder: fuzzy ranking of ${f.files.toLocaleString('en-US')} paths, one query | ${row(f.rank)} |`,
    `| \`@\` finder: ranking per typed character (10 growing queries) | ${row(f.perKey)} |`,
    '',
    "Reading it: the in-process rows are what agentx adds per key; the pty rows add the kernel's",
    "pty round trip and Node's event loop on a shared machine. The finder's list is read from the",
    "REPL's start, in the background, then again at most once per 30 s (the old list shown meanwhile);",
    "while the first read runs, the part known so far is offered, git's index first. So a typed",
    'character after `@` pays only the ranking row.',
    '',
    `Against issue 26's targets: keystroke to echo ≤ 1 ms — median ${ms(ptyEmpty.median)} / ${ms(ptyFull.median)} in the pty, ${ms(inside.full.median)} in process with 100 lines;`,
    `the tails (p99) are the shared machine's scheduling. "The finder lists 100k files in < 200 ms": first`,
    `results after ${ms(f.first.median)} (median; p90 ${ms(f.first.p90)}) from the start of the listing — and the listing starts`,
    `with the REPL, so by the time \`@\` is typed it is usually whole (${ms(f.list.median)} here on this loaded machine).`,
  ].join('\n');
  process.stdout.write(`${md}\n`);
  if (process.argv.includes('--write')) writeBenchSection('composer', md);
} finally {
  emu.stop();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
}
