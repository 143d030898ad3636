// The `raw` step (malformed or unusual answers for the fault tests) and the `completed` mark
// of the request log.
import { describe, expect, it } from 'vitest';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { completed, text, useEmulator } from './test-kit.ts';

const kit = useEmulator();

const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function completion(extra: Record<string, unknown> = {}): string {
  const response = {
    id: '{{id}}',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-5',
    output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'raw answer', annotations: [] }] }],
    ...extra,
  };
  return frame('response.completed', { sequence_number: 1, response });
}

async function collect(input: string, previous?: string): Promise<{ events: ResponseStreamEvent[]; error: unknown }> {
  const events: ResponseStreamEvent[] = [];
  try {
    const stream = await kit.client.responses.create({ model: 'gpt-5', input, stream: true, ...(previous ? { previous_response_id: previous } : {}) });
    for await (const e of stream) events.push(e);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe('raw step', () => {
  it('writes the body as given, substitutes {{id}} and stores a parsable completion for chaining', async () => {
    kit.emu.enqueue({ kind: 'raw', body: `${frame('response.weird_new_event', { sequence_number: 0 })}${completion()}` });
    const { events, error } = await collect('x');
    expect(error).toBeUndefined();
    const done = completed(events);
    expect(done.id).toMatch(/^resp_/);
    expect(done.usage).toBeUndefined();
    expect(kit.emu.requests[0]?.completed).toBe(true);
    expect(text(await kit.run({ input: 'next', previous_response_id: done.id }))).toBe('You said: next');
  });

  it('sends bad JSON in a frame untouched and can cut the connection', async () => {
    kit.emu.enqueue({ kind: 'raw', body: 'event: response.created\ndata: {not json\n\n' });
    const bad = await collect('x');
    expect(bad.error).toBeDefined();
    expect(kit.emu.requests[0]?.completed).toBeUndefined();
    kit.emu.enqueue({ kind: 'raw', body: frame('response.created', { sequence_number: 0, response: { id: '{{id}}' } }), cut: true });
    const cut = await collect('y');
    expect(cut.events.some((e) => e.type === 'response.completed')).toBe(false);
  });

  it('answers with any status and content type', async () => {
    kit.emu.enqueue({ kind: 'raw', status: 502, contentType: 'text/html', body: '<html>bad gateway</html>' });
    const res = await kit.post('/v1/responses', { model: 'gpt-5', input: 'x', stream: true });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html>bad gateway</html>');
    expect(kit.emu.requests[0]?.status).toBe(502);
  });

  it('stores the tool calls of a raw completion as pending, so their outputs are checked', async () => {
    const call = { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_raw', name: 'shell', arguments: '{oops' };
    kit.emu.enqueue({ kind: 'raw', body: completion({ output: [call] }) });
    const { events } = await collect('x');
    const id = completed(events).id;
    const res = await kit.post('/v1/responses', { model: 'gpt-5', input: 'no outputs', previous_response_id: id });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('call_raw');
  });

  it('marks ordinary completions in the log, and not failed or cut ones', async () => {
    kit.emu.enqueue({ kind: 'text', text: 'ok' }, { kind: 'failed', code: 'server_error', message: 'boom' }, { kind: 'cut' });
    await kit.run({ input: 'a' });
    await collect('b');
    await collect('c');
    expect(kit.emu.requests.map((r) => r.completed === true)).toEqual([true, false, false]);
  });

  it('rejects a raw step without a body at enqueue time', async () => {
    expect((await kit.post('/__emulator/enqueue', [{ kind: 'raw' }])).status).toBe(400);
    expect((await kit.post('/__emulator/enqueue', [{ kind: 'raw', body: '', cut: 'yes' }])).status).toBe(400);
    expect((await kit.post('/__emulator/enqueue', [{ kind: 'raw', body: 'x', status: 500 }])).status).toBe(200);
  });
});
