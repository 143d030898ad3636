import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotTree, treeDifferences } from '../../../test/patches/tree.ts';
import { applyPatch, parsePatch } from './index.ts';
import type { PatchResult } from './index.ts';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-run-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const env = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
const run = (patch: string, opts: { maxBytes?: number; durable?: boolean } = {}): Promise<PatchResult> => applyPatch(parsePatch(patch), { root, ...opts });
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

describe('applyPatch: results', () => {
  it('reports each file with its operation, counts, a unified diff and a summary line', async () => {
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(root, 'gone.txt'), 'x\ny\n');
    writeFileSync(join(root, 'm.txt'), 'keep\n');
    const r = await run(
      env(
        '*** Update File: a.txt',
        ' one',
        '-two',
        '+2',
        '+2.5',
        '*** Add File: n/new.txt',
        '+hi',
        '*** Delete File: gone.txt',
        '*** Update File: m.txt',
        '*** Move to: moved/m.txt',
      ),
    );
    if (!r.ok) throw new Error(r.output);
    expect(r.output).toBe('Updated a.txt (+2 -1)\nAdded n/new.txt (+1 -0)\nDeleted gone.txt (+0 -2)\nMoved m.txt -> moved/m.txt (+0 -0)');
    expect(r.changes[0]?.diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2.5\n three\n');
    expect(r.changes[1]?.diff).toBe('--- /dev/null\n+++ b/n/new.txt\n@@ -0,0 +1,1 @@\n+hi\n');
    expect(r.changes[2]?.diff).toBe('--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n');
    expect(r.changes[3]).toMatchObject({ operation: 'update', path: 'm.txt', movedTo: 'moved/m.txt', diff: '' });
    expect([read('a.txt'), read('n/new.txt'), read('moved/m.txt')]).toEqual(['one\n2\n2.5\nthree\n', 'hi\n', 'keep\n']);
  });

  it('previews a patch without writing anything (dryRun)', async () => {
    writeFileSync(join(root, 'a.txt'), 'x\n');
    const before = snapshotTree(root);
    const r = await applyPatch(parsePatch(env('*** Update File: a.txt', '-x', '+y', '*** Add File: n/b.txt', '+b')), { root, dryRun: true });
    expect(r.ok && r.changes.map((c) => [c.path, c.added, c.removed])).toEqual([
      ['a.txt', 1, 1],
      ['n/b.txt', 1, 0],
    ]);
    expect(treeDifferences(snapshotTree(root), before)).toEqual([]);
  });

  it('counts a re-typed unchanged line as no change', async () => {
    writeFileSync(join(root, 'a.txt'), 'x\ny\n');
    const r = await run(env('*** Update File: a.txt', '-x', '-y', '+x', '+Y'));
    expect(r.ok && r.changes[0]).toMatchObject({ added: 1, removed: 1 });
  });

  it('deletes a binary file without showing it, and refuses to patch or overwrite one', async () => {
    writeFileSync(join(root, 'b.bin'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await run(env('*** Add File: b.bin', '+text'))).output).toContain('cannot add b.bin: it is a binary file');
    expect((await run(env('*** Update File: latin1.txt', '-x', '+y'))).output).toContain('it is a binary file (or not UTF-8 text)');
    const r = await run(env('*** Delete File: b.bin'));
    expect(r.output).toBe('Deleted b.bin (a binary file, not shown)');
  });

  it('refuses a result over the size cap', async () => {
    writeFileSync(join(root, 'a.txt'), 'x\n');
    const r = await run(env('*** Update File: a.txt', '-x', `+${'y'.repeat(200)}`), { maxBytes: 100 });
    expect(r.ok ? '' : r.error).toMatchObject({ kind: 'too_large', message: 'a.txt would be 201 bytes, over the 100 bytes limit for patched files' });
    expect(read('a.txt')).toBe('x\n');
  });
});

describe('applyPatch: a move onto an existing file', () => {
  it('is refused with a clear error, and neither file changes', async () => {
    writeFileSync(join(root, 'src.txt'), 'moving\n');
    writeFileSync(join(root, 'dst.txt'), 'precious\n');
    const before = snapshotTree(root);
    const r = await run(env('*** Update File: src.txt', '*** Move to: dst.txt', '-moving', '+moved'));
    expect(r.ok).toBe(false);
    expect(r.output).toContain('cannot move src.txt to dst.txt: dst.txt already exists (a file); a move never replaces a file');
    expect(treeDifferences(snapshotTree(root), before)).toEqual([]);
  });

  it('is allowed once an earlier section of the same patch deleted the destination', async () => {
    writeFileSync(join(root, 'src.txt'), 'moving\n');
    writeFileSync(join(root, 'dst.txt'), 'old\n');
    const r = await run(env('*** Delete File: dst.txt', '*** Update File: src.txt', '*** Move to: dst.txt'));
    if (!r.ok) throw new Error(r.output);
    expect(read('dst.txt')).toBe('moving\n');
  });
});

