import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipChars, cutMiddle, durationText, keepEnds, stringEnds, truncateMiddle } from './text.ts';

// Fixed seed, printed, overridable: a failure can be replayed with AGENTX_TEST_SEED=<seed>.
const seed = Number(process.env.AGENTX_TEST_SEED ?? 20260611);
console.log(`text truncation property seed: ${seed} (override with AGENTX_TEST_SEED)`);

// Characters of every UTF-8 width, surrogate pairs, and lone surrogates (which may pair up by
// chance next to each other), so cuts land on every kind of boundary.
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: fc.constantFrom('a', '\n', 'é', '€', '😀', '\uD83D', '\uDE00'), weight: 2 },
);
const texts = fc.string({ unit, maxLength: 200 });
const budgets = fc.integer({ min: 0, max: 300 });

/** An independent oracle for sizes: Node writes a lone surrogate as U+FFFD, 3 bytes, as utf8Length counts it. */
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Whether cutting `text` at UTF-16 index `i` would split a surrogate pair. */
const splitsPair = (text: string, i: number): boolean => i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i));

/** Surrogates without their partner: each is written as U+FFFD. */
function loneSurrogates(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isHigh(c) && isLow(s.charCodeAt(i + 1))) i++;
    else if (isHigh(c) || isLow(c)) n++;
  }
  return n;
}

const count = (s: string, ch: string): number => s.split(ch).length - 1;

/** The character starting at `i` and the one ending at `j`. */
const charAt = (s: string, i: number): string => String.fromCodePoint(s.codePointAt(i) ?? 0);
const charBefore = (s: string, j: number): string =>
  j >= 2 && isLow(s.charCodeAt(j - 1)) && isHigh(s.charCodeAt(j - 2)) ? s.slice(j - 2, j) : s.slice(j - 1, j);

describe('keepEnds (the one head-and-tail truncation)', () => {
  it('keeps a prefix and a suffix of whole characters within the budget, and counts every other byte as cut', () => {
    fc.assert(
      fc.property(texts, budgets, (text, keep) => {
        const kept = keepEnds(stringEnds(text), keep);
        if (bytes(text) <= keep) {
          expect(kept).toBeNull();
          return;
        }
        if (kept === null) throw new Error('a text over the budget must be cut');
        const { head, tail, cutBytes } = kept;
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        expect(head.length + tail.length).toBeLessThan(text.length);
        expect(bytes(head)).toBeLessThanOrEqual(Math.ceil(keep / 2));
        expect(bytes(head) + bytes(tail)).toBeLessThanOrEqual(keep);
        expect(cutBytes).toBe(bytes(text) - bytes(head) - bytes(tail));
        expect(splitsPair(text, head.length)).toBe(false);
        expect(splitsPair(text, text.length - tail.length)).toBe(false);
        // As much as fits: one more character would overrun the head's share, or the tail's rest.
        expect(bytes(head) + bytes(charAt(text, head.length))).toBeGreaterThan(Math.ceil(keep / 2));
        expect(bytes(tail) + bytes(charBefore(text, text.length - tail.length))).toBeGreaterThan(keep - bytes(head));
      }),
      { seed, numRuns: 1000 },
    );
  });
});

describe('cutMiddle', () => {
  const marker = (cut: number): string => `\n[${cut} cut]\n`;

  it('stays within the budget (plus the marker when it does not count) and introduces no broken character', () => {
    fc.assert(
      fc.property(texts, budgets, fc.boolean(), (text, maxBytes, markerInBudget) => {
        const r = cutMiddle(text, maxBytes, { marker, markerInBudget });
        if (bytes(text) <= maxBytes) {
          expect(r).toEqual({ text, cutBytes: 0 });
          return;
        }
        const markerBytes = bytes(marker(r.cutBytes));
        const keptBytes = bytes(r.text) - markerBytes;
        expect(r.cutBytes).toBe(bytes(text) - keptBytes);
        if (markerInBudget) expect(bytes(r.text)).toBeLessThanOrEqual(Math.max(maxBytes, bytes(marker(bytes(text)))));
        else expect(keptBytes).toBeLessThanOrEqual(maxBytes);
        const at = r.text.indexOf(marker(r.cutBytes));
        expect(text.startsWith(r.text.slice(0, at))).toBe(true);
        expect(text.endsWith(r.text.slice(at + marker(r.cutBytes).length))).toBe(true);
        // Valid UTF-8 out of valid UTF-16 in: no pair is split into two U+FFFD, none is added.
        expect(loneSurrogates(r.text)).toBeLessThanOrEqual(loneSurrogates(text));
        expect(count(r.text, '\uFFFD')).toBeLessThanOrEqual(count(text, '\uFFFD'));
        if (loneSurrogates(text) === 0) expect(Buffer.from(r.text, 'utf8').toString('utf8')).toBe(r.text);
      }),
      { seed, numRuns: 1000 },
    );
  });
});

describe('truncateMiddle (state-file texts)', () => {
  it('counts its marker against the limit', () => {
    // The marker is sized for 100 cut bytes (29 bytes), leaving 11: 6 of head, 5 of tail.
    expect(truncateMiddle('a'.repeat(50) + 'b'.repeat(50), 40)).toEqual({ text: `aaaaaa\n[... 89 bytes omitted ...]\nbbbbb`, cutBytes: 89 });
    expect(truncateMiddle('short', 40)).toEqual({ text: 'short', cutBytes: 0 });
  });
});

describe('durationText', () => {
  it('says milliseconds under a second, else seconds with at most one decimal', () => {
    expect([0, 300, 999.6, 1000, 1500, 2049, 30_000, 90_000].map(durationText)).toEqual(['0 ms', '300 ms', '1 s', '1 s', '1.5 s', '2 s', '30 s', '90 s']);
  });
});

describe('clipChars', () => {
  it('cuts to max characters with an ellipsis, never inside a surrogate pair', () => {
    expect(clipChars('abcdef', 6)).toBe('abcdef');
    expect(clipChars('abcdef', 4)).toBe('abc…');
    // 5 emoji are 10 UTF-16 units but 5 characters: they fit in 5.
    expect(clipChars('😀😀😀😀😀', 5)).toBe('😀😀😀😀😀');
    const cut = clipChars('a😀😀😀😀', 3);
    expect(cut).toBe('a😀…');
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
