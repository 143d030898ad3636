// Reading a local image to show the model (view_image, /image): the kind is told by its first
// bytes (not the name), the size is capped before anything is read, and a SHA-256 of the bytes
// lets the state file record *which* image was attached without holding it. agentx does not
// resize images (that would need an image library); a too-large one is refused with one line
// saying how to shrink it.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { errorCode } from './fsutil.ts';
import { formatBytes } from './text.ts';

/** Per image. Screenshots are well below; the API downsizes large images anyway. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export interface ImageFile {
  path: string;
  mime: string;
  bytes: number;
  sha256: string;
  width?: number;
  height?: number;
}

export type ImageRead = { ok: true; image: ImageFile; data: Buffer } | { ok: false; error: string };

function startsWith(data: Buffer, bytes: readonly number[], at = 0): boolean {
  return bytes.every((b, i) => data[at + i] === b);
}

/** The MIME type of an image format the Responses API accepts, from its magic bytes. */
export function sniffImageType(data: Buffer): string | undefined {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(data, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (data.subarray(0, 6).toString('latin1') === 'GIF87a' || data.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/** Width and height where the header says them plainly (PNG, GIF, baseline/progressive JPEG). */
export function imageSize(data: Buffer, mime: string): { width: number; height: number } | undefined {
  if (mime === 'image/png' && data.length >= 24) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (mime === 'image/gif' && data.length >= 10) return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  if (mime !== 'image/jpeg') return undefined;
  let at = 2;
  while (at + 9 < data.length && data[at] === 0xff) {
    const marker = data[at + 1] ?? 0;
    const length = data.readUInt16BE(at + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: data.readUInt16BE(at + 7), height: data.readUInt16BE(at + 5) };
    }
    at += 2 + length;
  }
  return undefined;
}

export async function sha256Hex(data: Buffer): Promise<string> {
  // node:crypto costs ~10 ms to load (see fsutil.ts): only sessions that use images pay it.
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(data).digest('hex');
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

function readWhole(fd: number, size: number): Buffer {
  const data = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, data, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return data.subarray(0, got);
}

/** Where an open file really is: what the descriptor points at (Linux), else the path resolved. */
function openedRealPath(fd: number, path: string): string {
  for (const candidate of [`/proc/self/fd/${fd}`, path]) {
    try {
      return realpathSync(candidate);
    } catch {
      // Next way, or the path as given.
    }
  }
  return path;
}

/**
 * Non-blocking, so opening a FIFO (or a device) returns at once instead of waiting for a writer
 * that never comes, which froze agentx beyond Ctrl-C and SIGTERM; no controlling terminal either.
 * Only regular files are read, told by fstat on the descriptor itself (not a second lookup).
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Reads an image (absolute path) for the model, or says in one line why it cannot be sent.
 * `refuse` looks at the real location of the file actually opened, so a path swapped for a
 * symlink after an earlier check is still caught.
 */
export async function readImageFile(path: string, maxBytes: number = MAX_IMAGE_BYTES, refuse?: (realPath: string) => string | undefined): Promise<ImageRead> {
  const name = basename(path);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const code = errorCode(err);
    return { ok: false, error: code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot open (${code ?? String(err)})` };
  }
  try {
    const refused = refuse?.(openedRealPath(fd, path));
    if (refused !== undefined) return { ok: false, error: refused };
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, error: `${path}: not a regular file (${fileKind(st)}); only image files can be viewed` };
    if (st.size > maxBytes) {
      return {
        ok: false,
        error: `${name} is ${formatBytes(st.size)}, over the ${formatBytes(maxBytes)} limit for images; make it smaller first (for example: convert ${name} -resize 50% smaller.png)`,
      };
    }
    const data = readWhole(fd, st.size);
    const mime = sniffImageType(data);
    if (mime === undefined) return { ok: false, error: `${name} is not a PNG, JPEG, GIF or WebP image` };
    const image: ImageFile = { path, mime, bytes: data.length, sha256: await sha256Hex(data), ...imageSize(data, mime) };
    return { ok: true, image, data };
  } catch (err) {
    return { ok: false, error: `${path}: cannot read (${errorCode(err) ?? String(err)})` };
  } finally {
    closeSync(fd);
  }
}

/** "shot.png (PNG, 1280×720, 84.2 KB)" */
export function describeImage(image: ImageFile): string {
  const kind = image.mime.replace('image/', '').toUpperCase();
  const size = image.width !== undefined && image.height !== undefined ? `, ${image.width}×${image.height}` : '';
  return `${basename(image.path)} (${kind}${size}, ${formatBytes(image.bytes)})`;
}
