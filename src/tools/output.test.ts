import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capOutput, OutputCollector, truncationMarker } from './output.ts';

describe('capOutput', () => {
  it('returns text within the cap unchanged', () => {
    expect(capOutput('hello\n', 100)).toEqual({ text: 'hello\n', cutBytes: 0 });
    expect(capOutput('x'.repeat(100), 100)).toEqual({ text: 'x'.repeat(100), cutBytes: 0 });
    expect(capOutput('', 0)).toEqual({ text: '', cutBytes: 0 });
  });

  it('keeps about half head and half tail around a marker with the cut byte count', () => {
    const text = 'a'.repeat(50) + 'b'.repeat(50);
    expect(capOutput(text, 20)).toEqual({ text: `${'a'.repeat(10)}\n… [80 bytes truncated] …\n${'b'.repeat(10)}`, cutBytes: 80 });
  });

  it('gives the odd byte to the head', () => {
    expect(capOutput('0123456789', 5)).toEqual({ text: `012${truncationMarker(5)}89`, cutBytes: 5 });
  });

  it('never splits a multi-byte character, giving what the head cannot use to the tail', () => {
    // 100 × 3-byte "€": the head's 5 bytes hold one whole €, the tail's 10 - 3 = 7 bytes hold two.
    expect(capOutput('€'.repeat(100), 10)).toEqual({ text: `€${truncationMarker(291)}€€`, cutBytes: 291 });
    // 4-byte emoji: a head of 5 bytes and a tail of 5 bytes each hold one.
    expect(capOutput('😀'.repeat(10), 10)).toEqual({ text: `😀${truncationMarker(32)}😀`, cutBytes: 32 });
    const r = capOutput('é€😀'.repeat(1000), 777);
    expect(r.text).not.toContain('\uFFFD');
  });

  it('keeps nothing but the marker for a zero or invalid cap, and everything for Infinity', () => {
    expect(capOutput('abc', 0)).toEqual({ text: truncationMarker(3), cutBytes: 3 });
    expect(capOutput('abc', -5)).toEqual({ text: truncationMarker(3), cutBytes: 3 });
    expect(capOutput('abc', Number.NaN)).toEqual({ text: truncationMarker(3), cutBytes: 3 });
    expect(capOutput('abc', Number.POSITIVE_INFINITY)).toEqual({ text: 'abc', cutBytes: 0 });
  });

  it('is pure: the same input gives the same output', () => {
    const text = 'line\n'.repeat(1000);
    expect(capOutput(text, 64)).toEqual(capOutput(text, 64));
  });

  it('keeps at most the cap plus the marker', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 0, max: 400 }), (text, max) => {
        const r = capOutput(text, max);
        const kept = Buffer.byteLength(r.text) - (r.cutBytes > 0 ? Buffer.byteLength(truncationMarker(r.cutBytes)) : 0);
        expect(kept).toBeLessThanOrEqual(max);
        expect(kept + r.cutBytes).toBe(Buffer.byteLength(text));
      }),
    );
  });
});

describe('OutputCollector', () => {
  it('cuts streamed bytes exactly as capOutput cuts the whole text, however they are chunked', () => {
    const arb = fc.record({
      text: fc.string({ unit: 'grapheme', maxLength: 300 }),
      max: fc.integer({ min: 0, max: 400 }),
      cuts: fc.array(fc.integer({ min: 0, max: 1200 }), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(arb, ({ text, max, cuts }) => {
        const bytes = Buffer.from(text, 'utf8');
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const collector = new OutputCollector(max);
        let from = 0;
        for (const p of [...points, bytes.length]) {
          collector.push(bytes.subarray(from, p));
          from = p;
        }
        expect(collector.result()).toEqual(capOutput(text, max));
        expect(collector.totalBytes).toBe(bytes.length);
      }),
    );
  });

  it('holds at most the cap plus one chunk (and the 3 bytes a head cut may leave to the tail), however much is pushed', () => {
    const collector = new OutputCollector(4096);
    const chunk = Buffer.alloc(1000, 'y');
    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      collector.push(chunk);
      peak = Math.max(peak, collector.retainedBytes);
    }
    expect(peak).toBeLessThanOrEqual(4096 + 3 + 1000);
    expect(collector.result().cutBytes).toBe(10_000_000 - 4096);
  });
});
