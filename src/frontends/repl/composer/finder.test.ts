import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { rankPaths } from './fuzzy.ts';
import { parseKeys } from './keys.ts';
import { listGitFiles, listProjectFiles, ProjectFiles } from './project-files.ts';
import { reduce, type ComposerEnv, type Effect } from './reduce.ts';
import { EMPTY, type ComposerState } from './state.ts';

const FILES = ['README.md', 'src/main.ts', 'src/frontends/repl/repl.ts', 'src/frontends/repl/line-input.ts', 'docs/composer.md', 'test/e2e/repl.test.ts'];

function env(files: readonly string[] | null = FILES): ComposerEnv {
  return {
    history: [],
    pastes: new Map(),
    complete: (_t, cursor) => ({ start: cursor, candidates: [] }),
    findFiles: (query, limit) => (files === null ? undefined : rankPaths(files, query, limit)),
  };
}

function type(raw: string, e = env(), from: ComposerState = EMPTY): { state: ComposerState; effects: Effect[] } {
  let state = from;
  const effects: Effect[] = [];
  for (const key of parseKeys(raw)) {
    const step = reduce(state, key, e);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

describe('fuzzy ranking', () => {
  it('prefers the file name, then word starts, then shorter paths', () => {
    expect(rankPaths(FILES, 'repl', 3)).toEqual(['src/frontends/repl/repl.ts', 'test/e2e/repl.test.ts', 'src/frontends/repl/line-input.ts']);
    expect(rankPaths(FILES, 'lninp', 2)).toEqual(['src/frontends/repl/line-input.ts']);
    expect(rankPaths(FILES, 'zzz', 5)).toEqual([]);
    expect(rankPaths(FILES, '', 2)).toEqual(['README.md', 'src/main.ts']);
  });
});

describe('the @ finder', () => {
  it('opens at @, narrows as you type, ↓ chooses, Tab inserts the path and a space', () => {
    let r = type('see @');
    expect(r.state.finder?.matches).toEqual(FILES);
    r = type('repl', env(), r.state);
    expect(r.state.finder?.matches?.[0]).toBe('src/frontends/repl/repl.ts');
    r = type('\x1b[B\t', env(), r.state);
    expect(r.state.text).toBe('see @test/e2e/repl.test.ts ');
    expect(r.state.finder).toBeUndefined();
    expect(r.effects).toEqual([]);
  });

  it('Enter picks (it does not send); the next Enter sends', () => {
    const r = type('@comp\r');
    expect(r.effects).toEqual([]);
    expect(r.state.text).toBe('@docs/composer.md ');
    expect(type('\r', env(), r.state).effects).toEqual([{ kind: 'submit', text: '@docs/composer.md ' }]);
  });

  it('Esc closes it for that word (Enter then sends); no match or no list leaves Enter alone', () => {
    const closed = type('ask @team\x1b');
    expect(closed.state.finder).toBeUndefined();
    expect(closed.state.text).toBe('ask @team');
    expect(type('\r', env(), closed.state).effects).toEqual([{ kind: 'submit', text: 'ask @team' }]);
    const none = type('ask @zzzq');
    expect(none.state.finder?.matches).toEqual([]);
    expect(type('\r', env(), none.state).effects).toEqual([{ kind: 'submit', text: 'ask @zzzq' }]);
    const loading = type('@x', env(null));
    expect(loading.state.finder?.matches).toBeUndefined();
    expect(type('\r', env(null), loading.state).effects).toHaveLength(1);
  });

  it('stays closed for mail addresses and absolute paths', () => {
    expect(type('me@host').state.finder).toBeUndefined();
    expect(type('@/etc/ho').state.finder).toBeUndefined();
    expect(type('@~/no').state.finder).toBeUndefined();
  });
});

describe('project files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const make = (root: string): void => {
    mkdirSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(root, 'node_modules/x'), { recursive: true });
    mkdirSync(join(root, 'build'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'a');
    writeFileSync(join(root, 'node_modules/x/i.js'), 'i');
    writeFileSync(join(root, 'build/out.js'), 'o');
    writeFileSync(join(root, 'debug.log'), 'l');
    writeFileSync(join(root, '.gitignore'), 'build/\n*.log\nnode_modules\n');
  };

  it('respects .gitignore in a git work tree (untracked files included) and without git', async () => {
    const git = join(dir, 'git');
    make(git);
    execFileSync('git', ['init', '-q'], { cwd: git });
    expect((await listProjectFiles(git)).sort()).toEqual(['.gitignore', 'src/a.ts']);
    const plain = join(dir, 'plain');
    make(plain);
    expect((await listProjectFiles(plain)).sort()).toEqual(['.gitignore', 'src/a.ts']);
  });

  it("hands on the tracked files (git's index) before the untracked ones are listed", async () => {
    const git = join(dir, 'two-phase');
    make(git);
    execFileSync('git', ['init', '-q'], { cwd: git });
    execFileSync('git', ['add', 'src/a.ts'], { cwd: git });
    writeFileSync(join(git, 'new.ts'), 'n');
    const parts: string[][] = [];
    const all = await listGitFiles(git, (files) => parts.push([...files]));
    expect(parts[0]).toEqual(['src/a.ts']);
    expect(all?.sort()).toEqual(['.gitignore', 'new.ts', 'src/a.ts']);
    // Outside a work tree: undefined, and the walk hands on what it found as well.
    const plain = join(dir, 'walked');
    make(plain);
    expect(await listGitFiles(plain)).toBeUndefined();
    const walked: string[][] = [];
    await listProjectFiles(plain, (files) => walked.push([...files]));
    expect(walked[0]).toEqual(['.gitignore']);
  });

  it('prefetch reads ahead; the open finder gets the part known so far, then the whole list', async () => {
    let tellPart: ((files: readonly string[]) => void) | undefined;
    let finish: ((files: string[]) => void) | undefined;
    let reads = 0;
    const files = new ProjectFiles((_dir, onPartial) => {
      reads++;
      tellPart = onPartial;
      return new Promise((resolve) => {
        finish = resolve;
      });
    });
    files.prefetch('/p');
    expect(reads).toBe(1);
    let told = 0;
    expect(files.get('/p', () => told++)).toBeUndefined();
    expect(reads).toBe(1);
    tellPart?.(['a.ts']);
    expect(told).toBe(1);
    expect(files.get('/p', () => told++)).toEqual(['a.ts']);
    finish?.(['a.ts', 'b.ts']);
    await expect.poll(() => told).toBe(2);
    expect(files.get('/p', () => told++)).toEqual(['a.ts', 'b.ts']);
    expect(reads).toBe(1);
  });
});
