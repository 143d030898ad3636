// File rollback in a real pty (issue 16, "Done when"): shell and apply_patch turns change files in
// a git repository with staged changes and a stash; /rollback with "Conversation and files" gives
// exactly the tree after turn 1, /rollback undo the tree after turn 3; the person's index and stash
// are untouched throughout. Also: a file the person changed is skipped, /diff, a non-git directory.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { prompt, readState, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

/** The workspace's files (path → content), without .git and agentx's own files. */
function tree(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name === '.git' || name.startsWith('.agentx_')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, tree(full, root));
    else out[relative(root, full)] = readFileSync(full, 'utf8');
  }
  return out;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

/** A repository with a commit, a stash and a staged change. */
function personRepo(sb: Sandbox): { index: () => Buffer; stash: () => string } {
  const cwd = sb.cwd;
  git(cwd, 'init', '-q');
  writeFileSync(join(cwd, 'tracked.txt'), 'tracked\n');
  writeFileSync(join(cwd, 'staged.txt'), 'v1\n');
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-qm', 'base');
  writeFileSync(join(cwd, 'staged.txt'), 'stashed\n');
  git(cwd, 'stash', '-q');
  writeFileSync(join(cwd, 'staged.txt'), 'staged\n');
  git(cwd, 'add', 'staged.txt');
  return { index: () => readFileSync(join(cwd, '.git/index')), stash: () => git(cwd, 'stash', 'list') };
}

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: b.txt\n+b\n*** End Patch\n';

/** Picks checkpoint `n` from the /rollback list and answers the files question with Enter (the default). */
async function rollbackWithFiles(a: PtyRun, n: number): Promise<void> {
  a.line('/rollback');
  await a.waitFor('Roll back to which checkpoint?');
  a.write(String(n));
  a.write(KEY.enter);
  await a.waitFor('Restore what?');
  await a.waitFor('❯ 1. Conversation and files');
  a.write(KEY.enter);
  await a.waitFor(`Rolled back to checkpoint ${n}`);
  await prompt(a);
}

describe('/rollback with files', () => {
  it('restores the tree after turn 1, undoes it, keeps the index and stash, skips what the person changed', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const repo = personRepo(sb);
    const index = repo.index();
    const stash = repo.stash();
    expect(stash).toContain('stash@{0}');
    const a = suite.start(sb);
    await prompt(a);

    suite.emu.enqueue({ kind: 'shell', commands: ["printf 'one\\n' > a.txt"] });
    await turn(a, 'create a');
    const afterTurn1 = tree(sb.cwd);
    expect(afterTurn1['a.txt']).toBe('one\n');

    suite.emu.enqueue({ kind: 'patch', patch: PATCH });
    await turn(a, 'edit a and add b');
    expect(tree(sb.cwd)['b.txt']).toBe('b\n');

    suite.emu.enqueue({ kind: 'shell', commands: ['rm tracked.txt'] });
    await turn(a, 'delete tracked');
    const afterTurn3 = tree(sb.cwd);
    expect(afterTurn3['tracked.txt']).toBeUndefined();
    expect(readState(sb).history.map((h) => (h as { files?: unknown }).files)).toEqual([expect.anything(), expect.anything(), expect.anything()]);

    // /diff: the last turn's change.
    a.line('/diff');
    await a.waitFor('Files changed by tool calls in the last turn:');
    await a.waitFor(/D tracked\.txt/);
    await a.waitFor('-tracked');
    await prompt(a);

    // Newest first: 3 = after turn 1.
    await rollbackWithFiles(a, 3);
    expect(a.screen()).toMatch(/M a\.txt/);
    expect(a.screen()).toMatch(/A b\.txt \(delete\)/);
    expect(a.screen()).toMatch(/D tracked\.txt \(bring back\)/);
    expect(tree(sb.cwd)).toEqual(afterTurn1);
    expect(repo.index().equals(index)).toBe(true);
    expect(repo.stash()).toBe(stash);

    // The next request tells the model which files were restored.
    const n = suite.emu.requests.length;
    await turn(a, 'what now');
    expect(JSON.stringify(suite.emu.requests[n]?.body)).toContain('rolled the workspace files back');

    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(tree(sb.cwd)).toEqual(afterTurn3);
    expect(repo.index().equals(index)).toBe(true);
    expect(repo.stash()).toBe(stash);

    // The person edits a.txt: a rollback does not overwrite it and says so.
    writeFileSync(join(sb.cwd, 'a.txt'), 'mine\n');
    await rollbackWithFiles(a, 3);
    expect(a.screen()).toMatch(/skipped a\.txt: changed after agentx last recorded it/);
    const files = tree(sb.cwd);
    expect(files['a.txt']).toBe('mine\n');
    expect(files['b.txt']).toBeUndefined();
    expect(files['tracked.txt']).toBe('tracked\n');
    expect(repo.index().equals(index)).toBe(true);
    expect(repo.stash()).toBe(stash);
  });

  it('works in a directory that is not a git repository', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'keep.txt'), 'keep\n');
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'hello');
    suite.emu.enqueue({ kind: 'shell', commands: ["printf 'new\\n' > new.txt", "printf 'changed\\n' > keep.txt"] });
    await turn(a, 'make files');
    await rollbackWithFiles(a, 2);
    expect(tree(sb.cwd)).toEqual({ 'keep.txt': 'keep\n' });
  });
});
