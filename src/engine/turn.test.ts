// The Turn (one per operation) against a scripted model client and a real session store in a
// temp dir: it owns the per-turn values (the message, the signal, the files, the transcript
// lines, the new-chain budget), and every question it has goes through the question channel.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import { recordToolCalls, type SessionState } from '../store/state.ts';
import { loadState } from '../store/store.ts';
import { createPatchTool } from '../tools/patch-tool.ts';
import type { ToolCallItem } from '../wire/items.ts';
import { Engine } from './engine.ts';
import { journalEntry } from './journal.ts';
import { MAX_NEW_CHAINS_PER_TURN, Turn, TurnFailed } from './turn.ts';
import { echoCall, echoTool, harness, permissionsIn, scriptedPerson, type Harness } from '../../test/support/engine.ts';
import { makeSandbox } from '../../test/support/workspace.ts';

const signal = (): AbortSignal => new AbortController().signal;
const transcript = (dir: string): string[] => (JSON.parse(readFileSync(join(dir, '.agentx_responseid'), 'utf8')) as SessionState).transcript.map((e) => e.text);

function patchCall(callId: string, file: string): ToolCallItem {
  const input = `*** Begin Patch\n*** Add File: ${file}\n+hello\n*** End Patch\n`;
  return { type: 'function_call', call_id: callId, name: 'apply_patch', arguments: JSON.stringify({ input }) };
}
const patchTool = (): ReturnType<typeof createPatchTool> => createPatchTool({ form: 'function', readOnly: false });

/** A dead session left the call `text` of the turn "go" unfinished (journaled, not completed). */
function leftUnfinished(h: Harness, callId: string, text: string): void {
  h.store.update((s) =>
    recordToolCalls(s, {
      responseId: 'resp_dead',
      calls: [journalEntry(echoCall(callId, text))],
      usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      userMessage: 'go',
      assistantText: '',
      contextTokens: 1,
    }),
  );
}

