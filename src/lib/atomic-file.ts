// The one crash-safe file write and the one exclusive file create of agentx. Every layer uses
// these (lib/ is a leaf every layer may import): the session store, the snapshot store, the lock
// files, the state key, and the small JSON files of config, permissions and MCP approvals.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorCode, fsyncDirectory, randomHex, unlinkQuiet } from './fsutil.ts';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW;

export interface WriteOptions {
  /**
   * false skips both fsyncs: the rename still makes the write atomic against a crash of the
   * process (the page cache survives it), only a power loss may lose it. Used for one-shot
   * files and snapshot bookkeeping, which the next start can rebuild, and for lock files: a lock
   * means "a live process holds this", and a power loss ends its holder too.
   */
  durable?: boolean;
}

/**
 * One encode buffer for the process, grown on demand and reused: a fresh Buffer per save of a
 * 190 KB state costs ~1 ms in allocation and page faults (bench/: --cpu-prof of the state write).
 */
let scratch = Buffer.alloc(0);

/** UTF-8 of the parts, concatenated, in the reused scratch buffer (valid until the next call). */
function encodeParts(parts: readonly string[]): Buffer {
  let length = 0;
  for (const part of parts) {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    if (length + part.length * 3 > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * scratch.length, length + part.length * 3, 64 * 1024));
      scratch.copy(grown, 0, 0, length);
      scratch = grown;
    }
    length += scratch.write(part, length, 'utf8');
  }
  return scratch.subarray(0, length);
}

type FileData = string | Uint8Array | readonly string[];

function bytesOf(data: FileData): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return data instanceof Uint8Array ? data : encodeParts(data);
}

/**
 * A new, complete file beside `file` (same directory, so a rename stays on one filesystem),
 * named `<file>.tmp-<pid>-<hex>` so that cleanups can tell a dead process's leftovers. O_EXCL and
 * O_NOFOLLOW: it cannot be a planted link. On any failure (a full disk) nothing is left behind.
 */
export function writeTempFile(file: string, data: FileData, mode = 0o600, opts: WriteOptions = {}): string {
  const tmp = `${file}.tmp-${process.pid}-${randomHex(12)}`;
  const fd = fs.openSync(tmp, CREATE_NEW, mode);
  try {
    // The umask can only remove bits from `mode`; fchmod makes the mode exact either way.
    fs.fchmodSync(fd, mode);
    const bytes = bytesOf(data);
    for (let offset = 0; offset < bytes.length; ) offset += fs.writeSync(fd, bytes, offset);
    // fdatasync: the data and the size that reaches it, without a second metadata write.
    if (opts.durable !== false) fs.fdatasyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    unlinkQuiet(tmp);
    throw error;
  }
  fs.closeSync(fd);
  return tmp;
}

/**
 * Crash-safe replace: a temp file written (and fsynced) beside the target, renamed over it, then
 * the directory fsynced so the rename itself survives a power loss. A reader sees the old file
 * or the new one, never half of one. rename() replaces a symlink at the target rather than
 * writing through it. `data` may come in parts (written in order, as one string would be).
 */
export function writeFileAtomicSync(target: string, data: FileData, mode = 0o600, opts: WriteOptions = {}): void {
  const tmp = writeTempFile(target, data, mode, opts);
  try {
    fs.renameSync(tmp, target);
  } catch (error) {
    unlinkQuiet(tmp);
    throw error;
  }
  if (opts.durable !== false) fsyncDirectory(path.dirname(target));
}

/**
 * Creates `target` holding `text` only if nothing is there; false when something is. Written to
 * a temp file and hard-linked into place, so nobody ever reads it half-written (link fails with
 * EEXIST when the target exists). Where there are no hard links (some network and FUSE
 * filesystems) an O_EXCL create instead, briefly empty: lock readers give an empty lock a grace
 * period for that reason.
 */
export function createFileExclusive(target: string, text: string, mode = 0o600, opts: WriteOptions = {}): boolean {
  const tmp = writeTempFile(target, text, mode, opts);
  try {
    fs.linkSync(tmp, target);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    try {
      fs.writeFileSync(target, text, { flag: 'wx', mode });
      return true;
    } catch (fallback) {
      if (errorCode(fallback) === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    unlinkQuiet(tmp);
  }
}
