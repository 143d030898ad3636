import { describe, expect, it } from 'vitest';
import { decodeMessage, PasteFilter, PASTE_END, PASTE_NEWLINE, PASTE_START } from './terminal.ts';

describe('PasteFilter', () => {
  it('turns a bracketed paste into one line and keeps typed Enter', () => {
    const f = new PasteFilter();
    const line = f.transform(`${PASTE_START}a\nb\r\nc\td${PASTE_END}\r`);
    expect(line).toBe(`a${PASTE_NEWLINE}b${PASTE_NEWLINE}c\u2409d\r`);
    expect(decodeMessage(line.slice(0, -1))).toBe('a\nb\nc\td');
  });

  it('handles markers split across chunks', () => {
    const f = new PasteFilter();
    expect(f.transform('\x1b[20')).toBe('');
    // Pasted text is handed on whole, when the paste ends.
    expect(f.transform('0~x\ny\x1b[2')).toBe('');
    expect(f.transform('01~\r')).toBe(`x${PASTE_NEWLINE}y\r`);
  });

  it('holds even one byte of an end marker split across chunks', () => {
    const f = new PasteFilter();
    expect(f.transform(`${PASTE_START}abc\x1b`)).toBe('');
    expect(f.transform('[201~d')).toBe('abcd');
  });

  it('treats lines arriving in one chunk as a paste, a lone Enter as Enter', () => {
    const f = new PasteFilter();
    expect(f.transform('one\ntwo\n')).toBe(`one${PASTE_NEWLINE}two\r`);
    expect(f.transform('hello\r')).toBe('hello\r');
    expect(f.transform('\r')).toBe('\r');
    expect(f.transform('\x1b[A')).toBe('\x1b[A');
  });

  it('drops control bytes inside a paste', () => {
    const f = new PasteFilter();
    expect(f.transform(`${PASTE_START}a\x1b[31mb\x07${PASTE_END}`)).toBe('a[31mb');
  });

  it('hands pasted text over as one piece, apart from typed keys', () => {
    const f = new PasteFilter();
    expect(f.pieces(`ab${PASTE_START}x\ny${PASTE_END}\r`)).toEqual([
      { kind: 'keys', text: 'ab' },
      { kind: 'paste', text: `x${PASTE_NEWLINE}y` },
      { kind: 'keys', text: '\r' },
    ]);
    // Without bracketed paste: lines in one chunk are pasted, the final newline is Enter.
    expect(f.pieces('one\ntwo\n')).toEqual([
      { kind: 'paste', text: `one${PASTE_NEWLINE}two` },
      { kind: 'keys', text: '\r' },
    ]);
  });

  it('keeps 100 KB of pasted lines intact across chunks', () => {
    const f = new PasteFilter();
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i}: ${'x'.repeat(40)}`).join('\n');
    const data = `${PASTE_START}${text}${PASTE_END}`;
    const pieces = [];
    for (let i = 0; i < data.length; i += 4093) pieces.push(...f.pieces(data.slice(i, i + 4093)));
    expect(pieces).toHaveLength(1);
    expect(pieces[0]?.kind).toBe('paste');
    expect(decodeMessage(pieces[0]?.text ?? '')).toBe(text);
  });
});
