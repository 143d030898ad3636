// Disk access for patches: reading a file as text (refusing binary and oversized files).
import * as fs from 'node:fs';
import { openParent, UnsafePathError } from '../../lib/dir-walk.ts';
import { PatchError } from './types.ts';

/** Files above this size are neither patched nor shown (10 MiB). */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** How many leading bytes are searched for a NUL byte (as git does). */
const BINARY_PROBE = 8000;

export type DiskFile =
  | { kind: 'missing' }
  | { kind: 'dir' }
  | { kind: 'other' }
  | {
      kind: 'file';
      /** Permission bits (kept when the file is rewritten or moved). */
      mode: number;
      size: number;
      /** The raw bytes, to restore on rollback; null when over the size cap. */
      bytes: Buffer | null;
      /** The decoded text; null when binary, not UTF-8 or over the cap (see `unreadable`). */
      text: string | null;
      unreadable: 'binary' | 'too_large' | null;
    };

function errno(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes file bytes as UTF-8 text, or null when they look binary or are not valid UTF-8. */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.subarray(0, BINARY_PROBE).includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** What an opened descriptor holds: a regular file's bytes (up to the cap), else its kind. */
function readOpened(fd: number, maxBytes: number): DiskFile {
  const info = fs.fstatSync(fd);
  if (info.isDirectory()) return { kind: 'dir' };
  if (!info.isFile()) return { kind: 'other' };
  const mode = info.mode & 0o7777;
  if (info.size > maxBytes) return { kind: 'file', mode, size: info.size, bytes: null, text: null, unreadable: 'too_large' };
  const bytes = fs.readFileSync(fd);
  if (bytes.length > maxBytes) return { kind: 'file', mode, size: bytes.length, bytes: null, text: null, unreadable: 'too_large' };
  const text = decodeText(bytes);
  return { kind: 'file', mode, size: bytes.length, bytes, text, unreadable: text === null ? 'binary' : null };
}

/**
 * Reads workspace-relative `rel` (a path resolvePatchPath checked, so it names no link) through
 * its parent directories opened from `root` without following links (lib/dir-walk.ts), and the
 * file itself with O_NOFOLLOW|O_NONBLOCK: a directory flipped to a symlink after the check is
 * refused instead of read through, and a FIFO cannot block. The kind comes from fstat of what was
 * opened, never from a separate stat of the path.
 */
export function readDiskFile(root: string, rel: string, maxBytes: number): DiskFile {
  let opened;
  try {
    opened = openParent(root, rel, false);
  } catch (err) {
    if (errno(err) === 'ENOENT' || (err instanceof UnsafePathError && err.reason === 'not_dir')) return { kind: 'missing' };
    if (err instanceof UnsafePathError) throw new PatchError('path', `cannot read ${rel}: ${err.message}`);
    throw err;
  }
  const { dir, name } = opened;
  try {
    let fd: number;
    try {
      fd = dir.at(name, (p) => fs.openSync(p, READ_FLAGS));
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
      if (code === 'ELOOP') throw new PatchError('path', `cannot read ${rel}: it became a symbolic link while the patch was read; refused`);
      // A FIFO or socket opened for reading can refuse (ENXIO): not a regular file either way.
      if (code === 'ENXIO') return { kind: 'other' };
      throw err;
    }
    try {
      return readOpened(fd, maxBytes);
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    dir.close();
  }
}

// Writing is in run.ts through lib/dir-walk.ts: relative to parent directories opened without
// following symlinks, so a directory swapped mid-patch cannot redirect a write.
