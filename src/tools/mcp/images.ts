// Images an MCP tool returned, kept for the model: each is checked (a format the API reads, told
// by its bytes rather than the server's word; within the size limit) and written once, named by
// its SHA-256, to $XDG_STATE_HOME/agentx/mcp-images/ (0700 directory, 0600 files). The journal
// then holds a `local_image` part (path + hash), not megabytes of base64, and the request gets
// the bytes as an `input_image` just before it is sent (model/local-images.ts), as view_image's.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { homeDir } from '../../paths.ts';
import { MAX_IMAGE_BYTES, sha256Hex, sniffImageType } from '../../lib/image-file.ts';
import { formatBytes } from '../../lib/text.ts';
import type { LocalImagePart } from '../../wire/items.ts';

/** At most this many images of one result reach the model; the rest are named in a note. */
export const MAX_IMAGES_PER_RESULT = 8;

export interface ImageLimits {
  /** Where the images are written. */
  dir: string;
  /** Per image, decoded bytes. */
  maxBytes: number;
}

export function mcpImageDir(env: NodeJS.ProcessEnv): string {
  const state =
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== '' && isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : join(homeDir(env), '.local', 'state');
  return join(state, 'agentx', 'mcp-images');
}

export function defaultImageLimits(env: NodeJS.ProcessEnv): ImageLimits {
  return { dir: mcpImageDir(env), maxBytes: MAX_IMAGE_BYTES };
}

export type SavedImage = { ok: true; part: LocalImagePart } | { ok: false; note: string };

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Decoded size of base64 text without decoding it (to refuse a huge image before allocating it). */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * One image block → a part for the model, or the note that replaces it. Never throws: a disk
 * that refuses the file is a note too (the call itself succeeded).
 */
export async function saveMcpImage(data: string, declaredMime: string, limits: ImageLimits): Promise<SavedImage> {
  const size = base64Bytes(data);
  const label = `[image ${declaredMime}, ${formatBytes(size)}`;
  if (size > limits.maxBytes) {
    return { ok: false, note: `${label}: not shown, over the ${formatBytes(limits.maxBytes)} limit for images]` };
  }
  const bytes = Buffer.from(data, 'base64');
  const mime = sniffImageType(bytes);
  if (mime === undefined) return { ok: false, note: `${label}: not shown, not a PNG, JPEG, GIF or WebP image]` };
  const sha256 = await sha256Hex(bytes);
  const path = join(limits.dir, `${sha256}.${EXTENSIONS[mime] ?? 'img'}`);
  try {
    mkdirSync(limits.dir, { recursive: true, mode: 0o700 });
    // Named by content: an existing file already holds these bytes (and is checked by hash when read).
    if (!existsSync(path)) writeFileSync(path, bytes, { mode: 0o600, flag: 'wx' });
    else chmodSync(path, 0o600);
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : String(err);
    if (code !== 'EEXIST') return { ok: false, note: `${label}: not shown, could not be kept (${code})]` };
  }
  return { ok: true, part: { type: 'local_image', path, sha256, bytes: bytes.length, mime } };
}
