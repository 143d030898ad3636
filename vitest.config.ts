import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.ts';

/**
 * Test files that may share one worker process and its module cache (`isolate: false`). Isolation
 * costs a fresh process, the vitest runtime and every import again for each file (≈0.7 s of CPU a
 * file on this 2-core machine: 53 unit files took 25.6 s isolated, 7.8 s shared); it buys nothing
 * for a file that keeps no state in the modules it imports. These qualify: the pure leaves (lib, ui, config, usage, cli, the composer, permission
 * rules, patch parsing and its corpus, hosted tools), the workspace snapshots (their only module
 * state is a `git --version` per git executable) and the suites that run agentx in child
 * processes (e2e, emulator, lint, demo), whose tests start their own emulator and sandbox per file.
 *
 * Kept isolated (the default project): whatever imports modules holding process-wide state — the
 * session lock's held tokens and `exit` listener (store), the seal key (store/seal), the shared
 * network namespace holder and sandbox detection (sandbox), the exec manager (tools/exec), refused
 * reasoning settings and HTTPS transports (model), runtime notices (frontends), the engine above
 * them all — and every file that sets process.env. Adding a directory here: run it with
 * `npx vitest run --project shared --sequence.shuffle` a few times first.
 */
const SHARED = [
  'src/lib/**/*.test.ts',
  'src/ui/**/*.test.ts',
  'src/config/**/*.test.ts',
  'src/usage/**/*.test.ts',
  'src/cli/**/*.test.ts',
  'src/frontends/repl/composer/**/*.test.ts',
  'src/tools/permissions/**/*.test.ts',
  'src/tools/patch/**/*.test.ts',
  'src/tools/hosted/**/*.test.ts',
  'src/workspace/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/emulator/**/*.test.ts',
  'test/lint/**/*.test.ts',
  'test/demo/**/*.test.ts',
  'test/patches/**/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default (cores − 1) runs the suite one file at a time on a 2-core machine, yet most
    // files wait on child processes, the emulator, git and bwrap rather than the CPU: two at a
    // time halves the wall time there (≈250 s → ≈135 s) with the same tests.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Two projects, one suite: the files run interleaved in one pool. Vitest would start every
    // 'isolated' file before any 'shared' one; the files that took long in the last run start
    // first whatever their project, so the run does not end on one long file (sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: { name: 'isolated', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SHARED] },
      },
      {
        extends: true,
        test: { name: 'shared', include: SHARED, isolate: false },
      },
    ],
  },
});
