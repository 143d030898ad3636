// Putting one file back, in one step: the content goes to a temp file beside it (same directory,
// so the same filesystem) and is renamed over the path. A file that is
// replaced keeps its permission bits (only the executable bit follows the snapshot) and, when
// agentx runs as root, its owner.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BlobReader } from './blob-reader.ts';
import type { Entry } from './diff.ts';
import { isPidAlive, randomHex, unlinkQuiet } from '../lib/fsutil.ts';
import { lstatOrNull } from './fs-util.ts';

/** Temp files of a restore; agentx's own prefix, so snapshots never record them. */
export const RESTORE_TEMP_PREFIX = '.agentx_restore-';

function makeParents(ws: string, rel: string): void {
  let dir = ws;
  for (const seg of rel.split('/').slice(0, -1)) {
    dir = path.join(dir, seg);
    const st = lstatOrNull(dir);
    if (st === null) fs.mkdirSync(dir);
    else if (!st.isDirectory()) throw new Error(`${path.relative(ws, dir)} is not a directory`);
  }
}

function permissionsFor(old: fs.Stats | null, executable: boolean): number | null {
  if (old === null || !old.isFile()) return null;
  const perms = old.mode & 0o7777;
  return executable ? perms | ((perms & 0o444) >> 2) : perms & ~0o111;
}

function writeRegular(tmp: string, content: Buffer, executable: boolean, old: fs.Stats | null): void {
  const fd = fs.openSync(tmp, 'wx', executable ? 0o777 : 0o666);
  try {
    fs.writeFileSync(fd, content);
    const perms = permissionsFor(old, executable);
    if (perms !== null) fs.fchmodSync(fd, perms);
    if (old !== null) {
      try {
        fs.fchownSync(fd, old.uid, old.gid);
      } catch {
        // Only root may give a file away; otherwise it stays ours, as any new file would.
      }
    }
    // No fsync per file: a kill cannot lose written data, and after a power cut the journal makes
    // the next start re-check every file (a file left empty is reported, not trusted).
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `target` at `rel` in the workspace, replacing whatever file or symlink is there. */
export async function placeEntry(ws: string, rel: string, target: Entry, blobs: BlobReader): Promise<void> {
  const content = await blobs.read(target.id);
  makeParents(ws, rel);
  const dest = path.join(ws, rel);
  const tmp = path.join(path.dirname(dest), `${RESTORE_TEMP_PREFIX}${process.pid}-${randomHex(8)}`);
  try {
    if (target.mode === '120000') fs.symlinkSync(content, tmp);
    else writeRegular(tmp, content, target.mode === '100755', lstatOrNull(dest));
    fs.renameSync(tmp, dest);
  } catch (error) {
    unlinkQuiet(tmp);
    throw error;
  }
}

/** Temp files left beside `rels` by a restore whose process died. */
export function removeDeadTemps(ws: string, rels: readonly string[]): void {
  const dirs = new Set(rels.map((rel) => path.dirname(path.join(ws, rel))));
  dirs.add(ws);
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(RESTORE_TEMP_PREFIX)) continue;
      const pid = Number(/^(\d+)-/.exec(name.slice(RESTORE_TEMP_PREFIX.length))?.[1] ?? 0);
      if (!isPidAlive(pid)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    }
  }
}
