import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GIT_MISSING_NOTICE, describeSkipped, type SnapshotResult, type WorkspaceSnapshots } from './index.ts';
import { makeSandbox, personGit, storeGit, waitFor, write, type Sandbox } from '../../test/support/workspace.ts';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

function gitDirOf(s: WorkspaceSnapshots): string {
  if (s.storeDir === null) throw new Error('store unavailable');
  return path.join(s.storeDir, 'git');
}

/** The paths a snapshot holds, from the store itself. */
function filesIn(s: WorkspaceSnapshots, id: string): string[] {
  return storeGit(gitDirOf(s), ['ls-tree', '-r', '-z', '--name-only', id]).split('\0').filter(Boolean).sort();
}

function blobAt(s: WorkspaceSnapshots, id: string, rel: string): Buffer {
  return Buffer.from(storeGit(gitDirOf(s), ['cat-file', 'blob', `${id}:${rel}`]), 'utf8');
}

async function snap(s: WorkspaceSnapshots): Promise<SnapshotResult> {
  const r = await s.snapshot();
  if (r === null) throw new Error('no snapshot');
  return r;
}

describe('snapshot', () => {
  it('records every file of a directory that is not a git repository, under XDG_STATE_HOME', async () => {
    write(sb.ws, 'a.txt', 'alpha\n');
    write(sb.ws, 'src/deep/b.ts', 'export {}\n');
    write(sb.ws, 'run.sh', '#!/bin/sh\n', 0o755);
    fs.symlinkSync('a.txt', path.join(sb.ws, 'link'));
    const s = await sb.open();
    expect(s.available).toBe(true);
    expect(s.storeDir?.startsWith(path.join(sb.stateHome, 'agentx', 'snapshots'))).toBe(true);
    const { id } = await snap(s);
    expect(filesIn(s, id)).toEqual(['a.txt', 'link', 'run.sh', 'src/deep/b.ts']);
    const modes = storeGit(gitDirOf(s), ['ls-tree', '-r', id]);
    expect(modes).toMatch(/^100755 blob \S+\trun\.sh$/m);
    expect(modes).toMatch(/^120000 blob \S+\tlink$/m);
    expect(fs.existsSync(path.join(sb.ws, '.git'))).toBe(false);
  });

  it('returns the same id when nothing changed, and a new one after a change', async () => {
    write(sb.ws, 'a.txt', 'one\n');
    const s = await sb.open();
    const first = await snap(s);
    expect((await snap(s)).id).toBe(first.id);
    write(sb.ws, 'a.txt', 'two\n');
    const second = await snap(s);
    expect(second.id).not.toBe(first.id);
    expect(blobAt(s, second.id, 'a.txt').toString()).toBe('two\n');
    // A second process (a new handle, same store) reuses the cache and sees the same tree.
    const other = await sb.open();
    expect((await snap(other)).id).toBe(second.id);
  });

  it('notices a same-size rewrite made in the same second as the cache was written (racy git)', async () => {
    write(sb.ws, 'a.txt', 'round 0\n');
    const s = await sb.open();
    await snap(s);
    for (let round = 1; round <= 3; round++) {
      write(sb.ws, 'a.txt', `round ${round}\n`);
      // The rewrite's times usually fall in the cache's second; the next snapshot must not trust them.
      const cacheSecond = Math.floor(fs.statSync(path.join(s.storeDir ?? '', 'index.cache')).mtimeMs / 1000);
      await waitFor(() => Math.floor(Date.now() / 1000) > cacheSecond);
      const after = await snap(s);
      expect(blobAt(s, after.id, 'a.txt').toString()).toBe(`round ${round}\n`);
    }
  });

  it('honours .gitignore files at every level, and never records agentx state files', async () => {
    write(sb.ws, '.gitignore', '*.log\n/secret.txt\n');
    write(sb.ws, 'pkg/.gitignore', 'generated/\n!keep.log\n');
    write(sb.ws, 'x.log', 'log');
    write(sb.ws, 'secret.txt', 's');
    write(sb.ws, 'sub/secret.txt', 'not anchored here');
    write(sb.ws, 'pkg/generated/out.js', 'x');
    write(sb.ws, 'pkg/keep.log', 'kept');
    write(sb.ws, '.agentx_responseid', '{}');
    write(sb.ws, '.agentx_checkpoint', '{}');
    const s = await sb.open();
    const { id } = await snap(s);
    expect(filesIn(s, id)).toEqual(['.gitignore', 'pkg/.gitignore', 'pkg/keep.log', 'sub/secret.txt']);
  });

  it('applies the rules of a repository the workspace is inside: parent .gitignore and .git/info/exclude', async () => {
    const repo = path.join(sb.root, 'repo');
    fs.mkdirSync(repo);
    personGit(repo, ['init', '-q']);
    write(repo, '.gitignore', '*.tmp\n/app/private/\nother/x\n');
    write(repo, '.git/info/exclude', 'scratch.md\n');
    write(repo, 'app/ok.txt', 'ok');
    write(repo, 'app/a.tmp', 'tmp');
    write(repo, 'app/private/key', 'k');
    write(repo, 'app/scratch.md', 'notes');
    write(repo, 'app/other/x', 'not matched: other/ is at the root');
    const s = await sb.open({ workspace: path.join(repo, 'app') });
    const { id } = await snap(s);
    expect(filesIn(s, id)).toEqual(['ok.txt', 'other/x']);
  });

  it('skips node_modules, build output and files over the size cap, and says so', async () => {
    write(sb.ws, 'index.js', 'x');
    write(sb.ws, 'node_modules/dep/index.js', 'dep');
    write(sb.ws, 'packages/p/node_modules/d/i.js', 'dep');
    write(sb.ws, 'dist/bundle.js', 'b');
    write(sb.ws, 'big.bin', Buffer.alloc(2048, 1));
    write(sb.ws, 'small.bin', Buffer.alloc(1024, 1));
    const s = await sb.open({ maxFileBytes: 1024 });
    const r = await snap(s);
    expect(filesIn(s, r.id)).toEqual(['index.js', 'small.bin']);
    expect(r.skipped).toEqual(
      expect.arrayContaining([
        { path: 'node_modules/', reason: 'skipped-directory' },
        { path: 'packages/p/node_modules/', reason: 'skipped-directory' },
        { path: 'dist/', reason: 'skipped-directory' },
        { path: 'big.bin', reason: 'too-large', bytes: 2048 },
      ]),
    );
    expect(describeSkipped(r.skipped, 1024)).toMatch(/^not covered by file rollback: .*node_modules\/.*files over 1\.0 KB: big\.bin \(2\.0 KB\)$/);
    expect(storeGit(gitDirOf(s), ['log', '-1', '--format=%B', r.id])).toContain('big.bin (too-large, 2048 bytes)');
  });

  it('drops a file from the snapshot once it grows over the cap (a stale copy would be restored later)', async () => {
    write(sb.ws, 'data.csv', 'small');
    const s = await sb.open({ maxFileBytes: 100 });
    const before = await snap(s);
    expect(filesIn(s, before.id)).toEqual(['data.csv']);
    write(sb.ws, 'data.csv', 'x'.repeat(500));
    const after = await snap(s);
    expect(filesIn(s, after.id)).toEqual([]);
    expect(after.skipped).toContainEqual({ path: 'data.csv', reason: 'too-large', bytes: 500 });
  });

  it('stores bytes exactly, whatever .gitattributes asks for (no line-ending conversion, no filters)', async () => {
    write(sb.ws, '.gitattributes', '* text=auto eol=crlf\n*.txt filter=lfs ident\n');
    write(sb.ws, 'a.txt', 'line1\r\nline2\n$Id$\n');
    const s = await sb.open();
    const { id } = await snap(s);
    expect(blobAt(s, id, 'a.txt').toString()).toBe('line1\r\nline2\n$Id$\n');
  });

  it('records a nested git repository as skipped, not its files', async () => {
    write(sb.ws, 'top.txt', 't');
    const nested = path.join(sb.ws, 'vendor', 'lib');
    fs.mkdirSync(nested, { recursive: true });
    personGit(nested, ['init', '-q']);
    write(nested, 'inner.txt', 'i');
    const s = await sb.open();
    const r = await snap(s);
    expect(filesIn(s, r.id)).toEqual(['top.txt']);
    expect(r.skipped).toContainEqual({ path: 'vendor/lib/', reason: 'nested-repository' });
  });

  it('rebuilds from scratch when the cache refers to objects the store lost', async () => {
    write(sb.ws, 'a.txt', 'a');
    write(sb.ws, 'dir/b.txt', 'b');
    const s = await sb.open();
    const first = await snap(s);
    const gitDir = gitDirOf(s);
    fs.rmSync(path.join(gitDir, 'objects'), { recursive: true });
    fs.mkdirSync(path.join(gitDir, 'objects'));
    fs.rmSync(path.join(gitDir, 'refs', 'agentx'), { recursive: true });
    write(sb.ws, 'c.txt', 'c');
    const second = await snap(s);
    expect(filesIn(s, second.id)).toEqual(['a.txt', 'c.txt', 'dir/b.txt']);
    expect(second.id).not.toBe(first.id);
    storeGit(gitDir, ['fsck', '--strict', '--no-dangling']);
  });

  it('rebuilds from scratch when the shared part of the cached index is gone', async () => {
    for (let i = 0; i < 30; i++) write(sb.ws, `f${i}.txt`, `${i}`);
    const s = await sb.open();
    await snap(s);
    const gitDir = gitDirOf(s);
    const shared = fs.readdirSync(gitDir).filter((n) => n.startsWith('sharedindex.'));
    expect(shared.length).toBeGreaterThan(0);
    for (const n of shared) fs.unlinkSync(path.join(gitDir, n));
    write(sb.ws, 'f0.txt', 'changed');
    const after = await snap(s);
    expect(filesIn(s, after.id)).toHaveLength(30);
    expect(blobAt(s, after.id, 'f0.txt').toString()).toBe('changed');
  });

  it('ignores GIT_* variables inherited from the caller (they would point git at the wrong repository)', async () => {
    write(sb.ws, 'a.txt', 'a');
    const decoy = path.join(sb.root, 'decoy');
    fs.mkdirSync(decoy);
    personGit(decoy, ['init', '-q']);
    const s = await sb.open({ env: { ...sb.env, GIT_DIR: path.join(decoy, '.git'), GIT_INDEX_FILE: path.join(decoy, 'idx'), GIT_WORK_TREE: decoy } });
    const { id } = await snap(s);
    expect(filesIn(s, id)).toEqual(['a.txt']);
    expect(fs.existsSync(path.join(decoy, 'idx'))).toBe(false);
  });

  it("runs snapshots of one handle one after the other (a warm-up at start, then the turn's own)", async () => {
    for (let i = 0; i < 50; i++) write(sb.ws, `f${i}.txt`, `${i}`);
    const s = await sb.open();
    const [a, b] = await Promise.all([s.snapshot(), s.snapshot()]);
    expect(a?.id).toBeDefined();
    expect(b?.id).toBe(a?.id);
  });

  it('refuses a snapshot that would add a huge number of files, and turns itself off', async () => {
    for (let i = 0; i < 6; i++) write(sb.ws, `gen/f${i}.txt`, `${i}`);
    const s = await sb.open({ maxNewFiles: 5 });
    await expect(s.snapshot()).rejects.toThrow(/^6 new files, more than file rollback handles: add generated or vendored directories to \.gitignore$/);
    expect(await s.snapshot()).toBeNull();
  });

  it.runIf(process.getuid?.() === 0)('works as root on a workspace owned by another user (containers)', async () => {
    write(sb.ws, 'a.txt', 'a');
    fs.chownSync(sb.ws, 65534, 65534);
    fs.chownSync(path.join(sb.ws, 'a.txt'), 65534, 65534);
    const s = await sb.open();
    const { id } = await snap(s);
    expect(filesIn(s, id)).toEqual(['a.txt']);
  });

  it('is unavailable, with one clear notice, when git is not installed', async () => {
    const s = await sb.open({ gitBin: path.join(sb.root, 'no-such-git') });
    expect(s.available).toBe(false);
    expect(s.notice).toBe(GIT_MISSING_NOTICE);
    expect(await s.snapshot()).toBeNull();
    expect((await s.planRestore([])).actions).toEqual([]);
    expect(await s.resumeInterruptedRestore()).toBeNull();
    expect(fs.existsSync(sb.stateHome)).toBe(false);
  });

  it('refuses the home directory and the filesystem root', async () => {
    const home = await sb.open({ workspace: sb.env.HOME });
    expect(home.available).toBe(false);
    expect(home.notice).toMatch(/home directory/);
    const root = await sb.open({ workspace: '/' });
    expect(root.notice).toMatch(/filesystem root/);
  });
});
