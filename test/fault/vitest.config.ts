// `npm run fault` (via run.mjs): the fault suite, and the fault-style tests that `npm test` runs
// short, at full size, one file at a time so each check has both cores and its timing means something.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/fault/**/*.test.ts',
      // Fault-style tests kept beside what they test, short in `npm test` (test/support/iterations.ts):
      // here at full size.
      'src/workspace/restore-crash.test.ts',
      'src/workspace/concurrency.test.ts',
      'src/engine/compaction.test.ts',
      'test/e2e/compaction.test.ts',
      'test/e2e/session-state.test.ts',
    ],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
