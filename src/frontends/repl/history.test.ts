import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry, loadHistory, saveHistory } from './history.ts';

describe('input history', () => {
  it('round-trips multi-line entries and backslashes', () => {
    for (const s of ['plain', 'two\nlines', 'back\\slash\\n literal', '\\']) expect(decodeEntry(encodeEntry(s))).toBe(s);
  });

  it('saves oldest first with mode 0600 and loads newest first', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentx-hist-')), 'h');
    expect(loadHistory(path)).toEqual([]);
    expect(saveHistory(path, ['newest', 'multi\nline', 'oldest'])).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('oldest\nmulti\\nline\nnewest\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadHistory(path)).toEqual(['newest', 'multi\nline', 'oldest']);
  });
});
