// Filesystem helpers only the snapshot store uses. The ones every layer shares are in
// lib/fsutil.ts (errorCode, isPidAlive, randomHex, unlinkQuiet, fsyncDirectory) and
// lib/atomic-file.ts (the crash-safe write).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorCode } from '../lib/fsutil.ts';

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
