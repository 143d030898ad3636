// Filesystem helpers only the snapshot store uses. The ones every layer shares (errorCode,
// isPidAlive, randomHex, unlinkQuiet, fsyncDirectory) are in lib/fsutil.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorCode, fsyncDirectory, randomHex, unlinkQuiet } from '../lib/fsutil.ts';

export function readTextOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Lstat that answers null for a missing path (or a path through a missing or non-directory parent). */
export function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Writes `data` to `file` completely or not at all: temp file beside it, fsync, rename, and
 * (when `durable`) fsync of the directory so the rename itself survives a power cut.
 */
export function atomicWriteFile(file: string, data: string | Buffer, durable = false): void {
  const tmp = `${file}.tmp-${process.pid}-${randomHex(8)}`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (error) {
    unlinkQuiet(tmp);
    throw error;
  }
  if (durable) fsyncDirectory(path.dirname(file));
}

/** Bytes on disk under `dir` (allocated blocks, so thousands of tiny files count honestly). */
export function diskUsage(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      total += diskUsage(p);
      continue;
    }
    const st = lstatOrNull(p);
    if (st !== null) total += st.blocks > 0 ? st.blocks * 512 : st.size;
  }
  return total;
}

