// `npm run fault` (via run.mjs): the fault suite alone, full size, one file at a time so each
// check has both cores and its timing means something.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/fault/**/*.test.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
