// apply_patch against a hostile neighbour (issue 23 §5): a separate process keeps flipping `sub/`
// between the real directory and a symlink to a directory outside the workspace while patches
// that add, update, delete and move files under `sub/` run. Outside, decoys with the same names
// carry a SECRET line, so a read that followed the link shows up in the patch's report or in the
// workspace, and a write, delete or temp file that followed it shows up outside.
// Shared by src/tools/patch/race.test.ts (a few rounds) and the fault suite (many).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyPatch } from '../../src/tools/patch/run.ts';
import type { FileOperation } from '../../src/tools/patch/types.ts';
import { startSwapper } from './path-race.ts';

export interface PatchRaceCounts {
  patches: number;
  swaps: number;
  applied: number;
  refused: number;
  /** A SECRET line from a decoy outside reached a report or a workspace file. */
  readOutside: number;
  /** A decoy outside was changed or removed, or a new file (a temp file included) appeared there. */
  touchedOutside: number;
  /** A patch's report disagrees with the files: "applied" but not all effects, or refused with some. */
  untruthful: number;
  /** Temp files of a patch left in the workspace. */
  tempLeft: number;
  /** The neighbour found `sub` recreated by a patch and could not put the real one back. */
  recreated: number;
}

const SECRET = 'SECRET-outside-the-workspace';

function opsFor(i: number): FileOperation[] {
  const hunk = (from: string, to: string) => ({
    anchors: [],
    endOfFile: false,
    patchLine: 1,
    lines: [
      { kind: 'context' as const, text: 'line1' },
      { kind: 'delete' as const, text: from },
      { kind: 'insert' as const, text: to },
    ],
  });
  return [
    { type: 'add', path: `sub/add${i}.txt`, lines: [`added ${i}`] },
    { type: 'update', path: `sub/upd${i}.txt`, moveTo: null, hunks: [hunk('old', 'new')] },
    { type: 'delete', path: `sub/del${i}.txt` },
    { type: 'update', path: `sub/mv${i}.txt`, moveTo: `sub/moved${i}.txt`, hunks: [hunk('old', 'moved')] },
  ];
}

/** The files one patch touches: before it ran, and after it ran whole. */
function expected(i: number): { before: Record<string, string | null>; after: Record<string, string | null> } {
  return {
    before: {
      [`add${i}.txt`]: null,
      [`upd${i}.txt`]: 'line1\nold\n',
      [`del${i}.txt`]: 'line1\ndelete me\n',
      [`mv${i}.txt`]: 'line1\nold\n',
      [`moved${i}.txt`]: null,
    },
    after: {
      [`add${i}.txt`]: `added ${i}\n`,
      [`upd${i}.txt`]: 'line1\nnew\n',
      [`del${i}.txt`]: null,
      [`mv${i}.txt`]: null,
      [`moved${i}.txt`]: 'line1\nmoved\n',
    },
  };
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function sameFiles(dir: string, files: Record<string, string | null>): boolean {
  return Object.entries(files).every(([name, content]) => readOrNull(path.join(dir, name)) === content);
}

/** Decoys outside: the names a patch reads or deletes, with a SECRET line; new names absent. */
function plantDecoys(outside: string, patches: number): Map<string, string> {
  for (const name of fs.readdirSync(outside)) fs.rmSync(path.join(outside, name), { recursive: true, force: true });
  const decoys = new Map<string, string>();
  for (let i = 0; i < patches; i++) {
    for (const name of [`upd${i}.txt`, `del${i}.txt`, `mv${i}.txt`]) decoys.set(name, `line1\nold\n${SECRET}\n`);
  }
  for (const [name, content] of decoys) fs.writeFileSync(path.join(outside, name), content);
  return decoys;
}

/**
 * Runs `rounds` rounds of `patches` patches (each Add + Update + Delete + Move under sub/, run two
 * at a time) in workspace `ws` while the neighbour flips sub/ to a link to `outside`.
 */
export async function runPatchRace(
  ws: string,
  outside: string,
  opts: { rounds: number; patches: number; timing?: { hold: number; gap: number } },
): Promise<PatchRaceCounts> {
  const counts: PatchRaceCounts = { patches: 0, swaps: 0, applied: 0, refused: 0, readOutside: 0, touchedOutside: 0, untruthful: 0, tempLeft: 0, recreated: 0 };
  const sub = path.join(ws, 'sub');
  for (let round = 0; round < opts.rounds; round++) {
    fs.rmSync(sub, { recursive: true, force: true });
    fs.mkdirSync(sub);
    for (let i = 0; i < opts.patches; i++) {
      for (const [name, content] of Object.entries(expected(i).before)) if (content !== null) fs.writeFileSync(path.join(sub, name), content);
    }
    const decoys = plantDecoys(outside, opts.patches);
    const swapper = await startSwapper(sub, outside, opts.timing ?? { hold: 1000, gap: 3000 });
    const results: Array<Awaited<ReturnType<typeof applyPatch>>> = [];
    try {
      for (let i = 0; i < opts.patches; i += 2) {
        const batch = [i, i + 1].filter((n) => n < opts.patches);
        results.push(...(await Promise.all(batch.map((n) => applyPatch(opsFor(n), { root: ws, durable: false })))));
      }
    } finally {
      counts.swaps += await swapper.stop();
    }
    if (fs.existsSync(`${sub}.aside`)) {
      counts.recreated++;
      fs.rmSync(sub, { recursive: true, force: true });
      fs.renameSync(`${sub}.aside`, sub);
    }
    results.forEach((result, i) => {
      counts.patches++;
      const { before, after } = expected(i);
      if (result.ok) counts.applied++;
      else counts.refused++;
      if (!sameFiles(sub, result.ok ? after : before)) counts.untruthful++;
      const report = result.ok ? result.output + result.changes.map((c) => c.diff).join('') : result.output;
      if (report.includes(SECRET)) counts.readOutside++;
    });
    for (const name of fs.readdirSync(sub)) {
      if (/\.agentx-(tmp|deleted)/.test(name)) counts.tempLeft++;
      if ((readOrNull(path.join(sub, name)) ?? '').includes(SECRET)) counts.readOutside++;
    }
    const left = fs.readdirSync(outside);
    counts.touchedOutside += left.filter((n) => !decoys.has(n)).length;
    for (const [name, content] of decoys) if (readOrNull(path.join(outside, name)) !== content) counts.touchedOutside++;
  }
  return counts;
}
