import { describe, expect, it } from 'vitest';
import { COLOR_THEME, PLAIN_THEME } from '../../ui/theme.ts';
import { colourDiff } from './diff-command.ts';

describe('colourDiff', () => {
  const diff = ['diff --git a/a.txt b/a.txt', '--- a/a.txt', '+++ b/a.txt', '@@ -1 +1 @@', '-old', '+new', ' same'].join('\n');

  it('colours added, removed and hunk lines, and leaves context alone', () => {
    const lines = colourDiff(diff, COLOR_THEME).split('\n');
    expect(lines[4]).toBe(COLOR_THEME.red('-old'));
    expect(lines[5]).toBe(COLOR_THEME.green('+new'));
    expect(lines[3]).toBe(COLOR_THEME.cyan('@@ -1 +1 @@'));
    expect(lines[1]).toBe(COLOR_THEME.bold('--- a/a.txt'));
    expect(lines[6]).toBe(' same');
  });

  it('is the text itself without colour', () => {
    expect(colourDiff(diff, PLAIN_THEME)).toBe(diff);
  });
});
