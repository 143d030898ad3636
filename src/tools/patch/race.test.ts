// apply_patch racing a neighbour that flips a directory to a symlink to outside (issue 23 §5):
// reads and writes both go through parent directories opened from the workspace root without
// following links, so no patch reads, writes, deletes or leaves a temp file outside, and each one
// reports what it did (applied whole, or refused with nothing changed).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runPatchRace } from '../../../test/support/patch-race.ts';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-patch-race-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

it('patches under a directory flipped to a symlink to outside: nothing read, written or left outside; every report truthful', async () => {
  const ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(ws);
  fs.mkdirSync(outside);
  const counts = await runPatchRace(ws, outside, { rounds: Number(process.env.PATCH_RACE_ROUNDS ?? 4), patches: 24 });
  process.stdout.write(`patch race: ${JSON.stringify(counts)}\n`);
  expect(counts.swaps).toBeGreaterThan(0);
  expect(counts).toMatchObject({ readOutside: 0, touchedOutside: 0, untruthful: 0, tempLeft: 0 });
}, 60_000);
