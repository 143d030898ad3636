// The virtual terminal behind the demo's transcript: what a program draws in place (spinners,
// line editors, menus) comes out once, as the final text.
import { describe, expect, it } from 'vitest';
import { Screen, plainText } from './screen.ts';
import { PLAIN_STYLE, applySgr, sgrParams } from './sgr.ts';

const screen = (cols = 40, height = 20): Screen => new Screen(cols, height);

describe('Screen', () => {
  it('hands out each finished line once, and keeps the cursor line back until it is finished', () => {
    const s = screen();
    s.write('one\r\ntwo\r\nthr');
    expect(s.takeSettled(false)).toEqual(['one', 'two']);
    expect(s.takeSettled(false)).toEqual([]);
    s.write('ee\r\n');
    expect(s.takeSettled(false)).toEqual(['three']);
  });

  it('keeps only what a spinner leaves behind', () => {
    const s = screen();
    s.write('\r⠋ thinking…\x1b[K\r⠙ thinking…\x1b[K\r\x1b[Kthe answer\r\n');
    expect(s.takeSettled(false)).toEqual(['the answer']);
  });

  it('shows a line editor prompt with what was typed, once', () => {
    const s = screen();
    s.write('\x1b[1G\x1b[0Juser@host:~> \x1b[13G');
    s.write('h');
    s.write('i');
    s.write('\x1b[1G\x1b[0Juser@host:~> hi\x1b[15G');
    s.write('\r\r\n');
    expect(s.takeSettled(false)).toEqual(['user@host:~> hi']);
  });

  it('prints a menu redrawn in place once, as last drawn', () => {
    const s = screen();
    s.write('Pick one\r\n❯ 1. red\r\n  2. blue\r\nnumber:');
    s.write('\r\x1b[3A\x1b[JPick one\r\n  1. red\r\n❯ 2. blue\r\nnumber: 2');
    s.write('\r\n→ blue\r\n');
    expect(s.takeSettled(false)).toEqual(['Pick one', '  1. red', '❯ 2. blue', 'number: 2', '→ blue']);
  });

  it('never rewrites lines it handed out: moving up stops there', () => {
    const s = screen();
    s.write('kept\r\n');
    expect(s.takeSettled(false)).toEqual(['kept']);
    s.write('\x1b[5Anew\r\n');
    expect(s.takeSettled(false)).toEqual(['new']);
  });

  it('joins a line the terminal wrapped, and waits while its continuation is still being written', () => {
    const s = screen(10);
    s.write('0123456789abc');
    expect(s.takeSettled(false)).toEqual([]);
    s.write('de\r\nnext\r\n');
    expect(s.takeSettled(false)).toEqual(['0123456789abcde', 'next']);
  });

  it('does not add an empty line when text ends exactly at the last column', () => {
    const s = screen(5);
    s.write('12345\r\nab\r\n');
    expect(s.takeSettled(false)).toEqual(['12345', 'ab']);
  });

  it('hands out lines that scrolled off the screen without waiting for a rest', () => {
    const s = screen(40, 3);
    s.write('a\r\nb\r\nc\r\nd\r\ne');
    expect(s.takeScrolledOff(false)).toEqual(['a', 'b']);
    expect(s.takeAll(false)).toEqual(['c', 'd', 'e']);
  });

  it('takeAll gives the unfinished cursor line and drops trailing blank rows', () => {
    const s = screen();
    s.write('done\r\n> quit\r\n\r\n');
    expect(s.takeAll(false)).toEqual(['done', '> quit']);
  });

  it('keeps colours when asked, as one sequence per change, and strips them otherwise', () => {
    const s = screen();
    s.write('\x1b[32mok\x1b[39m plain \x1b[1;31mbad\x1b[0m\r\n');
    expect(s.takeSettled(true)).toEqual(['\x1b[0;32mok\x1b[0m plain \x1b[0;1;31mbad\x1b[0m']);
    s.write('\x1b[2mdim\x1b[22m\r\n');
    expect(s.takeSettled(false)).toEqual(['dim']);
  });

  it('reads an escape sequence split across writes', () => {
    const s = screen();
    s.write('\x1b[3');
    s.write('6mcyan\x1b');
    s.write('[39m\r\n');
    expect(s.takeSettled(true)).toEqual(['\x1b[0;36mcyan\x1b[0m']);
  });

  it('clearing the screen does not erase the transcript', () => {
    const s = screen();
    s.write('before\r\n\x1b[2J\x1b[3J\x1b[Hafter\r\n');
    expect(s.takeSettled(false)).toEqual(['before', 'after']);
  });

  it('moves by columns: left, right, absolute, tab and backspace', () => {
    const s = screen();
    s.write('abcdef\x1b[3Dxy\x1b[1Gz\x1b[2Cw\tT\bt\r\n');
    expect(s.takeSettled(false)).toEqual(['zbcwyf  t']);
  });

  it('ignores private modes, OSC titles and charset switches', () => {
    const s = screen();
    s.write('\x1b[?2004h\x1b]0;title\x07\x1b(Btext\x1b[?25l\r\n');
    expect(s.takeSettled(false)).toEqual(['text']);
  });
});

describe('plainText', () => {
  it('removes every escape sequence and carriage return', () => {
    expect(plainText('\x1b[1G\x1b[0J\x1b[32mok\x1b[39m\r\n\x1b]0;t\x07done')).toBe('ok\ndone');
  });
});

describe('SGR styles', () => {
  it('applies and reproduces attributes, 256 and true colours', () => {
    let st = applySgr(PLAIN_STYLE, '1;38;5;208');
    expect(sgrParams(st)).toBe('1;38;5;208');
    st = applySgr(st, '48;2;1;2;3;4');
    expect(sgrParams(st)).toBe('1;4;38;5;208;48;2;1;2;3');
    st = applySgr(st, '22;24;39');
    expect(sgrParams(st)).toBe('48;2;1;2;3');
    expect(sgrParams(applySgr(st, ''))).toBe('');
  });
});