describe('Turn', () => {
  it('owns the transcript lines of every call it ran, across rounds, and records them with the turn', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'one')] }, { text: '', calls: [echoCall('b', 'two')] }, { text: 'done' }], [echoTool(runs)]);
    const turn = new Turn(h.deps, 'go', signal());
    const result = await turn.run({ input: [], previousResponseId: null });
    expect(result.text).toBe('done');
    expect(turn.summaries).toEqual(['echo one', 'echo two']);
    expect(transcript(h.dir)).toEqual(['go', 'echo one', 'echo two', 'done']);
  });

  it('resume on one Turn: the re-run call and the calls of the continuation are in one record', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('c', 'after')] }, { text: 'finished' }], [echoTool(runs)]);
    leftUnfinished(h, 'b', 'half');
    await new Turn(h.deps, 'go', signal()).resume();
    expect(runs).toEqual(['half', 'after']);
    expect(h.client.requests[0]?.previous_response_id).toBe('resp_dead');
    expect(transcript(h.dir)).toEqual(['go', 'echo half', 'echo after', 'finished']);
  });

  it("a failed request keeps the turn's message in the failure record, and the new-chain budget is the turn's own", async () => {
    const lost = (): { fail: ModelError } => ({ fail: new ModelError('previous response not found', 'chain_broken', { status: 404 }) });
    const steps = Array.from({ length: MAX_NEW_CHAINS_PER_TURN + 1 }, lost);
    const h = harness([...steps, { text: 'fresh turn, fresh budget' }], []);
    const first = new Turn(h.deps, 'go', signal());
    await expect(first.run({ input: [], previousResponseId: 'resp_gone' })).rejects.toBeInstanceOf(TurnFailed);
    expect(h.events.filter((e) => e.type === 'chain_restarted')).toHaveLength(MAX_NEW_CHAINS_PER_TURN);
    expect(h.store.state.pending_transaction?.user_message).toBe('go');
    // A second operation is a new Turn: its budget starts again.
    const second = new Turn(h.deps, 'again', signal());
    expect((await second.run({ input: [], previousResponseId: null })).text).toBe('fresh turn, fresh budget');
  });

  it("reviewPatches: the turn's patches are asked about on the channel (kind confirm, with the diff); other calls run unasked", async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'look'), patchCall('p', 'AGENTS.md')] }, { text: 'wrote it' }], [echoTool(runs), patchTool()]);
    permissionsIn(h, 'on-request');
    const asked = scriptedPerson(h, [{ kind: 'once' }]);
    const turn = new Turn(h.deps, 'init', signal(), { reviewPatches: true });
    await turn.run({ input: [], previousResponseId: null });
    expect(runs).toEqual(['look']);
    expect(asked).toMatchObject([{ kind: 'confirm', tool: 'apply_patch', callId: 'p', choices: ['once', 'no', 'tell'] }]);
    expect(asked[0]?.preview.join('\n')).toContain('+hello');
    expect(readFileSync(join(h.dir, 'AGENTS.md'), 'utf8')).toBe('hello\n');
    const kinds = h.events.filter((e) => e.type === 'approval_requested' || e.type === 'approval_decided').map((e) => e.type);
    expect(kinds).toEqual(['approval_requested', 'approval_decided']);
  });

  it('without reviewPatches (on-request), a patch runs unasked', async () => {
    const h = harness([{ text: '', calls: [patchCall('p', 'x.txt')] }, { text: 'ok' }], [patchTool()]);
    permissionsIn(h, 'on-request');
    const asked = scriptedPerson(h);
    await new Turn(h.deps, 'go', signal()).run({ input: [], previousResponseId: null });
    expect(asked).toEqual([]);
    expect(existsSync(join(h.dir, 'x.txt'))).toBe(true);
  });

  it('"no, and tell the model" to a confirmation: the patch is not written and the model gets the person\'s words', async () => {
    const h = harness([{ text: '', calls: [patchCall('p', 'x.txt')] }, { text: 'ok' }], [patchTool()]);
    permissionsIn(h, 'untrusted');
    scriptedPerson(h, [{ kind: 'tell', text: 'name it y.txt' }]);
    await new Turn(h.deps, 'go', signal()).run({ input: [], previousResponseId: null });
    expect(existsSync(join(h.dir, 'x.txt'))).toBe(false);
    const sent = JSON.stringify(h.client.requests[1]?.input);
    expect(sent).toContain('name it y.txt');
    expect(h.events).toContainEqual({
      type: 'approval_decided',
      callId: 'p',
      kind: 'confirm',
      decision: 'tell',
      decidedBy: 'person',
      text: 'name it y.txt',
      reason: undefined,
    });
  });

  it('without anyone to answer, a confirmation is no by policy, said in the events, and the call is not run', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'x')] }, { text: 'ok' }], [echoTool(runs)]);
    permissionsIn(h, 'untrusted');
    await new Turn(h.deps, 'go', signal()).run({ input: [], previousResponseId: null });
    expect(runs).toEqual([]);
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'approval_decided', callId: 'a', decision: 'no', decidedBy: 'policy', reason: 'nobody can answer here' }),
    );
    expect(JSON.stringify(h.client.requests[1]?.input)).toContain('nobody can answer here');
  });

  it('Engine.message passes reviewPatches to this turn only', async () => {
    const h = harness(
      [{ text: '', calls: [patchCall('p1', 'one.txt')] }, { text: 'first' }, { text: '', calls: [patchCall('p2', 'two.txt')] }, { text: 'second' }],
      [patchTool()],
    );
    permissionsIn(h, 'on-request');
    const asked = scriptedPerson(h, [{ kind: 'no' }]);
    const engine = new Engine(h.deps);
    await engine.message('init', [], signal(), [], { reviewPatches: true });
    await engine.message('again', [], signal());
    expect(asked.map((q) => q.callId)).toEqual(['p1']);
    expect(existsSync(join(h.dir, 'one.txt'))).toBe(false);
    expect(existsSync(join(h.dir, 'two.txt'))).toBe(true);
  });
});

