// kill -9 in the middle of "/rollback → conversation and files" (issue 23 §6): a child process runs
// the engine's rollback with a real session store and a real snapshot store, and kills itself with
// SIGKILL once the file restore has begun. The next start (here: a new engine on the same files)
// finishes both halves: the files are the checkpoint's, the conversation is at the checkpoint, and
// `/rollback undo` brings both back. Before the journal, the conversation part was lost.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { bundleChild, makeSandbox, treeOf, write, type Sandbox } from '../../test/support/workspace.ts';
import { harness } from '../../test/support/engine.ts';
import { SessionStore } from '../store/session-store.ts';
import { loadState } from '../store/store.ts';
import { emptyState, recordTurn, type SessionState } from '../store/state.ts';
import { Engine } from './engine.ts';
import { beginRollback, rollbackInProgress } from './rollback.ts';
import type { WorkspaceSnapshots } from '../workspace/index.ts';

const FILES = 40;
const usage = { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 };

let scripts: string;
let child: string;
beforeAll(() => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-rollback-kill-'));
  // The child: the engine's rollback to checkpoint 2, files and conversation; SIGKILL to itself as
  // soon as the snapshot store's restore journal exists (files are being written).
  child = bundleChild(
    `
    import * as fs from 'node:fs';
    import * as path from 'node:path';
    import { openWorkspaceSnapshots } from './index.ts';
    import { Engine } from '../engine/engine.ts';
    import { harness } from '../../test/support/engine.ts';
    import { SessionStore } from '../store/session-store.ts';
    import { loadState } from '../store/store.ts';
    const [ws, envJson, statePath] = process.argv.slice(2);
    const env = JSON.parse(envJson);
    const s = await openWorkspaceSnapshots({ workspace: ws, env, homeDir: env.HOME, graceMs: 0, lockWaitMs: 5000 });
    const h = harness([], []);
    h.deps.session = new SessionStore({ dir: path.dirname(statePath), path: statePath, initial: loadState(statePath, new Date()).state, persistence: 'durable', publishesCheckpoint: true, warn: () => {} });
    h.deps.workspace = s;
    const engine = new Engine(h.deps);
    const plan = await engine.planRollbackFiles(2);
    const journal = path.join(s.storeDir, 'restore.json');
    const watch = () => (fs.existsSync(journal) ? process.kill(process.pid, 'SIGKILL') : setImmediate(watch));
    watch();
    await engine.rollback(2, 'both', plan.plan);
    process.stdout.write('finished without being killed\\n');
  `,
    scripts,
    'rollback-kill-child',
  );
});
afterAll(() => fs.rmSync(scripts, { recursive: true, force: true }));

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** Two checkpoints: resp_a (files as first written), then resp_b whose turn rewrote, made and deleted files. */
async function twoTurns(s: WorkspaceSnapshots): Promise<{ state: SessionState; atA: Record<string, string>; atB: Record<string, string> }> {
  for (let i = 0; i < FILES; i++) write(sb.ws, `src/d${i % 8}/f${i}.txt`, `original ${i}\n${'x'.repeat(1000)}\n`);
  const now = new Date('2026-01-01T00:00:00Z');
  let state = recordTurn(emptyState(), { responseId: 'resp_a', userMessage: 'first', assistantMessage: 'a', usage, now });
  const atA = treeOf(sb.ws);
  const from = (await s.snapshot())?.id ?? '';
  for (let i = 0; i < FILES; i++) {
    const rel = `src/d${i % 8}/f${i}.txt`;
    if (i % 3 === 0) fs.unlinkSync(path.join(sb.ws, rel));
    else write(sb.ws, rel, `agent ${i}\n`);
    if (i % 5 === 0) write(sb.ws, `gen/g${i}.txt`, `made ${i}\n`);
  }
  const to = (await s.snapshot())?.id ?? '';
  state = recordTurn(state, { responseId: 'resp_b', userMessage: 'second', assistantMessage: 'b', usage, now, files: { from, to } });
  return { state, atA, atB: treeOf(sb.ws) };
}

