// A restore racing a neighbour that swaps a directory for a symlink to outside (issue 23 §5):
// every write, rename and delete is relative to directories opened without following links, so
// nothing lands outside and no file outside is removed, however the swaps fall.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeSandbox, turn, write, type Sandbox } from '../../test/support/workspace.ts';
import { startSwapper } from '../../test/support/path-race.ts';

let sb: Sandbox;
beforeEach(() => { sb = makeSandbox(); });
afterEach(() => sb.cleanup());

const FILES = 16;
const MADE = 16;

it('a directory swapped for a symlink to outside during restores: no write lands outside, nothing outside is deleted', async () => {
  const outside = path.join(sb.root, 'outside');
  fs.mkdirSync(outside);
  const agentState = (): void => {
    for (let i = 0; i < FILES; i++) write(sb.ws, `sub/f${i}.txt`, `agent ${i}\n`);
    for (let i = 0; i < MADE; i++) write(sb.ws, `sub/made${i}.txt`, `made ${i}\n`);
  };
  for (let i = 0; i < FILES; i++) write(sb.ws, `sub/f${i}.txt`, `original ${i}\n`);
  const s = await sb.open();
  const span = await turn(s, agentState);
  const plan = await s.planRestore([span]);
  expect(plan.actions).toHaveLength(FILES + MADE);
  const rounds = Number(process.env.RESTORE_RACE_ROUNDS ?? 6);
  const counts = { rounds, swaps: 0, restored: 0, refused: 0, landedOutside: 0, deletedOutside: 0, recreated: 0, crashed: 0 };
  const sub = path.join(sb.ws, 'sub');
  for (let round = 0; round < rounds; round++) {
    for (const name of fs.readdirSync(outside)) fs.rmSync(path.join(outside, name));
    // Decoys with the content a delete expects: following the link would remove them.
    for (let i = 0; i < MADE; i++) fs.writeFileSync(path.join(outside, `made${i}.txt`), `made ${i}\n`);
    agentState();
    const swapper = await startSwapper(sub, outside, { hold: Number(process.env.RACE_HOLD ?? 1000), gap: Number(process.env.RACE_GAP ?? 5000) });
    let result;
    try {
      result = await s.applyRestore(plan);
    } catch (error) {
      // A restore reports what it could not do; it must not fail as a whole on a changing tree.
      counts.crashed++;
      process.stdout.write(`restore race: the restore threw: ${String(error)}\n`);
    } finally {
      counts.swaps += await swapper.stop();
    }
    // A restore that found the directory missing for a moment made a new one, and the swapper could
    // not put the real one back: both are inside the workspace; put them together for the next round.
    if (fs.existsSync(`${sub}.aside`)) {
      counts.recreated++;
      fs.rmSync(sub, { recursive: true, force: true });
      fs.renameSync(`${sub}.aside`, sub);
    }
    counts.restored += result?.restored.length ?? 0;
    counts.refused += (result?.failed.length ?? 0) + (result?.skipped.length ?? 0);
    const left = fs.readdirSync(outside);
    counts.landedOutside += left.filter((n) => !/^made\d+\.txt$/.test(n)).length;
    counts.deletedOutside += MADE - left.filter((n) => /^made\d+\.txt$/.test(n)).length;
  }
  process.stdout.write(`restore race: ${JSON.stringify(counts)}\n`);
  expect(counts.swaps).toBeGreaterThan(0);
  expect(counts.landedOutside).toBe(0);
  expect(counts.deletedOutside).toBe(0);
  expect(counts.crashed).toBe(0);
  // The workspace holds no temp file of the restore, in place or in the directory moved aside.
  expect(fs.readdirSync(path.join(sb.ws, 'sub')).filter((n) => n.startsWith('.agentx_'))).toEqual([]);
}, 60_000);
