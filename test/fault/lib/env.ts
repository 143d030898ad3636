// Shared knobs of the fault suite: how many iterations (short in `npm test`, full in
// `npm run fault`), a seeded random source (every report names its seed, so a failure can be
// replayed with FAULT_SEED), and the per-check result files that run.mjs turns into RELIABILITY.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FULL } from '../../support/iterations.ts';

// The size knobs live in test/support, where the fault-style tests beside the code use them too.
export { FULL, iterations } from '../../support/iterations.ts';

/** The seed of the short fault runs in `npm test` (override with FAULT_SEED). */
export const DEFAULT_SEED = 20261203;

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function rngFrom(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedFor(check: string): number {
  const fixed = Number(process.env.FAULT_SEED);
  if (Number.isInteger(fixed)) return fixed >>> 0;
  // `npm test` is repeatable: a fixed seed per check (printed in each report), so a failure in CI
  // replays exactly. The long `npm run fault` explores: a new seed each run (also printed).
  const salt = Math.imul(check.length, 2654435761);
  if (!FULL) return (DEFAULT_SEED ^ salt) >>> 0;
  return (Date.now() ^ (process.pid << 8) ^ salt) >>> 0;
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

export function between(rng: Rng, lo: number, hi: number): number {
  return Math.round(lo + rng() * (hi - lo));
}

export interface CheckReport {
  /** Stable id, also the section order in RELIABILITY.md (`1-crash`, `2-concurrency`, …). */
  id: string;
  title: string;
  /** What one run is, e.g. "SIGKILLed turn, restarted and resumed". */
  unit: string;
  runs: number;
  failures: string[];
  seed?: number;
  durationMs: number;
  /** Counts worth reporting beside the runs (kills by phase, menu choices, files checked…). */
  counts: Record<string, number>;
  notes: string[];
}

/** Collects one check's results; `save` writes them where run.mjs looks (FAULT_REPORT_DIR). */
export class Tally {
  readonly failures: string[] = [];
  readonly counts: Record<string, number> = {};
  readonly notes: string[] = [];
  runs = 0;
  private readonly started = Date.now();

  constructor(
    readonly id: string,
    readonly title: string,
    readonly unit: string,
    readonly seed?: number,
  ) {}

  count(key: string, by = 1): void {
    this.counts[key] = (this.counts[key] ?? 0) + by;
  }

  fail(message: string): void {
    // One line each in the report; the full detail (screens) goes to the test log.
    this.failures.push(message.split('\n')[0] ?? message);
    if (message.includes('\n')) process.stderr.write(`[fault ${this.id}] ${message}\n`);
  }

  /** Runs `check`; a throw is recorded as a failure of this check instead of ending the loop. */
  expect(what: string, ok: boolean, detail = ''): boolean {
    this.count('assertions');
    if (!ok) this.fail(`${what}${detail ? `: ${detail}` : ''}`);
    return ok;
  }

  report(): CheckReport {
    return {
      id: this.id,
      title: this.title,
      unit: this.unit,
      runs: this.runs,
      failures: [...this.failures],
      seed: this.seed,
      durationMs: Date.now() - this.started,
      counts: { ...this.counts },
      notes: [...this.notes],
    };
  }

  save(): CheckReport {
    const report = this.report();
    const dir = process.env.FAULT_REPORT_DIR;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${this.id}.json`), `${JSON.stringify(report, null, 2)}\n`);
    }
    return report;
  }
}
