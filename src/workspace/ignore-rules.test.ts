import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS, buildExcludeText, findRepository, isSkipDir, translateIgnoreRules } from './ignore-rules.ts';

describe('translateIgnoreRules', () => {
  it('keeps unanchored rules, which apply at any depth', () => {
    expect(translateIgnoreRules('*.log\n!keep.log\nbuild/\n**/tmp\n', '', 'app')).toEqual(['*.log', '!keep.log', 'build/', '**/tmp']);
  });

  it('re-anchors rules that lead into the workspace and drops the ones that cannot', () => {
    const rules = '/app/secret\napp/out/\n/other/x\n/top.txt\na*/gen/*.js\napp\n/app\n';
    expect(translateIgnoreRules(rules, '', 'app')).toEqual(['/secret', '/out/', '/gen/*.js', 'app']);
  });

  it('keeps anchored rules anchored when the workspace is the repository root', () => {
    expect(translateIgnoreRules('/local.env\nnotes/*.md\n', '', '')).toEqual(['/local.env', '/notes/*.md']);
  });

  it('handles rules of a .gitignore between the repository root and a deeper workspace', () => {
    expect(translateIgnoreRules('/pkg/dist\n/pkg/**/cache\n/lib\n', 'packages', 'packages/pkg')).toEqual(['/dist', '/**/cache']);
    expect(translateIgnoreRules('/x\n', 'elsewhere', 'packages/pkg')).toEqual([]);
  });

  it('skips comments, blank lines and trailing spaces, and keeps escaped characters', () => {
    expect(translateIgnoreRules('# comment\n\n  \nfoo.txt   \n\\#hash\n', '', '')).toEqual(['foo.txt', '\\#hash']);
  });
});

describe('isSkipDir', () => {
  it('matches directory entries by their last name only', () => {
    expect(isSkipDir('a/b/node_modules/', DEFAULT_SKIP_DIRS)).toBe(true);
    expect(isSkipDir('node_modules', DEFAULT_SKIP_DIRS)).toBe(false);
    expect(isSkipDir('my_node_modules/', DEFAULT_SKIP_DIRS)).toBe(false);
  });
});

describe('buildExcludeText', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-ign-')));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('excludes agentx state, the default directories and a store inside the workspace', () => {
    const text = buildExcludeText({ workspace: root, storeRoot: path.join(root, '.local', 'state', 'agentx', 'snapshots'), skipDirs: ['node_modules'] });
    expect(text.split('\n')).toEqual([
      '# written by agentx: what workspace snapshots leave out',
      '.agentx_*',
      'node_modules/',
      '/.local/state/agentx/snapshots/',
      '',
    ]);
  });

  it('finds the repository through a .git file (linked worktree) and reads the common info/exclude', () => {
    const common = path.join(root, 'main', '.git');
    fs.mkdirSync(path.join(common, 'worktrees', 'wt'), { recursive: true });
    fs.mkdirSync(path.join(common, 'info'));
    fs.writeFileSync(path.join(common, 'info', 'exclude'), '/sub/private\n');
    fs.writeFileSync(path.join(common, 'worktrees', 'wt', 'commondir'), '../..\n');
    const wt = path.join(root, 'wt');
    fs.mkdirSync(path.join(wt, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(common, 'worktrees', 'wt')}\n`);
    expect(findRepository(path.join(wt, 'sub'))).toEqual({ root: wt, commonDir: common });
    const text = buildExcludeText({ workspace: path.join(wt, 'sub'), storeRoot: '/elsewhere', skipDirs: [] });
    expect(text.split('\n').slice(2)).toEqual(['/private', '']);
  });
});
