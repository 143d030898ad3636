// A restore racing a neighbour that swaps a directory for a symlink to outside (issue 23 §5):
// every write, rename and delete is relative to directories opened without following links, so
// nothing lands outside and no file outside is removed, however the swaps fall. The fault suite
// (test/fault/trust-boundary.test.ts) runs the same race.
import { expect, it } from 'vitest';
import { runRestoreRace } from '../../test/support/restore-race.ts';

it('a directory swapped for a symlink to outside during restores: no write lands outside, nothing outside is deleted', async () => {
  const counts = await runRestoreRace({
    rounds: Number(process.env.RESTORE_RACE_ROUNDS ?? 6),
    hold: Number(process.env.RACE_HOLD ?? 1000),
    gap: Number(process.env.RACE_GAP ?? 5000),
  });
  process.stdout.write(`restore race: ${JSON.stringify(counts)}\n`);
  expect(counts.swaps).toBeGreaterThan(0);
  expect(counts.landedOutside).toBe(0);
  expect(counts.deletedOutside).toBe(0);
  expect(counts.crashed).toBe(0);
  // The workspace holds no temp file of the restore.
  expect(counts.tempLeft).toBe(0);
}, 60_000);
