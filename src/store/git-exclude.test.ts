import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureGitExclude, EXCLUDE_MARKER, excludeNotice, findGitCommonDir } from './git-exclude.ts';

let root: string;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root } });

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-gitx-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function repo(name = 'repo'): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  git(dir, 'init', '-q');
  return dir;
}

describe('ensureGitExclude', () => {
  it('adds the patterns to .git/info/exclude once, and git status no longer shows the state files', () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, '.agentx_responseid'), '{}');
    fs.writeFileSync(path.join(dir, '.agentx_checkpoint'), '{}');
    fs.writeFileSync(path.join(dir, '.agentx_responseid.oneshot-1-x'), '{}');
    expect(git(dir, 'status', '--porcelain')).toContain('.agentx_responseid');
    const first = ensureGitExclude(dir);
    expect(first).toEqual({ kind: 'added', excludePath: path.join(dir, '.git', 'info', 'exclude') });
    expect(excludeNotice(first)).toMatch(/^added \.agentx_responseid\* and \.agentx_checkpoint\* to .*\.git\/info\/exclude/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(ensureGitExclude(dir)).toEqual({ kind: 'present' });
    const text = fs.readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8');
    expect(text.split(EXCLUDE_MARKER)).toHaveLength(2);
    expect(fs.existsSync(path.join(dir, '.gitignore'))).toBe(false);
  });

  it('works from a subdirectory and keeps what the exclude file already held', () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, '.git', 'info', 'exclude'), '# mine\n*.log');
    const sub = path.join(dir, 'pkg', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, '.agentx_responseid'), '{}');
    expect(ensureGitExclude(sub).kind).toBe('added');
    expect(fs.readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8').startsWith('# mine\n*.log\n# agentx')).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('in a linked worktree, writes the common exclude file that git reads', () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, 'f'), 'x');
    git(dir, '-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'f');
    git(dir, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'init');
    const wt = path.join(root, 'wt');
    git(dir, 'worktree', 'add', '-q', wt);
    expect(findGitCommonDir(wt)).toBe(path.join(dir, '.git'));
    fs.writeFileSync(path.join(wt, '.agentx_checkpoint'), '{}');
    expect(ensureGitExclude(wt).kind).toBe('added');
    expect(git(wt, 'status', '--porcelain')).toBe('');
  });

  it('does nothing outside a repository', () => {
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    expect(ensureGitExclude(plain)).toEqual({ kind: 'not_a_repository' });
    expect(excludeNotice({ kind: 'not_a_repository' })).toBeUndefined();
  });

  it('leaves a symlinked exclude file alone', () => {
    const dir = repo();
    const excl = path.join(dir, '.git', 'info', 'exclude');
    fs.rmSync(excl, { force: true });
    fs.symlinkSync(path.join(root, 'target'), excl);
    expect(ensureGitExclude(dir).kind).toBe('failed');
    expect(fs.existsSync(path.join(root, 'target'))).toBe(false);
  });

  it('never follows a planted gitlink, commondir or info link out of the workspace (issue 23 §6)', () => {
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    // A command in the workspace writes `.git` as a file pointing anywhere.
    const planted = path.join(root, 'planted');
    fs.mkdirSync(planted);
    fs.writeFileSync(path.join(planted, '.git'), `gitdir: ${elsewhere}\n`);
    expect(ensureGitExclude(planted)).toEqual({ kind: 'not_a_repository' });
    // Or a commondir inside a real repository's .git.
    const dir = repo();
    fs.writeFileSync(path.join(dir, '.git', 'commondir'), elsewhere);
    expect(ensureGitExclude(dir)).toEqual({ kind: 'not_a_repository' });
    fs.rmSync(path.join(dir, '.git', 'commondir'));
    // Or `info` as a link.
    fs.rmSync(path.join(dir, '.git', 'info'), { recursive: true, force: true });
    fs.symlinkSync(elsewhere, path.join(dir, '.git', 'info'));
    expect(ensureGitExclude(dir).kind).toBe('failed');
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // A gitlink to a git dir inside the workspace is fine (nothing leaves it).
    const inner = path.join(root, 'inner');
    fs.mkdirSync(path.join(inner, 'store'), { recursive: true });
    fs.writeFileSync(path.join(inner, '.git'), 'gitdir: store\n');
    expect(ensureGitExclude(inner)).toEqual({ kind: 'added', excludePath: path.join(inner, 'store', 'info', 'exclude') });
  });

  it('never trusts a .git planted in a sticky, world-writable directory above the workspace (the temp dir)', () => {
    // A workspace under the temp dir: a command writes <tmp>/.git/commondir -> elsewhere.
    const tmp = path.join(root, 'tmp');
    fs.mkdirSync(tmp);
    fs.chmodSync(tmp, 0o1777);
    const workspace = path.join(tmp, 'project');
    fs.mkdirSync(workspace);
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(path.join(elsewhere, 'info'), { recursive: true });
    fs.mkdirSync(path.join(tmp, '.git'));
    fs.writeFileSync(path.join(tmp, '.git', 'commondir'), `${elsewhere}\n`);
    expect(ensureGitExclude(workspace)).toEqual({ kind: 'not_a_repository' });
    expect(fs.readdirSync(path.join(elsewhere, 'info'))).toEqual([]);
    // Without the commondir, a bare .git there is not written to either.
    fs.rmSync(path.join(tmp, '.git', 'commondir'));
    expect(ensureGitExclude(workspace)).toEqual({ kind: 'not_a_repository' });
    expect(fs.existsSync(path.join(tmp, '.git', 'info'))).toBe(false);
  });

  it('a gitlink copied from a real worktree into another directory is not followed either', () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, 'f'), 'x');
    git(dir, '-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'f');
    git(dir, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'init');
    git(dir, 'worktree', 'add', '-q', path.join(root, 'wt'));
    const copy = path.join(root, 'copy');
    fs.mkdirSync(copy);
    fs.copyFileSync(path.join(root, 'wt', '.git'), path.join(copy, '.git'));
    expect(ensureGitExclude(copy)).toEqual({ kind: 'not_a_repository' });
    expect(
      fs.existsSync(path.join(dir, '.git', 'info', 'exclude')) && fs.readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8').includes(EXCLUDE_MARKER),
    ).toBe(false);
  });

  it("in a submodule, writes the exclude file in the superproject's modules directory", () => {
    const lib = repo('lib');
    fs.writeFileSync(path.join(lib, 'f'), 'x');
    git(lib, '-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'f');
    git(lib, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'init');
    const top = repo('top');
    git(top, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'sub');
    const sub = path.join(top, 'sub');
    fs.writeFileSync(path.join(sub, '.agentx_checkpoint'), '{}');
    expect(ensureGitExclude(sub)).toEqual({ kind: 'added', excludePath: path.join(top, '.git', 'modules', 'sub', 'info', 'exclude') });
    expect(git(sub, 'status', '--porcelain')).toBe('');
  });
});
