import { describe, expect, it } from 'vitest';
import { charWidth, padToWidth, splitToWidth, stringWidth, wrapWords } from './width.ts';

describe('width', () => {
  it('measures wide, zero-width and styled text', () => {
    expect(charWidth('a'.codePointAt(0) ?? 0)).toBe(1);
    expect(stringWidth('漢字')).toBe(4);
    expect(stringWidth('e\u0301')).toBe(1);
    expect(stringWidth('😀')).toBe(2);
    expect(stringWidth('\x1b[1mbold\x1b[22m')).toBe(4);
  });

  it('wraps at spaces, splits only words longer than a row', () => {
    expect(wrapWords('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapWords('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapWords('short', 10)).toEqual(['short']);
    for (const row of wrapWords('漢字漢字 漢字漢字漢字', 5)) expect(stringWidth(row)).toBeLessThanOrEqual(5);
  });

  it('keeps escape sequences whole when splitting and pads styled text by its width', () => {
    expect(splitToWidth('\x1b[31mabcd\x1b[39m', 2)).toEqual(['\x1b[31mab', 'cd\x1b[39m']);
    expect(padToWidth('\x1b[1mab\x1b[22m', 4, 'right')).toBe('  \x1b[1mab\x1b[22m');
  });
});
