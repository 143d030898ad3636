import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTACH_MAX_BYTES, attachMentioned, mentionedPaths } from './attachments.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentx-attach-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('@path attachments', () => {
  it('finds @words at word starts, punctuation left off', () => {
    expect(mentionedPaths('see @a.ts, and @src/b.ts. mail me@x.org @a.ts')).toEqual(['a.ts', 'src/b.ts']);
  });

  it('attaches text files, says what it did, and leaves unknown words alone', () => {
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src/a.ts'), 'const a = 1;\nconst b = "```";\n');
    writeFileSync(join(dir, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(ATTACH_MAX_BYTES + 5000));
    const got = attachMentioned('look at @src/a.ts and @bin.dat, @src, @big.txt and @team', dir, dir);
    expect(got.map((a) => a.line)).toEqual([
      'attached @src/a.ts: 2 lines, 30 bytes',
      '@bin.dat looks binary: not attached (use /image for pictures)',
      '@src is a directory: not attached (name files, e.g. @src/FILE)',
      'attached @big.txt: the first 100 KB of 105 KB (cut)',
    ]);
    const note = got[0]?.note ?? '';
    expect(note).toContain('The user attached the file src/a.ts');
    // The file holds ``` itself: the fence is longer, so the content cannot end it.
    expect(note).toContain('````\nconst a = 1;\nconst b = "```";\n````');
    expect(got[3]?.note?.length).toBeLessThan(ATTACH_MAX_BYTES + 500);
  });
});
