// The turn loop and the engine's operations against a scripted model client, a real session
// store in a temp dir, and a recording tool: every branch of the loop.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import { recordToolCalls, type SessionState } from '../store/state.ts';
import { emptyState } from '../store/state.ts';
import { Engine } from './engine.ts';
import { echoCall, echoTool, harness, permissionsIn, scriptedPerson } from '../../test/support/engine.ts';

const signal = (): AbortSignal => new AbortController().signal;
const types = (events: { type: string }[]): string[] => events.map((e) => e.type);
const onDisk = (dir: string): SessionState => JSON.parse(readFileSync(join(dir, '.agentx_responseid'), 'utf8')) as SessionState;

describe('a turn', () => {
  it('answers text, records the checkpoint on disk and publishes it for one-shots', async () => {
    const h = harness([{ text: 'hello' }], []);
    const outcome = await new Engine(h.deps).message('hi', [], signal());
    expect(outcome.kind).toBe('done');
    expect(types(h.events)).toEqual(['request_start', 'text_delta', 'usage', 'turn_done']);
    expect(onDisk(h.dir).history).toHaveLength(1);
    expect(existsSync(join(h.dir, '.agentx_checkpoint'))).toBe(true);
    expect(h.client.requests[0]?.input).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
  });

  it('runs parallel calls in order, journals each, and sends both outputs in the next request', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two')] }, { text: 'done' }], [echoTool(runs)]);
    const outcome = await new Engine(h.deps).message('go', [], signal());
    expect(outcome.kind).toBe('done');
    expect(runs).toEqual(['one', 'two']);
    expect(h.client.requests[1]?.input).toEqual([
      { type: 'function_call_output', call_id: 'a', output: 'echo: one' },
      { type: 'function_call_output', call_id: 'b', output: 'echo: two' },
    ]);
    expect(h.client.requests[1]?.previous_response_id).toMatch(/^resp_/);
    expect(onDisk(h.dir).pending_tool_calls).toEqual([]);
    expect(onDisk(h.dir).transcript.map((e) => e.text)).toContain('echo one');
  });

  it('marks a call started on disk before it runs', async () => {
    const seen: string[] = [];
    const h = harness(
      [{ text: '', calls: [echoCall('a', 'x')] }, { text: 'ok' }],
      [
        echoTool([], (_call, ctx) => {
          seen.push(onDisk(ctx.workspaceRoot).pending_tool_calls[0]?.status ?? 'none');
        }),
      ],
    );
    await new Engine(h.deps).message('go', [], signal());
    expect(seen).toEqual(['started']);
  });

  it('does not run a call whose started mark cannot be saved, and says why', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'x')] }, { text: 'could not' }], [echoTool(runs)]);
    const engine = new Engine(h.deps);
    // The disk goes away between the response and the call: the journal cannot record `started`.
    const origUpdate = h.store.update.bind(h.store);
    h.store.update = (t, o) => {
      if (o?.required) rmSync(h.dir, { recursive: true, force: true });
      origUpdate(t, o);
    };
    const outcome = await engine.message('go', [], signal());
    expect(runs).toEqual([]);
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'save_failed', blocking: true }));
    const answer = h.client.requests[1]?.input[0];
    expect(answer?.type === 'function_call_output' && answer.output).toMatch(/could not record this call.*so it was not run/);
    expect(outcome.kind).toBe('done');
  });

  it('answers unknown tools and bad arguments without running anything', async () => {
    const runs: string[] = [];
    const bad = { type: 'function_call' as const, call_id: 'b', name: 'echo', arguments: '{"text": 3}' };
    const unknown = { type: 'function_call' as const, call_id: 'u', name: 'deploy', arguments: '{}' };
    const h = harness([{ text: '', calls: [bad, unknown] }, { text: 'sorry' }], [echoTool(runs)]);
    await new Engine(h.deps).message('go', [], signal());
    expect(runs).toEqual([]);
    expect(h.client.requests[1]?.input).toEqual([
      { type: 'function_call_output', call_id: 'b', output: 'error: "text" must be a string' },
      { type: 'function_call_output', call_id: 'u', output: 'error: unknown tool "deploy": the available tools are "echo"' },
    ]);
    expect(types(h.events).filter((t) => t === 'tool_error')).toHaveLength(2);
  });

  it('sends a refusal when the call is declined under untrusted (a confirm question on the channel)', async () => {
    const runs: string[] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'x')] }, { text: 'ok' }], [echoTool(runs)]);
    permissionsIn(h, 'untrusted');
    const asked = scriptedPerson(h, [{ kind: 'no' }]);
    await new Engine(h.deps).message('go', [], signal());
    expect(asked.map((q) => [q.kind, q.title])).toEqual([['confirm', 'echo x']]);
    expect(runs).toEqual([]);
    expect(h.client.requests[1]?.input[0]).toMatchObject({ output: 'error: the user declined to run this call' });
  });
});