describe('applyPatch: the file itself', () => {
  it('keeps the permission bits of a rewritten or moved file', async () => {
    writeFileSync(join(root, 'run.sh'), 'echo a\n');
    chmodSync(join(root, 'run.sh'), 0o750);
    writeFileSync(join(root, 'private.txt'), 'p\n');
    chmodSync(join(root, 'private.txt'), 0o600);
    const r = await run(env('*** Update File: run.sh', '-echo a', '+echo b', '*** Update File: private.txt', '*** Move to: sub/private.txt', '-p', '+q'));
    expect(r.ok).toBe(true);
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o750);
    expect(statSync(join(root, 'sub/private.txt')).mode & 0o777).toBe(0o600);
  });

  it('edits the target of a symbolic link inside the workspace and keeps the link', async () => {
    writeFileSync(join(root, 'real.txt'), 'a\n');
    symlinkSync('real.txt', join(root, 'link.txt'));
    expect((await run(env('*** Update File: link.txt', '-a', '+b'))).output).toBe('Updated real.txt (+1 -1)');
    expect(readlinkSync(join(root, 'link.txt'))).toBe('real.txt');
    expect(read('real.txt')).toBe('b\n');
  });

  it('handles a file name too long to get a suffix, and leaves no temp file behind', async () => {
    const name = `${'n'.repeat(250)}.txt`;
    writeFileSync(join(root, name), 'a\n');
    for (const durable of [true, false]) {
      expect((await run(env(`*** Update File: ${name}`, durable ? '-a' : '-b', durable ? '+b' : '+c'), { durable })).ok).toBe(true);
    }
    expect([...snapshotTree(root).keys()]).toEqual([name]);
    expect(read(name)).toBe('c\n');
  });

  it('replaces a file by a directory of the same name in one patch', async () => {
    writeFileSync(join(root, 'docs'), 'was a file\n');
    expect((await run(env('*** Delete File: docs', '*** Add File: docs/index.md', '+# Docs'))).ok).toBe(true);
    expect(read('docs/index.md')).toBe('# Docs\n');
  });
});

const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));
const bwrapWorks = spawnSync('bwrap', ['--bind', '/', '/', 'true']).status === 0;

/** Runs applyPatch in a child process where `readOnly` (a dir of the workspace) cannot be written. */
async function applyWithReadOnlyDir(readOnly: string, patch: string): Promise<PatchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-run-child-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `import { applyPatch, parsePatch } from ${JSON.stringify(INDEX)};\nconst [root, patch] = process.argv.slice(2);\nprocess.stdout.write(JSON.stringify(await applyPatch(parsePatch(patch), { root })));\n`,
    );
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'apply.mjs'), logLevel: 'warning' });
    const child = spawnSync('bwrap', ['--bind', '/', '/', '--ro-bind', readOnly, readOnly, process.execPath, join(dir, 'apply.mjs'), root, patch], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
    return JSON.parse(child.stdout) as PatchResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!bwrapWorks)('applyPatch: the disk refuses part-way (read-only bind mount)', () => {
  it('restores every file already written, parked or created, and says so', async () => {
    mkdirSync(join(root, 'ro'));
    writeFileSync(join(root, 'ro', 'locked.txt'), 'locked\n');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    writeFileSync(join(root, 'gone.txt'), 'gone\n');
    writeFileSync(join(root, 'src.txt'), 'moving\n');
    const before = snapshotTree(root);
    const result = await applyWithReadOnlyDir(
      join(root, 'ro'),
      env(
        '*** Update File: a.txt',
        '-a',
        '+A',
        '*** Delete File: gone.txt',
        '*** Add File: new/dir/n.txt',
        '+n',
        '*** Update File: src.txt',
        '*** Move to: dst.txt',
        // Many independent writes (several in flight at once), some into the same new directories.
        ...Array.from({ length: 24 }, (_, i) => [`*** Add File: many/d${i % 5}/f${i}.txt`, `+${i}`]).flat(),
        '*** Update File: ro/locked.txt',
        '-locked',
        '+open',
      ),
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/writing the patch failed \(.*(EROFS|read-only).*\); the files already written were restored/i);
    expect(treeDifferences(snapshotTree(root), before)).toEqual([]);
  });
});
