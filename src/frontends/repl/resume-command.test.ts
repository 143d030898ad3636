import { describe, expect, it } from 'vitest';
import { archivedLabel, lastMessageLabel } from './resume-command.ts';

describe('a line of the /resume list', () => {
  it('shows the date, the turns, the first message and the last one when it differs', () => {
    const label = archivedLabel({ archivedAt: '2026-12-05T20:41:00Z', turns: 3, firstPrompt: 'fix the parser', lastMessage: 'now the tests' });
    expect(label).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}3 turns {2}"fix the parser" … last: "now the tests"$/);
    expect(archivedLabel({ archivedAt: '2026-12-05T20:41:00Z', turns: 1, firstPrompt: 'once', lastMessage: 'once' })).toMatch(/ 1 turn {2}"once"$/);
    expect(archivedLabel({ archivedAt: 'not a date', turns: 0, firstPrompt: '' })).toBe('????-??-?? ??:??  0 turns  (no message)');
  });

  it('names the files its calls changed: the count and the first three', () => {
    const base = { archivedAt: '2026-12-05T20:41:00Z', turns: 2, firstPrompt: 'fix it' };
    expect(archivedLabel({ ...base, filesChanged: { paths: ['src/a.ts'], count: 1 } })).toMatch(/ 2 turns, 1 file \(src\/a\.ts\) {2}"fix it"$/);
    expect(archivedLabel({ ...base, filesChanged: { paths: ['a', 'b', 'c', 'd'], count: 40 } })).toMatch(/ 2 turns, 40 files \(a, b, c, …\) {2}"fix it"$/);
    expect(archivedLabel({ ...base, filesChanged: { paths: [], count: 0 } })).toMatch(/ 2 turns {2}"fix it"$/);
    // A file name is anything a command could create: shown without its escape sequences.
    expect(archivedLabel({ ...base, filesChanged: { paths: ['x\x1b]0;pwned\x07.ts'], count: 1 } })).not.toMatch(/[\x00-\x1f\x7f]/);
  });

  it('sanitizes what was typed or pasted: no escape sequence or control character reaches the terminal', () => {
    const label = archivedLabel({
      archivedAt: '2026-12-05T20:41:00Z',
      turns: 1,
      firstPrompt: 'look \x1b[2J\x1b]0;pwned\x07here\r\nnow',
      lastMessage: 'bye \x1b[31mred',
    });
    expect(label).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(label).toContain('look');
  });
});

describe('the last message of a conversation switched to', () => {
  it('is quoted and sanitized; a state without one says so instead of last: ""', () => {
    expect(lastMessageLabel('fix the parser')).toBe('last: "fix the parser"');
    expect(lastMessageLabel('a\x1b]0;x\x07b')).not.toMatch(/[\x00-\x1f]/);
    expect(lastMessageLabel(null)).toBe('last: (no message saved)');
    expect(lastMessageLabel(undefined)).toBe('last: (no message saved)');
    expect(lastMessageLabel('')).toBe('last: (no message saved)');
    expect(lastMessageLabel('  \n ')).toBe('last: (no message saved)');
  });
});
