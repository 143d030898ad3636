import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alreadyApplied, applyPatch, parsePatch } from './index.ts';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-applied-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const env = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
const check = (patch: string) => alreadyApplied(parsePatch(patch), { root });

describe('alreadyApplied', () => {
  it('is false before and true after applying a multi-file patch, so a retry does not apply twice', async () => {
    writeFileSync(join(root, 'a.txt'), 'x\ny\nz\n');
    writeFileSync(join(root, 'old.txt'), 'old\n');
    writeFileSync(join(root, 'mv.txt'), 'm\n');
    // Inserting after `y` would insert a second copy if simply re-applied.
    const patch = env(
      '*** Update File: a.txt',
      ' y',
      '+inserted',
      ' z',
      '*** Add File: new.txt',
      '+n',
      '*** Delete File: old.txt',
      '*** Update File: mv.txt',
      '*** Move to: d/mv.txt',
      '-m',
      '+M',
    );
    expect(await check(patch)).toEqual({ applied: false, operations: [false, false, false, false] });
    expect((await applyPatch(parsePatch(patch), { root })).ok).toBe(true);
    expect(await check(patch)).toEqual({ applied: true, operations: [true, true, true, true] });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('x\ny\ninserted\nz\n');
  });

  it('reports a partly applied patch per operation (a crash between two files)', async () => {
    writeFileSync(join(root, 'a.txt'), 'A\n');
    writeFileSync(join(root, 'b.txt'), 'b\n');
    expect(await check(env('*** Update File: a.txt', '-a', '+A', '*** Update File: b.txt', '-b', '+B'))).toEqual({ applied: false, operations: [true, false] });
  });

  it('follows several sections on one file backwards', async () => {
    writeFileSync(join(root, 'f.txt'), 'uno\n');
    expect((await check(env('*** Update File: f.txt', '-one', '+ONE', '*** Update File: f.txt', '-ONE', '+uno'))).applied).toBe(true);
    expect((await check(env('*** Delete File: f.txt', '*** Add File: f.txt', '+uno'))).applied).toBe(true);
    expect((await check(env('*** Update File: g.txt', '-x', '+y', '*** Delete File: g.txt'))).applied).toBe(true);
  });

  it('is false when an added file differs, a deleted file exists or a moved source is still there', async () => {
    writeFileSync(join(root, 'a.txt'), 'other\n');
    writeFileSync(join(root, 'src.txt'), 'S\n');
    writeFileSync(join(root, 'dst.txt'), 'S\n');
    expect((await check(env('*** Add File: a.txt', '+mine'))).applied).toBe(false);
    expect((await check(env('*** Delete File: a.txt'))).applied).toBe(false);
    expect((await check(env('*** Update File: src.txt', '*** Move to: dst.txt', '-s', '+S'))).applied).toBe(false);
  });

  it('counts a pure rename as applied once the source is gone and the destination exists', async () => {
    writeFileSync(join(root, 'dst.txt'), 'S\n');
    expect((await check(env('*** Update File: src.txt', '*** Move to: dst.txt'))).applied).toBe(true);
  });

  it('is false, never throwing, for paths outside the workspace or a missing root', async () => {
    expect((await check(env('*** Delete File: ../elsewhere.txt'))).applied).toBe(false);
    expect(await alreadyApplied(parsePatch(env('*** Delete File: x')), { root: join(root, 'missing') })).toEqual({ applied: false, operations: [false] });
    expect(await alreadyApplied([], { root })).toEqual({ applied: false, operations: [] });
  });
});
