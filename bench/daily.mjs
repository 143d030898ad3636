// Daily-use benchmarks (issue 15): a plain one-shot against `node -e 0`, peak RSS of a one-shot
// whose command prints 1 GiB, and peak RSS of a 200-turn interactive session. bench/run.mjs
// runs these as rows of BENCHMARKS.md; `node bench/daily.mjs [cli.js …]` runs them alone and
// prints the numbers (with several CLIs, e.g. a build before and after a change, the one-shot
// row interleaves all of them in the same rounds).
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from '@lydell/node-pty';
import { AGENTX_READY, HAVE_TIME, REPO, fmt, interleave, load, mib, pairedRatio, runOnce, startEmulatorProcess, stats, x } from './lib.mjs';

const scratch = [];
const tmp = (name) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `agentx-daily-${name}-`)));
  scratch.push(dir);
  return dir;
};
export function cleanupDaily() {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>NOM78c]|\r/g;
const strip = (s) => s.replace(ANSI, '');
const envFor = (emu, home) => ({
  PATH: process.env.PATH,
  HOME: home,
  SHELL: '/bin/sh',
  LANG: 'C.UTF-8',
  AGENTX_BASE_URL: emu.baseUrl,
  AGENTX_API_KEY: 'bench-key',
});

/** Plain one-shots of each CLI interleaved with `node -e 0`: medians, paired ratios. */
export async function oneshotVsNode(emu, clis, { runs = 20, warmup = 3 } = {}) {
  const env = envFor(emu, tmp('home'));
  const cwd = tmp('project');
  const cases = [
    { name: 'node', cmd: process.execPath, args: ['-e', '0'], opts: { env } },
    ...clis.map((cli, i) => ({
      name: `cli${i}`,
      cmd: process.execPath,
      args: [cli, 'hello'],
      opts: { cwd, env },
      check: (out) => out.includes('You said: hello'),
    })),
  ];
  const s = await interleave(cases, { runs, warmup, label: 'one-shot vs node -e 0' });
  const node = s.node.ms;
  return clis.map((cli, i) => {
    const a = s[`cli${i}`].ms;
    return { cli, agentx: stats(a), node: stats(node), ratio: stats(a).median / stats(node).median, paired: pairedRatio(a, node) };
  });
}

/**
 * One plain one-shot in this HOME first, as on any machine where agentx has run before: it writes
 * the V8 code cache (bin/agentx.js), whose first writing and whose absence both cost memory.
 */
function warmCodeCache(cli, env) {
  runOnce(process.execPath, [cli, 'warm up'], { cwd: tmp('warm'), env }, { check: (out) => out.includes('You said') });
}

/** Peak RSS (GNU time) of a one-shot whose one command prints `bytes` bytes; the model asks for no cap. */
export async function hugeOutputRss(emu, cli, bytes = 2 ** 30) {
  if (!HAVE_TIME) return null;
  const env = envFor(emu, tmp('home'));
  warmCodeCache(cli, env);
  await emu.enqueue([{ kind: 'shell', commands: [`yes abcdefgh | head -c ${bytes}`], maxOutputLength: 2_000_000_000 }]);
  const r = runOnce(
    process.execPath,
    [cli, '--no-shell-calls', 'go'],
    { cwd: tmp('project'), env, timeout: 600_000 },
    { rss: true, check: (out) => out.includes('Ran it') },
  );
  return { ms: r.ms, rssKb: r.rssKb };
}

/** Drives the REPL in a pty through `turns` turns; peak RSS (VmHWM) of agentx and the state file size at the end. */
export async function longSessionRss(emu, cli, turns = 200) {
  const cwd = tmp('repl');
  const env = envFor(emu, tmp('home'));
  warmCodeCache(cli, env);
  const p = pty.spawn(process.execPath, [cli], { name: 'xterm-256color', cols: 120, rows: 40, cwd, env: { TERM: 'xterm-256color', ...env } });
  let screen = '';
  const waiters = new Set();
  p.onData((d) => {
    screen += d;
    for (const w of [...waiters]) w();
  });
  const until = (test, what) =>
    /** @type {Promise<void>} */ (
      new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}`));
        }, 60_000);
        const check = () => {
          if (test()) {
            clearTimeout(timer);
            waiters.delete(check);
            resolvePromise();
          }
        };
        waiters.add(check);
        check();
      })
    );
  const started = performance.now();
  try {
    // The prompt with the status line below it (a bare /> $/ never matched once the status line came).
    const prompt = AGENTX_READY;
    await until(() => prompt.test(strip(screen)), 'the prompt');
    for (let n = 1; n <= turns; n++) {
      const mark = screen.length;
      p.write(`turn ${n}: please remember this line of the long session\r`);
      await until(() => {
        const s = strip(screen.slice(mark));
        return s.includes(`You said: turn ${n}:`) && prompt.test(s);
      }, `turn ${n}`);
      if (n % 20 === 0) process.stderr.write(`\r  long session: turn ${n}/${turns}   `);
      // Keep only the tail: the screen is not what is measured.
      if (screen.length > 200_000) screen = screen.slice(-2000);
    }
    process.stderr.write('\n');
    const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
    const stateBytes = statSync(join(cwd, '.agentx_responseid')).size;
    return { turns, rssKb: hwm, stateBytes, ms: performance.now() - started };
  } finally {
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      p.kill('SIGKILL');
    }
  }
}

export function describeDaily({ oneshot, huge, session }) {
  const lines = [];
  for (const o of oneshot ?? []) {
    lines.push(
      `plain one-shot ${o.cli}: ${fmt(o.agentx.median)} vs node -e 0 ${fmt(o.node.median)} → **${x(o.ratio)}** (paired p10–p90 ${x(o.paired.p10)}–${x(o.paired.p90)})`,
    );
  }
  if (huge) lines.push(`1 GiB command output in a one-shot: peak RSS ${mib(huge.rssKb)}, ${fmt(huge.ms)}`);
  if (session)
    lines.push(
      `${session.turns}-turn REPL session: peak RSS ${mib(session.rssKb)}, state file ${session.stateBytes.toLocaleString('en')} B, ${fmt(session.ms)}`,
    );
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const clis = process.argv.length > 2 ? process.argv.slice(2).map((p) => resolve(p)) : [join(REPO, 'bin/agentx.js')];
  const emu = await startEmulatorProcess();
  try {
    process.stderr.write(`load average: ${load()}\n`);
    const oneshot = await oneshotVsNode(emu, clis, { runs: Number(process.env.BENCH_RUNS ?? 20) });
    const huge = process.env.DAILY_SKIP_HUGE ? null : await hugeOutputRss(emu, clis[clis.length - 1]);
    const session = process.env.DAILY_SKIP_SESSION ? null : await longSessionRss(emu, clis[clis.length - 1], Number(process.env.DAILY_TURNS ?? 200));
    process.stdout.write(`${describeDaily({ oneshot, huge, session }).join('\n')}\nload average after: ${load()}\n`);
  } finally {
    emu.stop();
    cleanupDaily();
  }
}