function engineOn(statePath: string, s: WorkspaceSnapshots): Engine {
  const h = harness([], []);
  h.deps.session = new SessionStore({
    dir: path.dirname(statePath),
    path: statePath,
    initial: loadState(statePath, new Date()).state,
    persistence: 'durable',
    publishesCheckpoint: true,
    warn: () => {},
  });
  h.deps.workspace = s;
  return new Engine(h.deps);
}

it('kill -9 during "conversation and files": the next start finishes both, and /rollback undo still works', async () => {
  const s = await sb.open();
  const { state, atA, atB } = await twoTurns(s);
  const stateDir = path.join(sb.root, 'project');
  fs.mkdirSync(stateDir);
  const statePath = path.join(stateDir, '.agentx_responseid');
  new SessionStore({ dir: stateDir, path: statePath, initial: state, persistence: 'durable', publishesCheckpoint: false, warn: () => {} }).update((x) => x);

  const run = spawnSync(process.execPath, [child, sb.ws, JSON.stringify(sb.env), statePath], { encoding: 'utf8', timeout: 20_000 });
  expect(run.signal, run.stderr).toBe('SIGKILL');
  // Killed once files were being restored: the conversation has not moved yet.
  expect(loadState(statePath, new Date()).state.response_id).toBe('resp_b');

  // The next start: the snapshot store finishes its own journal, then the engine its rollback.
  const reopened = await sb.open();
  await reopened.resumeInterruptedRestore();
  const engine = engineOn(statePath, reopened);
  const finished = await engine.finishInterruptedRollback();
  expect(treeOf(sb.ws)).toEqual(atA);
  const after = loadState(statePath, new Date()).state;
  expect(after.response_id).toBe('resp_a');
  expect(finished?.result.failed).toEqual([]);
  expect(after.rollback_backup?.response_id).toBe('resp_b');
  expect(after.rollback_backup?.files_undo).not.toBeNull();
  expect(rollbackInProgress(after)).toBeNull();
  expect(after.rollback_in_progress).toBeUndefined();

  // Undo brings back the conversation and the files the rollback replaced.
  const undoPlan = await engine.planUndoFiles();
  await engine.rollbackUndo(undoPlan.plan);
  expect(treeOf(sb.ws)).toEqual(atB);
  expect(loadState(statePath, new Date()).state.response_id).toBe('resp_b');
}, 30_000);

it('a rollback that is not killed leaves no journal and needs nothing at the next start', async () => {
  const s = await sb.open();
  const { state, atA } = await twoTurns(s);
  const statePath = path.join(sb.root, '.agentx_responseid');
  new SessionStore({ dir: sb.root, path: statePath, initial: state, persistence: 'durable', publishesCheckpoint: false, warn: () => {} }).update((x) => x);
  const engine = engineOn(statePath, s);
  await engine.rollback(2, 'both', (await engine.planRollbackFiles(2)).plan);
  expect(treeOf(sb.ws)).toEqual(atA);
  const after = loadState(statePath, new Date()).state;
  expect(after.response_id).toBe('resp_a');
  expect(after.rollback_in_progress).toBeUndefined();
  expect(await engineOn(statePath, s).finishInterruptedRollback()).toBeNull();
});

it('a journal whose conversation change no longer applies is dropped with the error, not retried at every start', async () => {
  const s = await sb.open();
  const statePath = path.join(sb.root, '.agentx_responseid');
  const state = recordTurn(emptyState(), { responseId: 'resp_a', userMessage: 'first', assistantMessage: 'a', usage, now: new Date() });
  const plan = { workspace: sb.ws, startSnapshot: '0'.repeat(40), actions: [], skipped: [] };
  new SessionStore({
    dir: sb.root,
    path: statePath,
    initial: beginRollback(state, { step: { op: 'rollback', index: 7, scope: 'both' }, plan, before: null }),
    persistence: 'durable',
    publishesCheckpoint: false,
    warn: () => {},
  }).update((x) => x);
  await expect(engineOn(statePath, s).finishInterruptedRollback()).rejects.toThrow(/No checkpoint 7/);
  const after = loadState(statePath, new Date()).state;
  expect(after.rollback_in_progress).toBeUndefined();
  expect(after.response_id).toBe('resp_a');
});
