// The order in which `vitest run` starts the test files (vitest.config.ts, `sequence.sequencer`).
//
// Vitest's own order puts every file of the 'isolated' project before every file of 'shared',
// each part longest first (by the last run's durations in the results cache). Two workers take
// files from that one queue, so the long end-to-end files of 'shared' (30–45 s each) started
// only after the last short unit file of 'isolated', and the run ended with one worker busy on
// them and the other idle. Here the files known to take long start first, longest first, whatever
// their project; the rest keep vitest's order, which keeps the short 'shared' files one after
// another, so they go on reusing one worker and its module cache (vitest keeps a shared worker
// only while the next file in the queue is of the same project).
//
// `--sequence.shuffle` still shuffles the files (a configured sequencer replaces vitest's random
// one), with vitest's seed, so the check that vitest.config.ts asks for keeps working.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file that took at least this long in the last run goes to the front of the queue. */
const LONG_MS = 5_000;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { sequence, root } = this.ctx.config;
    if (sequence.shuffle) return shuffled(files, sequence.seed);
    const base = await super.sort(files);
    const lastDuration = (spec: TestSpecification): number => {
      // The results cache's key, as vitest's own sequencer forms it.
      const result = this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`);
      return result === undefined || result.failed ? 0 : result.duration;
    };
    const long = base.filter((spec) => lastDuration(spec) >= LONG_MS).sort((a, b) => lastDuration(b) - lastDuration(a));
    return [...long, ...base.filter((spec) => !long.includes(spec))];
  }
}

/** Fisher–Yates with mulberry32, repeatable for one seed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
