import { describe, expect, it } from 'vitest';
import { commandsInline, confirmPrompt, formatCommand } from './command-view.ts';
import { COLOR_THEME, PLAIN_THEME } from './theme.ts';

describe('confirmPrompt', () => {
  it('shows a forged command as it really is: every control visible, the question last', () => {
    const prompt = confirmPrompt(['echo hi\r\x1b[2Kls # harmless'], PLAIN_THEME);
    expect(prompt).toBe('? run this command:\n  $ echo hi\\x0d\\x1b[2Kls # harmless\n  [y]es / [n]o / [a]lways: ');
  });

  it('cannot be overwritten: no CR, no escape sequence of the command reaches the terminal', () => {
    const prompt = confirmPrompt(['rm -rf ~\r\x1b[1A\x1b[2K? run this command:\n  $ ls\x1b]0;t\x07', 'x\u202etxt.exe'], COLOR_THEME);
    const withoutOwnStyles = prompt.replace(/\x1b\[(?:[0-9]+)m/g, '');
    expect(withoutOwnStyles).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(withoutOwnStyles).toContain('$ rm -rf ~\\x0d\\x1b[1A\\x1b[2K? run this command:');
    // The newline the command holds starts a marked continuation row, never a line of its own.
    expect(withoutOwnStyles).toContain('\n  │   $ ls\\x1b]0;t\\x07');
    expect(withoutOwnStyles).toContain('$ x\\u202etxt.exe');
    expect(withoutOwnStyles.endsWith('[y]es / [n]o / [a]lways: ')).toBe(true);
  });

  it('marks escapes in inverse video so they cannot pass for typed text', () => {
    expect(confirmPrompt(['a\rb'], COLOR_THEME)).toContain('\x1b[7m\\x0d\x1b[27m');
  });
});

describe('formatCommand / commandsInline', () => {
  it('puts continuation rows behind a gutter', () => {
    expect(formatCommand('cat <<EOF\nhi\nEOF', PLAIN_THEME)).toBe('$ cat <<EOF\n│ hi\n│ EOF');
  });
  it('joins commands on one line with newlines visible', () => {
    expect(commandsInline(['a\nb', 'c'], PLAIN_THEME)).toBe('a\\x0ab && c');
  });
});
