// Putting one file back, in one step: the content goes to a temp file beside it (same directory,
// so the same filesystem) and is renamed over the path. A file that is
// replaced keeps its permission bits (only the executable bit follows the snapshot) and, when
// agentx runs as root, its owner.
//
// Every step goes through the parent directory opened from the workspace root one component at a
// time without following links (lib/dir-walk.ts): a command that swaps a directory for a symlink
// to outside while a restore runs cannot redirect a write, a rename or a delete (issue 23 §5).

import * as fs from 'node:fs';
import type { BlobReader } from './blob-reader.ts';
import type { Entry } from './diff.ts';
import { OpenDir, openParent, withParent, type OpenedParent } from '../lib/dir-walk.ts';
import { isPidAlive, randomHex } from '../lib/fsutil.ts';

/** Temp files of a restore; agentx's own prefix, so snapshots never record them. */
export const RESTORE_TEMP_PREFIX = '.agentx_restore-';

const restoreTempName = (): string => `${RESTORE_TEMP_PREFIX}${process.pid}-${randomHex(8)}`;

function permissionsFor(old: fs.Stats | null, executable: boolean): number | null {
  if (old === null || !old.isFile()) return null;
  const perms = old.mode & 0o7777;
  return executable ? perms | ((perms & 0o444) >> 2) : perms & ~0o111;
}

function keepOwner(old: fs.Stats | null): ((fd: number) => void) | undefined {
  if (old === null) return undefined;
  return (fd) => {
    try {
      fs.fchownSync(fd, old.uid, old.gid);
    } catch {
      // Only root may give a file away; otherwise it stays ours, as any new file would.
    }
  };
}

/** Writes `target` at `rel` in the workspace, replacing whatever file or symlink is there. */
export async function placeEntry(ws: string, rel: string, target: Entry, blobs: BlobReader): Promise<void> {
  const content = await blobs.read(target.id);
  withParent(ws, rel, true, ({ dir, name }) => {
    if (target.mode === '120000') {
      dir.writeSymlink(name, content, restoreTempName);
      return;
    }
    const executable = target.mode === '100755';
    const old = dir.lstat(name);
    // No fsync per file: a kill cannot lose written data, and after a power cut the journal makes
    // the next start re-check every file (a file left empty is reported, not trusted).
    dir.writeFile(name, content, {
      mode: permissionsFor(old, executable),
      createMode: executable ? 0o777 : 0o666,
      durable: false,
      tempName: restoreTempName,
      prepare: keepOwner(old),
    });
  });
}

/** Deletes the file or symlink at `rel` (not following a symlinked parent). */
export function removeEntry(ws: string, rel: string): void {
  withParent(ws, rel, false, ({ dir, name }) => dir.unlink(name));
}

/** Removes the directory `rel` when it is empty; anything else (not empty, gone, a link) leaves it. */
export function removeDirIfEmpty(ws: string, rel: string): void {
  let opened: OpenedParent;
  try {
    opened = openParent(ws, rel, false);
  } catch {
    return;
  }
  try {
    const st = opened.dir.lstat(opened.name);
    if (st?.isDirectory() === true) opened.dir.rmdir(opened.name);
  } catch {
    // Not empty (the person's or ignored files are in it), or already gone: left alone.
  } finally {
    opened.dir.close();
  }
}

function openDirOf(ws: string, rel: string): OpenDir | null {
  try {
    return rel === '' ? OpenDir.root(ws) : openParent(ws, `${rel}/x`, false).dir;
  } catch {
    return null; // gone, or no longer a plain directory: nothing of ours to clean there
  }
}

/** Temp files left beside `rels` by a restore whose process died. */
export function removeDeadTemps(ws: string, rels: readonly string[]): void {
  const dirs = new Set(rels.map((rel) => rel.split('/').slice(0, -1).join('/')));
  dirs.add('');
  for (const rel of dirs) {
    const dir = openDirOf(ws, rel);
    if (dir === null) continue;
    try {
      for (const name of dir.names()) {
        if (!name.startsWith(RESTORE_TEMP_PREFIX)) continue;
        const pid = Number(/^(\d+)-/.exec(name.slice(RESTORE_TEMP_PREFIX.length))?.[1] ?? 0);
        if (!isPidAlive(pid)) dir.at(name, (p) => fs.rmSync(p, { recursive: true, force: true }));
      }
    } catch {
      // Unreadable or changed meanwhile: the temps stay for the next start.
    } finally {
      dir.close();
    }
  }
}
