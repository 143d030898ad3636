// Disk access for patches: reading a file as text (refusing binary and oversized files) and
// replacing one atomically (temp file in the same directory, then rename), keeping its mode.
import { mkdir, open, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomHex } from '../../lib/fsutil.ts';

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

export interface WriteOptions {
  /** Permission bits to set; null keeps the default for new files (0666 minus the umask). */
  mode: number | null;
  /** fsync the data before the rename, so a crash never leaves an empty or partial file. */
  durable: boolean;
}

/** Replaces (or creates) `abs` with `data` through a temp file in the same directory. */
export async function writeAtomic(abs: string, data: string | Buffer, opts: WriteOptions): Promise<void> {
  // The name is cut so a long file name cannot push the temp name over NAME_MAX (255 bytes).
  const temp = join(dirname(abs), `.${basename(abs).slice(0, 64)}.${randomHex(12)}.agentx-tmp`);
  const handle = await open(temp, 'wx', 0o666);
  try {
    try {
      await handle.writeFile(data);
      if (opts.mode !== null) await handle.chmod(opts.mode);
      if (opts.durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, abs);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** Creates the missing directories above `abs`; returns those created, outermost first. */
export async function makeParents(abs: string): Promise<string[]> {
  const missing: string[] = [];
  let dir = dirname(abs);
  for (;;) {
    try {
      await stat(dir); // exists (a file in the way makes the mkdir below fail with ENOTDIR)
      break;
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw err;
      missing.unshift(dir);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  const created: string[] = [];
  for (const d of missing) {
    try {
      await mkdir(d);
      created.push(d);
    } catch (err) {
      // Another file of the same patch, written concurrently, may have just made it.
      if (errno(err) !== 'EEXIST') throw err;
    }
  }
  return created;
}

export async function removeFile(abs: string): Promise<void> {
  await unlink(abs);
}

/** Best-effort removal of directories created for a patch that was rolled back. */
export async function removeDirs(dirs: readonly string[]): Promise<void> {
  for (const d of [...dirs].reverse()) await rmdir(d).catch(() => undefined);
}

/** Flushes directory entries (renames, unlinks) to disk; best effort where unsupported. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the data itself is already synced.
  }
}
