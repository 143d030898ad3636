// One durable state write per tool call (issue 22 §6): a call's `completed` mark goes to disk
// with the next call's `started` mark, or before the outputs are sent, and before anything that
// may wait (the person's confirmation). The real engine, a real session store in a temp dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../store/state.ts';
import { Engine } from './engine.ts';
import { echoCall, echoTool, harness, permissionsIn, scriptedPerson } from '../../test/support/engine.ts';

const signal = (): AbortSignal => new AbortController().signal;
const onDisk = (dir: string): SessionState => JSON.parse(readFileSync(join(dir, '.agentx_responseid'), 'utf8')) as SessionState;
const statuses = (s: SessionState): string[] => s.pending_tool_calls.map((c) => `${c.call_id}:${c.status}`);

describe('state writes of a turn with tool calls', () => {
  it('writes once per call: the response, each started mark (carrying the previous completed one), the outputs, the answer', async () => {
    const calls = Array.from({ length: 10 }, (_, i) => echoCall(`c${i}`, String(i)));
    const h = harness([{ text: '', calls }, { text: 'done' }], [echoTool([])]);
    expect((await new Engine(h.deps).message('go', [], signal())).kind).toBe('done');
    // recordToolCalls + 10 × started + the flush before the outputs are sent + recordTurn (was 22: started and completed each).
    expect(h.store.saves).toBe(13);
  });

  it('the previous call is completed on disk, with its output, before the next one runs', async () => {
    const seen: string[][] = [];
    let dir = '';
    const tool = echoTool([], () => {
      seen.push(statuses(onDisk(dir)));
    });
    const h = harness([{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two'), echoCall('c', 'three')] }, { text: 'done' }], [tool]);
    dir = h.dir;
    await new Engine(h.deps).message('go', [], signal());
    expect(seen).toEqual([
      ['a:started', 'b:pending', 'c:pending'],
      ['a:completed', 'b:started', 'c:pending'],
      ['a:completed', 'b:completed', 'c:started'],
    ]);
  });

  it('every output is on disk before the request that sends them', async () => {
    let dir = '';
    const h = harness([{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two')] }, { text: 'done' }], [echoTool([])]);
    dir = h.dir;
    const stream = h.deps.client.stream.bind(h.deps.client);
    let beforeSecond: SessionState | undefined;
    h.deps.client = {
      stream: (request, s) => {
        if (request.previous_response_id !== undefined && request.previous_response_id !== null) beforeSecond = onDisk(dir);
        return stream(request, s);
      },
    };
    await new Engine(h.deps).message('go', [], signal());
    expect(beforeSecond?.pending_tool_calls.map((c) => [c.call_id, c.status, c.output])).toEqual([
      ['a', 'completed', { type: 'function_call_output', call_id: 'a', output: 'echo: one' }],
      ['b', 'completed', { type: 'function_call_output', call_id: 'b', output: 'echo: two' }],
    ]);
  });

  it('under untrusted, the previous call is completed on disk while the person is asked about the next', async () => {
    let dir = '';
    const asked: string[][] = [];
    const h = harness([{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two')] }, { text: 'done' }], [echoTool([])]);
    dir = h.dir;
    permissionsIn(h, 'untrusted');
    scriptedPerson(h, [], () => {
      asked.push(statuses(onDisk(dir)));
      return { answer: { kind: 'once' }, decidedBy: 'person' };
    });
    await new Engine(h.deps).message('go', [], signal());
    expect(asked).toEqual([
      ['a:pending', 'b:pending'],
      ['a:completed', 'b:pending'],
    ]);
  });

  it('an interrupted turn leaves the calls that ran completed on disk', async () => {
    const controller = new AbortController();
    const h = harness(
      [{ text: '', calls: [echoCall('a', 'one'), echoCall('b', 'two')] }],
      [
        echoTool([], (call) => {
          if (call.text === 'one') controller.abort();
        }),
      ],
    );
    const outcome = await new Engine(h.deps).message('go', [], controller.signal);
    expect(outcome.kind).toBe('interrupted');
    const s = onDisk(h.dir);
    expect(s.pending_tool_calls.find((c) => c.call_id === 'a')?.status).toBe('completed');
    expect(s.interrupted_turn).not.toBeNull();
  });
});
