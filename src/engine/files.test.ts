// File rollback through the engine: a scripted model, a real session store, a tool that really
// writes files, and the real snapshot store (git) in a temp directory.
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotIdsInUse } from '../store/state.ts';
import type { ParsedCall, Tool, ToolResult } from '../tools/tool.ts';
import type { ToolCallItem } from '../wire/items.ts';
import { makeSandbox, type Sandbox } from '../../test/support/workspace.ts';
import { Engine } from './engine.ts';
import { echoCall, echoTool, harness, type Step } from '../../test/support/engine.ts';

interface FileCall extends ParsedCall {
  op: { write?: [string, string]; remove?: string };
}

/** `fs({"write":["a.txt","x"]})` or `fs({"remove":"a.txt"})` in the workspace. */
function fsTool(root: string): Tool<FileCall> {
  return {
    name: 'fs',
    writes: true,
    definitions: () => [{ type: 'function', name: 'fs', description: 'fs', strict: false, parameters: { type: 'object' } }],
    accepts: (item) => item.type === 'function_call' && item.name === 'fs',
    parse(item) {
      if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: 'no' };
      const op = JSON.parse(item.arguments) as FileCall['op'];
      return { ok: true, call: { callId: item.call_id, title: item.arguments, commands: [], op } };
    },
    run(call): Promise<ToolResult> {
      if (call.op.write) writeFileSync(join(root, call.op.write[0]), call.op.write[1]);
      if (call.op.remove) unlinkSync(join(root, call.op.remove));
      return Promise.resolve({ reply: { ok: true, text: 'ok' }, summary: [], interrupted: false });
    },
  };
}

const fsCall = (id: string, op: FileCall['op']): ToolCallItem => ({ type: 'function_call', call_id: id, name: 'fs', arguments: JSON.stringify(op) });
const signal = (): AbortSignal => new AbortController().signal;

let box: Sandbox | undefined;
const dirs: string[] = [];
afterEach(() => {
  box?.cleanup();
  box = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(steps: Step[]): Promise<{ engine: Engine; ws: string; events: { type: string }[]; requests: () => unknown[] }> {
  box = makeSandbox();
  const ws = box.ws;
  writeFileSync(join(ws, 'tracked.txt'), 'tracked\n');
  const h = harness(steps, [fsTool(ws), echoTool([])]);
  h.deps.workspace = await box.open();
  dirs.push(h.dir);
  return { engine: new Engine(h.deps), ws, events: h.events, requests: () => h.client.requests };
}

const read = (ws: string, rel: string): string | null => (existsSync(join(ws, rel)) ? readFileSync(join(ws, rel), 'utf8') : null);

describe('file spans and rollback through the engine', () => {
  it('records one span per writing turn, rolls files back with the conversation, and undoes it', async () => {
    const { engine, ws, events, requests } = await setup([
      { text: '', calls: [fsCall('1', { write: ['a.txt', 'one\n'] })] },
      { text: 't1' },
      { text: '', calls: [fsCall('2', { write: ['a.txt', 'two\n'] }), fsCall('3', { write: ['b.txt', 'b\n'] })] },
      { text: 't2' },
      { text: '', calls: [fsCall('4', { remove: 'tracked.txt' })] },
      { text: 't3' },
      { text: '', calls: [echoCall('e', 'hi')] },
      { text: 't4' },
      { text: 'after' },
    ]);
    for (const q of ['q1', 'q2', 'q3', 'q4']) expect((await engine.message(q, [], signal())).kind).toBe('done');
    const history = engine.state.history;
    expect(history.slice(0, 3).every((h) => h.files !== undefined && h.files !== null && h.files.from !== h.files.to)).toBe(true);
    // The echo tool "writes" too, but nothing changed: no span, no event.
    expect(history[3]?.files).toBeUndefined();
    expect(events.filter((e) => e.type === 'workspace_changed')).toHaveLength(3);
    expect(events).toContainEqual({ type: 'workspace_changed', changes: [{ status: 'D', path: 'tracked.txt' }] });

    // Back to after turn 1 (checkpoint 4 of 4 = newest is 1).
    const plan = await engine.planRollbackFiles(4);
    expect(plan.relevant).toBe(true);
    expect(plan.plan.actions.map((a) => `${a.change} ${a.path}`).sort()).toEqual(['A b.txt', 'D tracked.txt', 'M a.txt']);
    const result = await engine.rollback(4, 'both', plan.plan);
    expect(result?.restored).toHaveLength(3);
    expect([read(ws, 'a.txt'), read(ws, 'b.txt'), read(ws, 'tracked.txt')]).toEqual(['one\n', null, 'tracked\n']);
    expect(engine.state.last_user_message).toBe('q1');
    const undoSpan = engine.state.rollback_backup?.files_undo;
    expect(undoSpan).toBeTruthy();
    expect(snapshotIdsInUse(engine.state)).toEqual(expect.arrayContaining([undoSpan?.from, undoSpan?.to]));

    // The next request tells the model which files were restored, once.
    await engine.message('next', [], signal());
    const input = JSON.stringify((requests().at(-1) as { input: unknown[] }).input);
    expect(input).toContain('"role":"developer"');
    expect(input).toContain('a.txt (reverted)');

    // Undo brings the after-turn-3 files back.
    const undo = await engine.planUndoFiles();
    expect(undo.relevant).toBe(true);
    await engine.rollbackUndo(undo.plan);
    expect([read(ws, 'a.txt'), read(ws, 'b.txt'), read(ws, 'tracked.txt')]).toEqual(['two\n', 'b\n', null]);
  });

  it('skips a file the person changed after the last snapshot, and "files only" keeps the conversation', async () => {
    const { engine, ws } = await setup([
      { text: 't0' },
      { text: '', calls: [fsCall('1', { write: ['a.txt', 'agent\n'] }), fsCall('2', { write: ['c.txt', 'c\n'] })] },
      { text: 't1' },
    ]);
    await engine.message('q0', [], signal());
    await engine.message('q1', [], signal());
    expect(engine.state.history[0]?.files).toBeUndefined();
    writeFileSync(join(ws, 'a.txt'), 'person\n');
    const diff = await engine.diffFiles();
    expect(diff?.changes.map((c) => `${c.status} ${c.path}`).sort()).toEqual(['A a.txt', 'A c.txt']);
    const before = engine.state.response_id;
    const plan = await engine.planRollbackFiles(2);
    expect(plan.plan.skipped.map((s) => s.path)).toEqual(['a.txt']);
    expect(plan.plan.actions.map((a) => a.path)).toEqual(['c.txt']);
    await engine.rollback(2, 'files', plan.plan);
    expect([read(ws, 'a.txt'), read(ws, 'c.txt')]).toEqual(['person\n', null]);
    expect(engine.state.response_id).toBe(before);
    expect(engine.state.rollback_backup?.files_undo).toBeTruthy();
    await engine.rollbackUndo((await engine.planUndoFiles()).plan);
    expect(read(ws, 'c.txt')).toBe('c\n');
  });
});
