// What a workspace path holds right now, in the terms of a snapshot entry (git mode + blob id),
// computed without git: a git blob id is sha1("blob <size>\0" + content). Used to tell whether
// a file is still what agentx last recorded before a restore overwrites or deletes it.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Entry } from './diff.ts';
import { lstatOrNull } from './fs-util.ts';

export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Marks a path that exists but cannot equal any snapshot entry (a directory, a socket, a huge file). */
function foreign(kind: string): Entry {
  return { mode: 'other', id: kind };
}

const DIRECTORY = foreign('directory');

/** A directory stands where a file or symlink was expected. */
export function isDirectoryEntry(e: Entry | null): boolean {
  return e !== null && e.mode === DIRECTORY.mode && e.id === DIRECTORY.id;
}

/**
 * The current entry at `abs`, or null when nothing is there. Files larger than `maxBytes`
 * are not read: they can never match a snapshot (snapshots leave such files out).
 */
export function currentEntry(abs: string, maxBytes: number): Entry | null {
  const st = lstatOrNull(abs);
  if (st === null) return null;
  if (st.isSymbolicLink()) return { mode: '120000', id: blobId(fs.readlinkSync(abs, { encoding: 'buffer' })) };
  if (st.isDirectory()) return DIRECTORY;
  if (!st.isFile()) return foreign('special');
  if (st.size > maxBytes) return foreign(`large:${st.size}`);
  return { mode: (st.mode & 0o100) !== 0 ? '100755' : '100644', id: blobId(fs.readFileSync(abs)) };
}

/**
 * The first path on the way from the workspace to `rel` (relative, '/'-separated) that exists
 * but is not a real directory, or null. A symlinked parent would make a restore write or
 * delete outside the workspace.
 */
export function blockingParent(workspace: string, rel: string): string | null {
  const segs = rel.split('/').slice(0, -1);
  for (let i = 1; i <= segs.length; i++) {
    const parent = segs.slice(0, i).join('/');
    const st = lstatOrNull(`${workspace}/${parent}`);
    if (st === null) return null;
    if (!st.isDirectory()) return parent;
  }
  return null;
}
