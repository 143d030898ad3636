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
    expect(f.transform('0~x\ny\x1b[2')).toBe(`x${PASTE_NEWLINE}y`);
    expect(f.transform('01~\r')).toBe('\r');
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
});
