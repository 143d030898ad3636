// The session's fixed-memory head+tail buffer: what a read returns equals cutting the whole
// output (head, count, tail), however it was chunked, while the caller reuses its chunk memory.
import { describe, expect, it } from 'vitest';
import { truncationMarker } from '../output.ts';
import { SessionBuffer } from './session-buffer.ts';

/** Pushes `text` in chunks of `size` through one reused buffer, as the pipe reader does. */
function pushReused(b: SessionBuffer, text: string, size: number): void {
  const bytes = Buffer.from(text, 'utf8');
  const scratch = Buffer.alloc(size);
  for (let i = 0; i < bytes.length; i += size) {
    const n = bytes.copy(scratch, 0, i, Math.min(bytes.length, i + size));
    b.push(scratch.subarray(0, n));
    scratch.fill(0x21); // what the reader's next read would overwrite
  }
}

describe('SessionBuffer', () => {
  it('returns everything when it fits, and is empty after a take', () => {
    const b = new SessionBuffer(8, 8);
    pushReused(b, 'hello world!', 5);
    expect(b.take()).toEqual({ text: 'hello world!', cutBytes: 0, totalBytes: 12 });
    expect(b.take()).toEqual({ text: '', cutBytes: 0, totalBytes: 0 });
  });

  it('keeps the head and the last bytes through a wrapping ring, with the count of what was dropped', () => {
    for (const chunk of [1, 3, 7, 64]) {
      const b = new SessionBuffer(10, 16);
      const text = Array.from({ length: 40 }, (_, i) => `line${i}\n`).join('');
      pushReused(b, text, chunk);
      expect(b.retainedBytes).toBe(26);
      const r = b.take();
      const cut = text.length - 26;
      expect(r).toEqual({ text: text.slice(0, 10) + truncationMarker(cut) + text.slice(-16), cutBytes: cut, totalBytes: text.length });
    }
  });

  it('never cuts a character in two', () => {
    const b = new SessionBuffer(5, 5);
    pushReused(b, 'ééééééééééé', 3); // 22 bytes of two-byte characters
    const r = b.take();
    expect(r.text).not.toContain('\uFFFD');
    expect(r.text.startsWith('éé')).toBe(true);
    expect(r.text.endsWith('éé')).toBe(true);
  });

  it('holds no more than head + tail for a flood, and peeks at the tail without taking it', () => {
    const b = new SessionBuffer(0, 100);
    const chunk = Buffer.alloc(65_536, 'x');
    for (let i = 0; i < 100; i++) b.push(chunk);
    b.push(Buffer.from('\nlast line\n'));
    expect(b.retainedBytes).toBe(100);
    expect(b.peekTail().endsWith('\nlast line\n')).toBe(true);
    expect(b.totalBytes).toBe(100 * 65_536 + 11);
  });
});
