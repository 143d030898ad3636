import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatPlan, restoreSummary, restoredFilesMessage } from './index.ts';
import { makeSandbox, treeOf, turn, write, type Sandbox } from '../../test/support/workspace.ts';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** A turn the way the engine records it: snapshot, the tool calls' effects, snapshot. */
const abs = (rel: string): string => path.join(sb.ws, rel);

describe('restore', () => {
  it('undoes created, deleted, renamed, binary, mode and symlink changes exactly', async () => {
    write(sb.ws, 'keep.txt', 'keep\n');
    write(sb.ws, 'old/name.txt', 'moved\n');
    write(sb.ws, 'bye.txt', 'deleted later\n');
    write(sb.ws, 'img.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
    write(sb.ws, 'tool.sh', '#!/bin/sh\n', 0o755);
    write(sb.ws, 'secret.env', 'K=V\n', 0o600);
    fs.symlinkSync('keep.txt', abs('ptr'));
    write(sb.ws, 'becomes-link.txt', 'plain\n');
    const s = await sb.open();
    const start = treeOf(sb.ws);
    const span = await turn(s, () => {
      write(sb.ws, 'new/dir/created.txt', 'new\n');
      fs.renameSync(abs('old/name.txt'), abs('new-name.txt'));
      fs.unlinkSync(abs('bye.txt'));
      write(sb.ws, 'img.bin', Buffer.from([9, 9, 0, 0]));
      fs.chmodSync(abs('tool.sh'), 0o644);
      write(sb.ws, 'secret.env', 'K=changed\n');
      fs.unlinkSync(abs('ptr'));
      fs.symlinkSync('new-name.txt', abs('ptr'));
      fs.unlinkSync(abs('becomes-link.txt'));
      fs.symlinkSync('keep.txt', abs('becomes-link.txt'));
    });
    const plan = await s.planRestore([span]);
    expect(formatPlan(plan)).toEqual([
      'M becomes-link.txt',
      'D bye.txt (bring back)',
      'M img.bin',
      'A new-name.txt (delete)',
      'A new/dir/created.txt (delete)',
      'D old/name.txt (bring back)',
      'M ptr',
      'M secret.env',
      'M tool.sh',
    ]);
    const result = await s.applyRestore(plan);
    expect(result.failed).toEqual([]);
    expect(result.restored).toHaveLength(9);
    expect(treeOf(sb.ws)).toEqual(start);
    expect(fs.statSync(abs('secret.env')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(sb.ws).filter((n) => n.startsWith('.agentx_'))).toEqual([]);
  });

  it('skips a file the person changed after the last snapshot, with a command that restores it by hand', async () => {
    write(sb.ws, 'a.txt', 'original\n');
    write(sb.ws, 'b.txt', 'original b\n');
    const s = await sb.open();
    const span = await turn(s, () => {
      write(sb.ws, 'a.txt', 'agent edit\n');
      write(sb.ws, 'b.txt', 'agent edit b\n');
      write(sb.ws, 'made.txt', 'agent made\n');
    });
    write(sb.ws, 'a.txt', 'person edit after the turn\n');
    write(sb.ws, 'made.txt', 'person kept working on it\n');
    const plan = await s.planRestore([span]);
    expect(plan.actions.map((a) => a.path)).toEqual(['b.txt']);
    expect(plan.skipped.map((k) => [k.path, k.reason])).toEqual([
      ['a.txt', 'changed after agentx last recorded it: not overwritten'],
      ['made.txt', 'changed after agentx created it: kept'],
    ]);
    const result = await s.applyRestore(plan);
    expect(fs.readFileSync(abs('a.txt'), 'utf8')).toBe('person edit after the turn\n');
    expect(fs.readFileSync(abs('b.txt'), 'utf8')).toBe('original b\n');
    expect(restoreSummary(result)[0]).toBe('restored 1 file, skipped 2');
    const hint = plan.skipped[0]?.hint ?? '';
    const ran = spawnSync('sh', ['-c', hint], { cwd: sb.ws, encoding: 'utf8' });
    expect(ran.status).toBe(0);
    expect(fs.readFileSync(abs('a.txt'), 'utf8')).toBe('original\n');
    expect(plan.skipped[1]?.hint).toBe("rm -- 'made.txt'");
  });

  it('restores files changed over several turns to before the first one, ignoring edits made between turns', async () => {
    write(sb.ws, 'a.txt', 'v0\n');
    write(sb.ws, 'notes.md', 'person v0\n');
    const s = await sb.open();
    const t1 = await turn(s, () => write(sb.ws, 'a.txt', 'v1\n'));
    write(sb.ws, 'notes.md', 'person v1, between turns\n');
    const t2 = await turn(s, () => write(sb.ws, 'a.txt', 'v2\n'));
    const plan = await s.planRestore([t1, t2]);
    expect(formatPlan(plan)).toEqual(['M a.txt']);
    await s.applyRestore(plan);
    expect(fs.readFileSync(abs('a.txt'), 'utf8')).toBe('v0\n');
    expect(fs.readFileSync(abs('notes.md'), 'utf8')).toBe('person v1, between turns\n');
  });

  it('removes directories the session created once emptied, and keeps ones that hold other files', async () => {
    write(sb.ws, 'existing/keep.txt', 'k');
    const s = await sb.open();
    const span = await turn(s, () => {
      write(sb.ws, 'a/b/c/made.txt', 'x');
      write(sb.ws, 'shared/made.txt', 'x');
      write(sb.ws, 'existing/made.txt', 'x');
    });
    write(sb.ws, 'shared/node_modules/dep.js', 'ignored, untracked by snapshots');
    await s.applyRestore(await s.planRestore([span]));
    expect(fs.existsSync(abs('a'))).toBe(false);
    expect(fs.readdirSync(abs('shared'))).toEqual(['node_modules']);
    expect(fs.readdirSync(abs('existing'))).toEqual(['keep.txt']);
  });

  it('swaps a file and a directory back in either direction', async () => {
    write(sb.ws, 'was-file', 'file\n');
    write(sb.ws, 'was-dir/inner.txt', 'inner\n');
    const s = await sb.open();
    const start = treeOf(sb.ws);
    const span = await turn(s, () => {
      fs.unlinkSync(abs('was-file'));
      write(sb.ws, 'was-file/now.txt', 'now a dir\n');
      fs.rmSync(abs('was-dir'), { recursive: true });
      write(sb.ws, 'was-dir', 'now a file\n');
    });
    const result = await s.applyRestore(await s.planRestore([span]));
    expect(result.failed).toEqual([]);
    expect(treeOf(sb.ws)).toEqual(start);
  });

  it('never follows a directory the person replaced by a symlink', async () => {
    const outside = path.join(sb.root, 'outside');
    write(outside, 'victim.txt', 'must survive\n');
    write(sb.ws, 'd/victim.txt', 'inside\n');
    const s = await sb.open();
    const span = await turn(s, () => write(sb.ws, 'd/victim.txt', 'agent\n'));
    fs.rmSync(abs('d'), { recursive: true });
    fs.symlinkSync(outside, abs('d'));
    write(outside, 'victim.txt', 'agent\n');
    const plan = await s.planRestore([span]);
    expect(plan.actions).toEqual([]);
    expect(plan.skipped[0]?.reason).toMatch(/^d is now a symlink or a file/);
    await s.applyRestore(plan);
    expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('agent\n');
  });

  it('tells the model in one short message which files were restored', async () => {
    write(sb.ws, 'a.txt', 'a');
    const s = await sb.open();
    const span = await turn(s, () => {
      write(sb.ws, 'a.txt', 'b');
      write(sb.ws, 'n.txt', 'n');
    });
    const result = await s.applyRestore(await s.planRestore([span]));
    expect(restoredFilesMessage(result)).toBe(
      'The user rolled the workspace files back. These files were restored to their earlier state; re-read them before relying on their content:\n' +
        '- n.txt (deleted)\n- a.txt (reverted)',
    );
  });

  it('does nothing for a plan with no actions, and reports an already-restored file as done', async () => {
    write(sb.ws, 'a.txt', 'a');
    const s = await sb.open();
    const span = await turn(s, () => write(sb.ws, 'a.txt', 'b'));
    write(sb.ws, 'a.txt', 'a');
    const plan = await s.planRestore([span]);
    expect(plan.actions).toEqual([]);
    expect(plan.skipped).toEqual([]);
    expect(await s.applyRestore(plan)).toEqual({ restored: [], skipped: [], failed: [] });
  });
});
