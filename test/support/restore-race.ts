// A file restore (rollback) against a hostile neighbour (issue 23 §5): a separate process keeps
// flipping `sub/` between the real directory and a symlink to a directory outside the workspace
// while a restore rewrites every file under `sub/` and deletes the ones the turn made. Outside,
// decoys carry the names and the content a delete expects, so a delete that followed the link
// removes one, and a write or temp file that followed it appears there.
// Shared by src/workspace/restore-race.test.ts (a few rounds) and the fault suite.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSwapper } from './path-race.ts';
import { makeSandbox, turn, write } from './workspace.ts';

export interface RestoreRaceCounts {
  rounds: number;
  swaps: number;
  restored: number;
  refused: number;
  /** A file that is not a decoy appeared outside (a restored file or a temp file followed the link). */
  landedOutside: number;
  /** A decoy outside was removed (a delete followed the link). */
  deletedOutside: number;
  /** The neighbour found `sub` recreated by the restore and could not put the real one back. */
  recreated: number;
  /** The restore failed as a whole instead of reporting what it could not do. */
  crashed: number;
  /** Temp files of the restore left in the workspace. */
  tempLeft: number;
}

const FILES = 16;
const MADE = 16;

export interface RestoreRaceOptions {
  rounds: number;
  /** The neighbour's spin counts: how long a link stays, how long the real directory stays. */
  hold?: number;
  gap?: number;
}

/** Runs `rounds` restores of one planned rollback, each raced by a fresh neighbour. */
export async function runRestoreRace(opts: RestoreRaceOptions): Promise<RestoreRaceCounts> {
  const sb = makeSandbox();
  const counts: RestoreRaceCounts = {
    rounds: opts.rounds,
    swaps: 0,
    restored: 0,
    refused: 0,
    landedOutside: 0,
    deletedOutside: 0,
    recreated: 0,
    crashed: 0,
    tempLeft: 0,
  };
  try {
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
    if (plan.actions.length !== FILES + MADE) throw new Error(`restore race: the plan has ${plan.actions.length} actions, not ${FILES + MADE}`);
    const sub = path.join(sb.ws, 'sub');
    for (let round = 0; round < opts.rounds; round++) {
      for (const name of fs.readdirSync(outside)) fs.rmSync(path.join(outside, name));
      for (let i = 0; i < MADE; i++) fs.writeFileSync(path.join(outside, `made${i}.txt`), `made ${i}\n`);
      agentState();
      const swapper = await startSwapper(sub, outside, { hold: opts.hold ?? 1000, gap: opts.gap ?? 5000 });
      let result;
      try {
        result = await s.applyRestore(plan);
      } catch (error) {
        counts.crashed++;
        process.stdout.write(`restore race: the restore threw: ${String(error)}\n`);
      } finally {
        counts.swaps += await swapper.stop();
      }
      // A restore that found the directory missing for a moment made a new one, and the neighbour
      // could not put the real one back: both are inside the workspace; put them together again.
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
      counts.tempLeft += fs.readdirSync(sub).filter((n) => n.startsWith('.agentx_')).length;
    }
    return counts;
  } finally {
    sb.cleanup();
  }
}
