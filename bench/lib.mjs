// Shared helpers for benchmarks: timed runs of whole commands, stats, the emulator process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(REPO, 'bin/agentx.js');

export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
  return { n: s.length, median: q(0.5), p10: q(0.1), p90: q(0.9), min: s[0], max: s[s.length - 1] };
}

/** Wall time of one run of a command, in ms. */
export function timeOnce(cmd, args, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/**
 * Runs several commands interleaved (a, b, a, b, …) so that machine noise hits all of them
 * alike; returns samples per name.
 */
export async function interleave(cases, { runs = 20, warmup = 3 } = {}) {
  const out = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const c of cases) {
      await c.before?.();
      const ms = timeOnce(c.cmd, c.args, c.opts);
      if (i >= warmup) out[c.name].push(ms);
    }
  }
  return out;
}

/** Peak RSS (KiB) of a command via /usr/bin/time -v. */
export function peakRssKb(cmd, args, opts = {}) {
  if (!existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts });
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return m ? Number(m[1]) : null;
}

export async function startEmulatorProcess(extraArgs = []) {
  const child = spawn(process.execPath, [join(REPO, 'dist/emulator.js'), ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const baseUrl = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => { if (line.startsWith('EMULATOR_URL=')) resolve(line.slice('EMULATOR_URL='.length)); });
    child.on('exit', (code) => reject(new Error(`emulator exited (${code})`)));
  });
  return {
    baseUrl,
    async requests() { return (await fetch(`${baseUrl.replace(/\/v1$/, '')}/__emulator/requests`)).json(); },
    async reset() { await fetch(`${baseUrl.replace(/\/v1$/, '')}/__emulator/reset`, { method: 'POST' }); },
    async enqueue(steps) { await fetch(`${baseUrl.replace(/\/v1$/, '')}/__emulator/enqueue`, { method: 'POST', body: JSON.stringify(steps), headers: { 'content-type': 'application/json' } }); },
    stop() { child.kill('SIGTERM'); },
  };
}

export const fmt = (ms) => `${ms.toFixed(1)} ms`;
export const ratio = (a, b) => (a / b).toFixed(2);