describe('interruption', () => {
  it('during a call: later calls are answered "not run", the turn is recorded as interrupted', async () => {
    const runs: string[] = [];
    const controller = new AbortController();
    const h = harness([{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two')] }], [echoTool(runs, () => controller.abort())]);
    const engine = new Engine(h.deps);
    const outcome = await engine.message('go', [], controller.signal);
    expect(outcome.kind).toBe('interrupted');
    expect(runs).toEqual(['one']);
    const state = onDisk(h.dir);
    expect(state.pending_tool_calls.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(state.pending_tool_calls[1]?.output).toMatchObject({ output: 'error: not run: the user interrupted the turn' });
    expect(state.interrupted_turn?.user_message).toBe('go');
    expect(types(h.events)).toContain('turn_interrupted');
  });

  it('while waiting for the server: nothing is journaled, the next message carries a note', async () => {
    const controller = new AbortController();
    const h = harness([{ hang: true }, { text: 'fine' }], []);
    const engine = new Engine(h.deps);
    const pending = engine.message('slow', [], controller.signal);
    setImmediate(() => controller.abort());
    expect((await pending).kind).toBe('interrupted');
    await engine.message('again', [], signal());
    const parts = h.client.requests[1]?.input[0];
    expect(parts?.type === 'message' && parts.content[0]?.type === 'input_text' && parts.content[0].text).toMatch(/interrupted your previous turn.*"slow"/);
  });

  it('a later message resends the outputs of interrupted calls before the user text', async () => {
    const controller = new AbortController();
    const h = harness([{ text: '', calls: [echoCall('a', 'one')] }, { text: 'next' }], [echoTool([], () => controller.abort())]);
    const engine = new Engine(h.deps);
    await engine.message('go', [], controller.signal);
    await engine.message('continue', [], signal());
    expect(h.client.requests[1]?.input.map((i) => i.type)).toEqual(['function_call_output', 'message']);
  });
});

describe('failures', () => {
  it('retries a retryable failure, then records the failed request for the menu', async () => {
    const err = new ModelError('HTTP 503', 'retryable', { status: 503 });
    const h = harness([{ fail: err }, { fail: err }, { text: 'back' }], []);
    const engine = new Engine(h.deps);
    const outcome = await engine.message('hello', [], signal());
    expect(outcome.kind).toBe('failed');
    expect(types(h.events)).toEqual(['request_start', 'retry', 'request_start', 'turn_failed']);
    expect(onDisk(h.dir).pending_transaction?.user_message).toBe('hello');
    // Retry resends exactly the same input.
    expect((await engine.retryFailed(signal())).kind).toBe('done');
    expect(h.client.requests[2]?.input).toEqual(h.client.requests[0]?.input);
    expect(onDisk(h.dir).pending_transaction).toBeNull();
  });

  it('moves to a new chain once when the chain is gone, with the local context', async () => {
    const h = harness([{ text: 'first' }, { fail: new ModelError('previous response not found', 'chain_broken', { status: 404 }) }, { text: 'rebuilt' }], []);
    const engine = new Engine(h.deps);
    await engine.message('remember 42', [], signal());
    const outcome = await engine.message('what number?', [], signal());
    expect(outcome.kind).toBe('done');
    expect(h.client.requests[2]?.previous_response_id).toBeUndefined();
    expect(JSON.stringify(h.client.requests[2]?.input)).toContain('remember 42');
    expect(types(h.events)).toContain('chain_restarted');
  });

  it('a chain lost again and again: at most 2 new chains in a turn, then the menu (never a loop of requests)', async () => {
    const gone = (): { fail: ModelError } => ({ fail: new ModelError('previous response not found', 'chain_broken', { status: 400 }) });
    const h = harness([{ text: 'first' }, gone(), gone(), gone(), { text: 'never' }], []);
    const engine = new Engine(h.deps);
    await engine.message('one', [], signal());
    const outcome = await engine.message('two', [], signal());
    expect(outcome.kind).toBe('failed');
    expect(h.client.requests).toHaveLength(4);
    expect(types(h.events).filter((t) => t === 'chain_restarted')).toHaveLength(2);
    expect(onDisk(h.dir).pending_transaction?.user_message).toBe('two');
  });

  it('newChain resends a failed request on a fresh chain', async () => {
    const h = harness([{ text: 'a' }, { fail: new ModelError('bad', 'fatal', { status: 400 }) }, { text: 'b' }], []);
    const engine = new Engine(h.deps);
    await engine.message('one', [], signal());
    expect((await engine.message('two', [], signal())).kind).toBe('failed');
    expect((await engine.newChain(signal())).kind).toBe('done');
    expect(h.client.requests[2]?.previous_response_id).toBeUndefined();
  });
});

describe('pending calls of a dead session', () => {
  const dead = (): SessionState =>
    recordToolCalls(emptyState(), {
      responseId: 'resp_dead',
      usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      userMessage: 'build it',
      calls: [
        {
          type: 'function_call',
          call_id: 'a',
          name: 'echo',
          arguments: '{"text":"done-before"}',
          status: 'completed',
          output: { type: 'function_call_output', call_id: 'a', output: 'echo: done-before' },
        },
        { type: 'function_call', call_id: 'b', name: 'echo', arguments: '{"text":"half"}', status: 'started' },
      ],
    });

  it('run: re-runs only the unfinished call, reuses the completed output', async () => {
    const runs: string[] = [];
    const h = harness([{ text: 'finished' }], [echoTool(runs)], { initial: dead() });
    const outcome = await new Engine(h.deps).resumePendingCalls('run', signal());
    expect(outcome.kind).toBe('done');
    expect(runs).toEqual(['half']);
    expect(h.client.requests[0]?.previous_response_id).toBe('resp_dead');
    expect(h.client.requests[0]?.input.map((i) => 'output' in i && i.output)).toEqual(['echo: done-before', 'echo: half']);
    expect(types(h.events)).toContain('tool_reused');
    // The recorded turn keeps the transcript line of the call it re-ran (issue 24 audit).
    expect(onDisk(h.dir).transcript.map((e) => e.text)).toContain('echo half');
  });

  it('skip-ask-first: nothing runs; the model is told the call may have run partly', async () => {
    const runs: string[] = [];
    const h = harness([{ text: 'ok' }], [echoTool(runs)], { initial: dead() });
    await new Engine(h.deps).resumePendingCalls('skip-ask-first', signal());
    expect(runs).toEqual([]);
    expect(JSON.stringify(h.client.requests[0]?.input)).toMatch(/may have run partly.*without asking/);
  });
});

describe('rollback and clear', () => {
  it('after a rollback (and its undo) the environment context is sent again: the chain no longer has the later one', async () => {
    const h = harness([{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }, { text: 'a4' }], []);
    let cwd = '/work/a';
    h.deps.environment = () => ({
      cwd,
      shell: '/bin/sh',
      os: 'Linux',
      date: '2026-12-05',
      model: 'm',
      sandbox: 'workspace-write',
      writableRoots: [],
      network: false,
      approval: 'never',
      planMode: false,
    });
    const engine = new Engine(h.deps);
    await engine.message('q1', [], signal());
    cwd = '/work/b';
    await engine.message('q2', [], signal());
    await engine.rollback(2);
    await engine.message('q3', [], signal());
    expect(JSON.stringify(h.client.requests[2]?.input)).toContain('<cwd>/work/b</cwd>');
    await engine.rollbackUndo();
    await engine.message('q4', [], signal());
    expect(JSON.stringify(h.client.requests[3]?.input)).toContain('<cwd>/work/b</cwd>');
  });

  it('rollback, undo and clear move the conversation and the published checkpoint', async () => {
    const h = harness([{ text: 'a1' }, { text: 'a2' }], []);
    const engine = new Engine(h.deps);
    await engine.message('q1', [], signal());
    await engine.message('q2', [], signal());
    const checkpoint = (): string => readFileSync(join(h.dir, '.agentx_checkpoint'), 'utf8');
    await engine.rollback(2);
    expect(engine.state.last_user_message).toBe('q1');
    expect(checkpoint()).toContain(engine.state.response_id ?? 'none');
    await engine.rollbackUndo();
    expect(engine.state.last_user_message).toBe('q2');
    engine.clear();
    expect(engine.state.response_id).toBeNull();
    await engine.rollbackUndo();
    expect(engine.state.last_user_message).toBe('q2');
  });
});
