// Reading images for the model: the kind from the bytes, the size cap before reading, the hash.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeImage, imageSize, readImageFile, sniffImageType } from './image-file.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const dir = mkdtempSync(join(tmpdir(), 'agentx-image-'));

function file(name: string, data: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

describe('image files', () => {
  it('tells PNG, JPEG, GIF and WebP by their first bytes, and sizes where the header says', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03]);
    expect(sniffImageType(jpeg)).toBe('image/jpeg');
    expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 800, height: 600 });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x0a, 0x00, 0x14, 0x00])]);
    expect(imageSize(gif, sniffImageType(gif) ?? '')).toEqual({ width: 10, height: 20 });
    expect(sniffImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP')]))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('%PDF-1.7'))).toBeUndefined();
  });

  it('reads an image with its hash, whatever its name says', async () => {
    const r = await readImageFile(file('shot.dat', PNG));
    expect(r.ok && r.image).toEqual({
      path: join(dir, 'shot.dat'),
      mime: 'image/png',
      bytes: PNG.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      width: 1,
      height: 1,
    });
    expect(r.ok && describeImage(r.image)).toBe(`shot.dat (PNG, 1×1, ${PNG.length} bytes)`);
  });

  it('lets the caller refuse by the real location of the file it opened (a symlink is followed)', async () => {
    const secret = mkdtempSync(join(tmpdir(), 'agentx-image-secret-'));
    writeFileSync(join(secret, 'key.png'), PNG);
    symlinkSync(join(secret, 'key.png'), join(dir, 'looks-harmless.png'));
    const seen: string[] = [];
    const refuse = (real: string): string | undefined => {
      seen.push(real);
      return real.startsWith(`${realpathSync(secret)}/`) ? 'hidden' : undefined;
    };
    const r = await readImageFile(join(dir, 'looks-harmless.png'), undefined, refuse);
    expect(r.ok ? 'ok' : r.error).toBe('hidden');
    expect(seen).toEqual([join(realpathSync(secret), 'key.png')]);
    const fine = await readImageFile(file('plain.png', PNG), undefined, refuse);
    expect(fine.ok).toBe(true);
  });

  it('refuses, in one line each: a missing file, a directory, a non-image, one over the cap (before reading it)', async () => {
    const error = async (path: string, max?: number): Promise<string> => {
      const r = await readImageFile(path, max);
      return r.ok ? 'ok' : r.error;
    };
    expect(await error(join(dir, 'nope.png'))).toBe(`${join(dir, 'nope.png')}: no such file`);
    expect(await error(dir)).toBe(`${dir}: not a regular file (a directory); only image files can be viewed`);
    expect(await error(file('notes.png', 'just text'))).toBe('notes.png is not a PNG, JPEG, GIF or WebP image');
    expect(await error(file('big.png', Buffer.concat([PNG, Buffer.alloc(2048)])), 1024)).toBe(
      'big.png is 2.1 KB, over the 1.0 KB limit for images; make it smaller first (for example: convert big.png -resize 50% smaller.png)',
    );
  });

  it('refuses a FIFO at once instead of waiting for a writer (which froze agentx past Ctrl-C and SIGTERM)', async () => {
    const fifo = join(dir, 'pipe.png');
    execFileSync('mkfifo', [fifo]);
    // The old blocking open waits for a writer; this one comes after 3 s, so a regression fails
    // on the time below instead of hanging the test run forever.
    const valve = spawn('/bin/sh', ['-c', `sleep 3; : > '${fifo}'`], { stdio: 'ignore' });
    try {
      const started = Date.now();
      const r = await readImageFile(fifo);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(r.ok ? 'ok' : r.error).toBe(`${fifo}: not a regular file (a named pipe); only image files can be viewed`);
    } finally {
      valve.kill('SIGKILL');
    }
  });
});
