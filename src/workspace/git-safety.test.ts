// The person's repository is never written: HEAD, index, stash, refs, hooks and config stay
// byte-identical (and untouched: same modification times) through snapshots, diffs and restores.
// Also the "Done when" scenario, at library level.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dirDigest, makeSandbox, personGit, snapId, treeOf, turn, write, type Sandbox } from '../../test/support/workspace.ts';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** A repository with history, a staged change, a stash, and config/hooks that must never run. */
function personRepo(ws: string, marker: string): string {
  personGit(ws, ['init', '-q']);
  write(ws, 'tracked.txt', 'tracked v1\n');
  write(ws, 'doomed.txt', 'tracked, deleted in turn 3\n');
  personGit(ws, ['add', '.']);
  personGit(ws, ['commit', '-qm', 'first']);
  write(ws, 'tracked.txt', 'tracked v2 (stashed)\n');
  personGit(ws, ['stash', '-q']);
  write(ws, 'staged.txt', 'staged, not committed\n');
  personGit(ws, ['add', 'staged.txt']);
  const stashList = personGit(ws, ['stash', 'list']);
  // Anything that reads this config and runs what it says would leave the marker behind.
  const hook = path.join(ws, '..', 'hook.sh');
  fs.writeFileSync(hook, `#!/bin/sh\necho ran >> ${marker}\n`, { mode: 0o755 });
  personGit(ws, ['config', 'core.fsmonitor', hook]);
  personGit(ws, ['config', 'core.hooksPath', path.dirname(hook)]);
  for (const name of ['post-checkout', 'post-index-change', 'pre-commit', 'reference-transaction']) fs.copyFileSync(hook, path.join(ws, '.git', 'hooks', name));
  return stashList;
}

describe("the person's git repository", () => {
  it('turn 1 creates a.txt, turn 2 edits it and creates b.txt, turn 3 deletes a tracked file: rollback to turn 1, then undo', async () => {
    const marker = path.join(sb.root, 'hook-ran');
    const stashBefore = personRepo(sb.ws, marker);
    const gitBefore = dirDigest(path.join(sb.ws, '.git'));
    // The person's global config asks for line-ending conversion and runs a hook path: ignored.
    write(sb.env.HOME ?? '', '.gitconfig', `[core]\n\tautocrlf = true\n\thooksPath = ${sb.root}\n`);
    const s = await sb.open();

    await turn(s, () => write(sb.ws, 'a.txt', 'a from turn 1\n'));
    const afterTurn1 = treeOf(sb.ws);
    const t2 = await turn(s, () => {
      write(sb.ws, 'a.txt', 'a edited in turn 2\r\n');
      write(sb.ws, 'b.txt', 'b from turn 2\n');
    });
    const t3 = await turn(s, () => fs.unlinkSync(path.join(sb.ws, 'doomed.txt')));
    const afterTurn3 = treeOf(sb.ws);

    // /rollback to after turn 1, "Conversation and files": undo the spans of turns 2 and 3.
    const plan = await s.planRestore([t2, t3]);
    expect(plan.actions.map((a) => `${a.change} ${a.path}`)).toEqual(['M a.txt', 'A b.txt', 'D doomed.txt']);
    const beforeRestore = await snapId(s);
    const restored = await s.applyRestore(plan);
    const afterRestore = await snapId(s);
    expect(restored.failed).toEqual([]);
    expect(treeOf(sb.ws)).toEqual(afterTurn1);

    // /rollback undo: the restore itself is a span to undo.
    const undo = await s.planRestore([{ from: beforeRestore, to: afterRestore }]);
    await s.applyRestore(undo);
    expect(treeOf(sb.ws)).toEqual(afterTurn3);

    await s.diff(t2.from, 'worktree');
    await s.prune([]);
    expect(dirDigest(path.join(sb.ws, '.git'))).toEqual(gitBefore);
    expect(fs.existsSync(marker)).toBe(false);
    // (The person's own git runs their fsmonitor hook; that is why these come last.)
    expect(personGit(sb.ws, ['stash', 'list'])).toBe(stashBefore);
    expect(stashBefore).toMatch(/^stash@\{0\}/);
    expect(personGit(sb.ws, ['diff', '--cached', '--name-only'])).toBe('staged.txt\n');
  });

  it("keeps the person's .git out of snapshots and never writes it, in a linked worktree too", async () => {
    const main = path.join(sb.root, 'main');
    fs.mkdirSync(main);
    personGit(main, ['init', '-q']);
    write(main, 'f.txt', 'f\n');
    personGit(main, ['add', '.']);
    personGit(main, ['commit', '-qm', 'c']);
    write(main, '.git/info/exclude', 'local-only.txt\n');
    const linked = path.join(sb.root, 'linked');
    personGit(main, ['worktree', 'add', '-q', linked]);
    write(linked, 'local-only.txt', "excluded by the main repository's info/exclude");
    write(linked, 'g.txt', 'g\n');
    const gitBefore = dirDigest(path.join(main, '.git'));
    const dotGitFile = fs.readFileSync(path.join(linked, '.git'), 'utf8');
    const s = await sb.open({ workspace: linked });
    const span = await turn(s, () => write(linked, 'g.txt', 'changed\n'));
    expect((await s.diff(span.from, span.to)).summary).toEqual(['M g.txt']);
    const first = await s.diff(span.from, span.from);
    expect(first.changes).toEqual([]);
    await s.applyRestore(await s.planRestore([span]));
    expect(fs.readFileSync(path.join(linked, 'g.txt'), 'utf8')).toBe('g\n');
    expect(dirDigest(path.join(main, '.git'))).toEqual(gitBefore);
    expect(fs.readFileSync(path.join(linked, '.git'), 'utf8')).toBe(dotGitFile);
  });
});
