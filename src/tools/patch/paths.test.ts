import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, resolvePatchPath, workspaceRoots } from './index.ts';

let base: string;
let root: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-paths-')));
  root = join(base, 'proj');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(base, 'proj2'));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 's\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'a\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function resolveIn(path: string, cwd?: string): Promise<string> {
  const r = await resolvePatchPath(await workspaceRoots(root, cwd), path);
  return r.display;
}

async function refusal(path: string, cwd?: string): Promise<string> {
  try {
    await resolveIn(path, cwd);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error(`${path} was accepted`);
}

describe('isInside', () => {
  it('compares by path segment, not by string prefix', () => {
    expect(isInside('/w/proj', '/w/proj')).toBe(true);
    expect(isInside('/w/proj', '/w/proj/a/b')).toBe(true);
    expect(isInside('/w/proj', '/w/proj2')).toBe(false);
    expect(isInside('/w/proj', '/w/proj2/x')).toBe(false);
    expect(isInside('/w/proj', '/w')).toBe(false);
    expect(isInside('/w/proj', '/w/proj/..hidden')).toBe(true);
  });
});

describe('resolvePatchPath', () => {
  it('accepts relative paths, `..` that stays inside, and absolute paths inside', async () => {
    expect(await resolveIn('src/a.ts')).toBe('src/a.ts');
    expect(await resolveIn('./src/../src/new/b.ts')).toBe('src/new/b.ts');
    expect(await resolveIn(join(root, 'src', 'a.ts'))).toBe('src/a.ts');
  });

  it('starts relative paths at the working directory', async () => {
    expect(await resolveIn('a.ts', join(root, 'src'))).toBe('src/a.ts');
    expect(await resolveIn('../README.md', join(root, 'src'))).toBe('README.md');
  });

  it('refuses `..` escapes, absolute paths outside and the sibling with a common prefix', async () => {
    expect(await refusal('../outside/secret.txt')).toContain('leads outside the workspace through ".."');
    expect(await refusal('src/../../proj2/x')).toContain('leads outside the workspace');
    expect(await refusal(join(base, 'proj2', 'x'))).toContain('is an absolute path outside the workspace');
    expect(await refusal('/etc/passwd')).toContain('is an absolute path outside the workspace');
    expect(await refusal('../../x', join(root, 'src'))).toContain('leads outside');
  });

  it('refuses symbolic links that lead outside, at any depth, and dangling ones', async () => {
    symlinkSync(join(base, 'outside'), join(root, 'out'));
    symlinkSync('../../outside/secret.txt', join(root, 'src', 'secret.txt'));
    symlinkSync(join(base, 'nowhere', 'file'), join(root, 'dangling'));
    expect(await refusal('out/new/deep.txt')).toContain(`leads outside the workspace through a symbolic link (to ${join(base, 'outside')})`);
    expect(await refusal('src/secret.txt')).toContain('through a symbolic link');
    expect(await refusal('dangling')).toContain('symbolic link whose target does not exist');
  });

  it('follows a symbolic link that stays inside to its target', async () => {
    symlinkSync('src', join(root, 'alias'));
    expect(await resolveIn('alias/a.ts')).toBe('src/a.ts');
  });

  it('works when the workspace root itself is reached through a symbolic link', async () => {
    symlinkSync(root, join(base, 'link-to-proj'));
    const roots = await workspaceRoots(join(base, 'link-to-proj'));
    expect(roots.real).toBe(root);
    expect((await resolvePatchPath(roots, join(base, 'link-to-proj', 'src', 'a.ts'))).display).toBe('src/a.ts');
    expect((await resolvePatchPath(roots, 'src/a.ts')).abs).toBe(join(root, 'src', 'a.ts'));
  });

  it('refuses the root itself, NUL bytes and a missing root', async () => {
    expect(await refusal('.')).toContain('is the workspace root, not a file');
    expect(await refusal('a\0b')).toContain('contains a NUL byte');
    await expect(workspaceRoots(join(base, 'missing'))).rejects.toThrow('cannot be used');
  });

  it('falls back to the root when the working directory is outside the workspace', async () => {
    expect(await resolveIn('src/a.ts', join(base, 'outside'))).toBe('src/a.ts');
  });
});
