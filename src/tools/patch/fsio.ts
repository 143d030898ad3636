// Disk access for patches: reading a file as text (refusing binary and oversized files).
import { readFile, stat } from 'node:fs/promises';

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

export async function readDiskFile(abs: string, maxBytes: number): Promise<DiskFile> {
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return { kind: 'missing' };
    throw err;
  }
  if (info.isDirectory()) return { kind: 'dir' };
  if (!info.isFile()) return { kind: 'other' };
  const mode = info.mode & 0o7777;
  if (info.size > maxBytes) return { kind: 'file', mode, size: info.size, bytes: null, text: null, unreadable: 'too_large' };
  const bytes = await readFile(abs);
  if (bytes.length > maxBytes) return { kind: 'file', mode, size: bytes.length, bytes: null, text: null, unreadable: 'too_large' };
  const text = decodeText(bytes);
  return { kind: 'file', mode, size: bytes.length, bytes, text, unreadable: text === null ? 'binary' : null };
}

// Writing is in run.ts through lib/dir-walk.ts: relative to parent directories opened without
// following symlinks, so a directory swapped mid-patch cannot redirect a write.
