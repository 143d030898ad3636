// What a workspace path holds right now, in the terms of a snapshot entry (git mode + blob id),
// computed without git: a git blob id is sha1("blob <size>\0" + content). Used to tell whether
// a file is still what agentx last recorded before a restore overwrites or deletes it.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Entry } from './diff.ts';
import { lstatOrNull } from './fs-util.ts';
import { openParent, UnsafePathError } from '../lib/dir-walk.ts';
import { errorCode } from '../lib/fsutil.ts';

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

/** The entry the file `st` describes, its bytes read by `read` / `readLink` (which may fail: then it changed). */
function entryOf(st: fs.Stats, maxBytes: number, readFile: () => Buffer, readLink: () => Buffer): Entry {
  try {
    if (st.isSymbolicLink()) return { mode: '120000', id: blobId(readLink()) };
    if (st.isDirectory()) return DIRECTORY;
    if (!st.isFile()) return foreign('special');
    if (st.size > maxBytes) return foreign(`large:${st.size}`);
    return { mode: (st.mode & 0o100) !== 0 ? '100755' : '100644', id: blobId(readFile()) };
  } catch {
    // Gone or replaced (a file swapped for a link, or a FIFO) between the lstat and the read: it is
    // not what agentx recorded, whatever it is now.
    return CHANGED;
  }
}

const CHANGED = foreign('changed');

/** Reads a regular file without following a link or blocking on a FIFO put in its place. */
function readRegular(p: string, maxBytes: number): Buffer {
  const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) throw new Error('changed');
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The current entry at `abs`, or null when nothing is there. Files larger than `maxBytes`
 * are not read: they can never match a snapshot (snapshots leave such files out).
 */
export function currentEntry(abs: string, maxBytes: number): Entry | null {
  const st = lstatOrNull(abs);
  if (st === null) return null;
  return entryOf(
    st,
    maxBytes,
    () => readRegular(abs, maxBytes),
    () => fs.readlinkSync(abs, { encoding: 'buffer' }),
  );
}

/**
 * What workspace-relative `rel` holds, read through its parent directories opened from the
 * workspace without following links (lib/dir-walk.ts): `blocked` when one of them is a symlink
 * or not a directory, so a restore neither trusts nor touches anything behind it.
 */
export function entryInWorkspace(ws: string, rel: string, maxBytes: number): { blocked: boolean; entry: Entry | null } {
  let opened;
  try {
    opened = openParent(ws, rel, false);
  } catch (error) {
    if (error instanceof UnsafePathError) return { blocked: true, entry: null };
    const code = errorCode(error);
    if (code === 'ENOENT') return { blocked: false, entry: null };
    throw error;
  }
  const { dir, name } = opened;
  try {
    const st = dir.lstat(name);
    if (st === null) return { blocked: false, entry: null };
    const entry = entryOf(
      st,
      maxBytes,
      () => dir.at(name, (p) => readRegular(p, maxBytes)),
      () => dir.at(name, (p) => fs.readlinkSync(p, { encoding: 'buffer' })),
    );
    return { blocked: false, entry };
  } catch (error) {
    if (error instanceof UnsafePathError) return { blocked: true, entry: null };
    throw error;
  } finally {
    dir.close();
  }
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
