// Shared helpers for benchmarks: timed runs of whole commands (wall time and peak RSS), paired
// statistics, the emulator process.
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const TIME = '/usr/bin/time';
export const HAVE_TIME = existsSync(TIME);

export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
  return { n: s.length, median: q(0.5), p10: q(0.1), p90: q(0.9), min: s[0], max: s[s.length - 1] };
}

/**
 * One run of a command: wall time in ms and, with `rss`, its peak resident set (KiB) from
 * GNU time -v (the largest process of the tree). stdin is /dev/null, as for `… </dev/null`.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }} [opts]
 * @param {{ rss?: boolean, check?: (stdout: string, stderr: string) => boolean }} [how]
 */
export function runOnce(cmd, args, opts = {}, { rss = false, check } = {}) {
  const [file, argv] = rss && HAVE_TIME ? [TIME, ['-v', cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 2 ** 20, timeout: 120_000, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(-2000)}`);
  if (check && !check(r.stdout, r.stderr))
    throw new Error(`${cmd} ${args.join(' ')}: unexpected output\nstdout: ${r.stdout.slice(-1000)}\nstderr: ${r.stderr.slice(-1000)}`);
  const m = rss ? /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr) : null;
  return { ms, rssKb: m ? Number(m[1]) : null };
}

/**
 * One case of `interleave`: a command, how it runs, what its output must say, and what to do first.
 * @typedef {{ name: string, cmd: string, args: string[], opts?: { cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }, check?: (stdout: string, stderr: string) => boolean, before?: () => unknown }} BenchCase
 */

/**
 * Runs several cases interleaved, in a rotating order (a b c, b c a, c a b, …), so machine noise
 * and position effects hit all of them alike. Returns per case { ms: [], rssKb: [] } in run order,
 * so sample i of two cases comes from the same round (paired ratios).
 */
/**
 * @param {BenchCase[]} cases
 * @param {{ runs?: number, warmup?: number, rss?: boolean, label?: string }} [how]
 */
export async function interleave(cases, { runs = 15, warmup = 3, rss = false, label = '' } = {}) {
  /** @type {Record<string, { ms: number[], rssKb: number[] }>} */
  const out = Object.fromEntries(cases.map((c) => [c.name, { ms: [], rssKb: [] }]));
  const rounds = warmup + runs;
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(i + k) % cases.length];
      await c.before?.();
      const r = runOnce(c.cmd, c.args, c.opts, { rss, check: c.check });
      if (i >= warmup) {
        out[c.name].ms.push(r.ms);
        if (r.rssKb !== null) out[c.name].rssKb.push(r.rssKb);
      }
    }
    if (label) process.stderr.write(`\r  ${label}: round ${i + 1}/${rounds}${i < warmup ? ' (warm-up)' : ''}   `);
  }
  if (label) process.stderr.write('\n');
  return out;
}

/** Median and p10–p90 of the per-round ratios a[i]/b[i] (both from the same round). */
export function pairedRatio(a, b) {
  return stats(a.map((x, i) => x / b[i]));
}

export function load() {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
}

export async function startEmulatorProcess(script = join(REPO, 'dist/emulator.js'), extraArgs = []) {
  const child = spawn(process.execPath, [script, ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const baseUrl = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      if (line.startsWith('EMULATOR_URL=')) resolve(line.slice('EMULATOR_URL='.length));
    });
    child.on('exit', (code) => reject(new Error(`emulator exited (${code})`)));
  });
  const root = new URL(baseUrl.replace(/\/v1$/, ''));
  /**
   * One control call on a fresh connection, closed after it. Not fetch: undici keeps the socket of
   * the last call alive in a pool, and the bench blocks its event loop for seconds in spawnSync
   * (whole one-shots); the emulator closes an idle socket after 5 s (Node's keepAliveTimeout),
   * and a call made right after such a block could be written to that closed socket before the
   * client saw the close: "fetch failed" (UND_ERR_SOCKET other side closed), seen under load in
   * the daily-use and tool-call sections.
   */
  const call = (method, path, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        {
          host: root.hostname,
          port: root.port,
          path,
          method,
          agent: false,
          headers: data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`emulator ${path}: ${res.statusCode} ${text}`));
            else resolve(text);
          });
          res.on('error', reject);
        },
      );
      req.on('error', (err) => {
        const state = child.exitCode === null && child.signalCode === null ? 'running' : `exited ${child.exitCode ?? child.signalCode}`;
        reject(new Error(`emulator ${path}: ${/** @type {NodeJS.ErrnoException} */ (err).code ?? ''} ${err.message} (emulator ${state})`, { cause: err }));
      });
      req.end(data);
    });
  const post = async (path, body) => {
    await call('POST', path, body);
  };
  return {
    baseUrl,
    /** @returns {Promise<any[]>} what the emulator received (its request log) */
    async requests() {
      return JSON.parse(await call('GET', '/__emulator/requests'));
    },
    reset: () => post('/__emulator/reset'),
    enqueue: (steps) => post('/__emulator/enqueue', steps),
    stop() {
      child.kill('SIGTERM');
    },
  };
}

/** agentx's REPL is ready: its `>` prompt, with the status line ("… context left") drawn below it. */
export const AGENTX_READY = /> \s*(?:\r?\n[^\n]*context left[^\n]*\s*)?$/;

/**
 * Bundles agentx's TypeScript into one ES module for a bench: `entry`, a file of the repo, or
 * `exports`, lines such as `export { x } from './src/…'` bundled from the repo root. `cjs` gives
 * the bundle a `require` for the CommonJS it pulls in. esbuild is loaded here, on first use.
 * @param {string} outfile
 * @param {{ entry?: string, exports?: string[], external?: string[], cjs?: boolean, logLevel?: 'warning' | 'error' }} what
 * @returns {Promise<string>} outfile
 */
export async function bundleForBench(outfile, { entry, exports = [], external = [], cjs = false, logLevel = 'warning' }) {
  const { build } = await import('esbuild');
  await build({
    ...(entry !== undefined ? { entryPoints: [entry] } : { stdin: { contents: exports.join('\n'), resolveDir: REPO, loader: 'ts' } }),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel,
    external,
    ...(cjs ? { banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" } } : {}),
  });
  return outfile;
}

export const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
export const mib = (kb) => `${(kb / 1024).toFixed(1)} MiB`;
export const x = (r) => `${r.toFixed(2)}×`;

/**
 * Puts one benchmark's report into its own section of BENCHMARKS.md, between
 * `<!-- bench:ID -->` and `<!-- /bench:ID -->`, leaving every other section as it is (appended
 * at the end the first time). Headings move one level down: each report is a section of the file.
 */
export function writeBenchSection(id, markdown) {
  const file = join(REPO, 'BENCHMARKS.md');
  const body = markdown.trim().replace(/^(#+) /gm, '#$1 ');
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const block = `${start}\n${body}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text = a >= 0 && b > a ? `${text.slice(0, a)}${block}${text.slice(b + end.length)}` : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}
