import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeSpanChanges, parseRawNumstat, type FileChange } from './diff.ts';
import { makeSandbox, snapId, write, type Sandbox } from '../../test/support/workspace.ts';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const blob = (n: number): string => String(n).repeat(40).slice(0, 40);

describe('parseRawNumstat', () => {
  it('reads raw records and marks binary files from numstat', () => {
    const out = Buffer.from(
      [
        `:000000 100644 ${'0'.repeat(40)} ${blob(1)} A`,
        'new file.txt',
        `:100644 100755 ${blob(2)} ${blob(3)} M`,
        'run.sh',
        `:100644 000000 ${blob(4)} ${'0'.repeat(40)} D`,
        'img.png',
        '1\t0\tnew file.txt',
        '0\t0\trun.sh',
        '-\t-\timg.png',
        '',
      ].join('\0'),
    );
    expect(parseRawNumstat(out)).toEqual([
      { status: 'A', path: 'new file.txt', before: null, after: { mode: '100644', id: blob(1) }, binary: false, modeChanged: false, symlink: false },
      {
        status: 'M',
        path: 'run.sh',
        before: { mode: '100644', id: blob(2) },
        after: { mode: '100755', id: blob(3) },
        binary: false,
        modeChanged: true,
        symlink: false,
      },
      { status: 'D', path: 'img.png', before: { mode: '100644', id: blob(4) }, after: null, binary: true, modeChanged: false, symlink: false },
    ]);
  });
});

describe('mergeSpanChanges', () => {
  const change = (p: string, before: string | null, after: string | null): FileChange => ({
    status: before === null ? 'A' : after === null ? 'D' : 'M',
    path: p,
    before: before === null ? null : { mode: '100644', id: before },
    after: after === null ? null : { mode: '100644', id: after },
    binary: false,
    modeChanged: false,
    symlink: false,
  });

  it('takes each file from before its first change to after its last, and drops round trips', () => {
    const merged = mergeSpanChanges([
      [change('a', blob(1), blob(2)), change('tmp', null, blob(5))],
      [change('a', blob(7), blob(8)), change('tmp', blob(5), null), change('b', null, blob(9))],
    ]);
    expect(merged.map((c) => [c.status, c.path, c.before?.id ?? null, c.after?.id ?? null])).toEqual([
      ['M', 'a', blob(1), blob(8)],
      ['A', 'b', null, blob(9)],
    ]);
  });
});

describe('diff', () => {
  it('lists created, changed, deleted, binary, mode and symlink changes, with a plain unified diff', async () => {
    write(sb.ws, 'keep.txt', 'same\n');
    write(sb.ws, 'edit.txt', 'old line\n');
    write(sb.ws, 'gone.txt', 'bye\n');
    write(sb.ws, 'tool.sh', 'echo\n', 0o644);
    write(sb.ws, 'img.bin', Buffer.from([0, 1, 2, 0, 255]));
    fs.symlinkSync('keep.txt', path.join(sb.ws, 'ptr'));
    const s = await sb.open();
    const from = await snapId(s);
    write(sb.ws, 'edit.txt', 'new line\n');
    fs.unlinkSync(path.join(sb.ws, 'gone.txt'));
    write(sb.ws, 'added.txt', 'hi\n');
    fs.chmodSync(path.join(sb.ws, 'tool.sh'), 0o755);
    write(sb.ws, 'img.bin', Buffer.from([0, 9, 9, 0, 255]));
    fs.unlinkSync(path.join(sb.ws, 'ptr'));
    fs.symlinkSync('edit.txt', path.join(sb.ws, 'ptr'));
    const to = await snapId(s);
    const d = await s.diff(from, to);
    expect(d.summary).toEqual(['A added.txt', 'M edit.txt', 'D gone.txt', 'M img.bin (binary)', 'M ptr (symlink)', 'M tool.sh (mode 100644 → 100755)']);
    expect(d.text).toContain('-old line\n+new line\n');
    expect(d.text).toContain('Binary files a/img.bin and b/img.bin differ');
    expect(d.text).toContain('old mode 100644\nnew mode 100755');
    expect(d.text).not.toMatch(/\x1b\[/);
  });

  it('compares a snapshot with the files as they are now', async () => {
    write(sb.ws, 'a.txt', '1\n');
    const s = await sb.open();
    const from = await snapId(s);
    write(sb.ws, 'a.txt', '2\n');
    write(sb.ws, 'renamed/b.txt', 'b\n');
    const d = await s.diff(from, 'worktree');
    expect(d.summary).toEqual(['M a.txt', 'A renamed/b.txt']);
  });

  it('shows only what changed inside the spans, not what changed between them', async () => {
    write(sb.ws, 'a.txt', 'start\n');
    write(sb.ws, 'mine.txt', 'person\n');
    const s = await sb.open();
    const b1 = await snapId(s);
    write(sb.ws, 'a.txt', 'turn 1\n');
    const a1 = await snapId(s);
    write(sb.ws, 'mine.txt', 'person edits between turns\n');
    const b2 = await snapId(s);
    write(sb.ws, 'a.txt', 'turn 2\n');
    write(sb.ws, 'b.txt', 'new in turn 2\n');
    const a2 = await snapId(s);
    const gitDir = path.join(s.storeDir ?? '', 'git');
    const shared = fs.readdirSync(gitDir).filter((n) => n.startsWith('sharedindex.'));
    const d = await s.diffSpans([
      { from: b1, to: a1 },
      { from: b2, to: a2 },
    ]);
    expect(d.summary).toEqual(['M a.txt', 'A b.txt']);
    expect(d.text).toContain('-start\n+turn 2\n');
    expect(d.text).not.toContain('mine.txt');
    // Rendering the merged diff leaves no index behind in the store.
    expect(fs.readdirSync(gitDir).filter((n) => n.startsWith('sharedindex.'))).toEqual(shared);
    expect(fs.readdirSync(s.storeDir ?? '').filter((n) => n.startsWith('index.diff'))).toEqual([]);
  });

  it('rejects something that is not a snapshot id before it reaches git', async () => {
    const s = await sb.open();
    await expect(s.diff('--output=/tmp/x', 'worktree')).rejects.toThrow(/not a snapshot id/);
  });
});