describe('Engine.reconfigure', () => {
  it('the same engine takes new collaborators (a new client) and keeps what belongs to the session: the note waiting for the next message', async () => {
    const before = harness([], []);
    const engine = new Engine(before.deps);
    engine.noteForNextMessage('a SessionStart hook said: hello');
    const after = harness([{ text: 'ok' }], [], { initial: before.store.state });
    engine.reconfigure(after.deps);
    expect((await engine.message('hi', [], signal())).kind).toBe('done');
    expect(before.client.requests).toHaveLength(0);
    expect(JSON.stringify(after.client.requests[0]?.input)).toContain('a SessionStart hook said: hello');
  });
});

describe('a failed turn and its retry', () => {
  it('Retry finishes the same turn: the record keeps the transcript lines of the calls run before the failure', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'before')] }, { fail: new ModelError('boom', 'fatal') }, { text: 'done' }], [echoTool(runs)]);
    const engine = new Engine(h.deps);
    expect((await engine.message('go', [], signal())).kind).toBe('failed');
    expect((await engine.retryFailed(signal())).kind).toBe('done');
    expect(runs).toEqual(['before']);
    expect(transcript(h.dir)).toEqual(['go', 'echo before', 'done']);
  });

  it('Retry in a new process (agentx restarted after the failure): the lines come from the state file, not from memory', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'before')] }, { fail: new ModelError('boom', 'fatal') }], [echoTool(runs)]);
    expect((await new Engine(h.deps).message('go', [], signal())).kind).toBe('failed');
    // A new process: the state from disk, a fresh engine and store over the same file.
    const loaded = loadState(h.store.path, new Date());
    const again = harness([{ text: 'done' }], [echoTool(runs)], { initial: loaded.state });
    expect((await new Engine(again.deps).retryFailed(signal())).kind).toBe('done');
    expect(runs).toEqual(['before']);
    expect(transcript(again.dir)).toEqual(['go', 'echo before', 'done']);
  });

  it('a failed Retry keeps the lines of both attempts for the next one', async () => {
    const runs: string[] = [];
    const h = harness(
      [
        { text: '', calls: [echoCall('a', 'first')] },
        { fail: new ModelError('boom', 'fatal') },
        { text: '', calls: [echoCall('b', 'second')] },
        { fail: new ModelError('boom again', 'fatal') },
      ],
      [echoTool(runs)],
    );
    const engine = new Engine(h.deps);
    expect((await engine.message('go', [], signal())).kind).toBe('failed');
    expect((await engine.retryFailed(signal())).kind).toBe('failed');
    expect(h.store.state.pending_transaction?.tool_summaries).toEqual(['echo first', 'echo second']);
  });
});

describe('Retry of the calls a dead session left, interrupted', () => {
  it('Ctrl-C while a re-run call writes: the turn is reported interrupted and /diff shows the write', async () => {
    const sb = makeSandbox();
    try {
      const interrupt = new AbortController();
      const runs: string[] = [];
      // The re-run call writes a file, then the person presses Ctrl-C while it is still running.
      const writesThenInterrupted = echoTool(runs, (call, ctx) => {
        writeFileSync(join(ctx.cwd, 'written.txt'), `${call.text}\n`);
        interrupt.abort();
      });
      const h = harness([], [writesThenInterrupted]);
      h.deps.workspace = await sb.open({ workspace: h.dir });
      leftUnfinished(h, 'b', 'half');
      const engine = new Engine(h.deps);
      expect((await engine.resumePendingCalls('run', interrupt.signal)).kind).toBe('interrupted');
      expect(runs).toEqual(['half']);
      expect(h.events.map((e) => e.type)).toContain('turn_interrupted');
      expect(h.events).toContainEqual({ type: 'workspace_changed', changes: [{ status: 'A', path: 'written.txt' }] });
      expect(h.store.state.pending_files).not.toBeNull();
      expect((await engine.diffFiles())?.changes.map((c) => c.path)).toEqual(['written.txt']);
    } finally {
      sb.cleanup();
    }
  });
});
