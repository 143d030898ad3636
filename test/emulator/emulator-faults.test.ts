import { describe, expect, it } from 'vitest';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { apiError, completed, text, useEmulator } from './test-kit.ts';

const kit = useEmulator();

describe('faults', () => {
  it('http_error twice then success, with retry-after', async () => {
    kit.emu.enqueue({ kind: 'http_error', status: 500, times: 2, retryAfter: 2 }, { kind: 'text', text: 'finally' });
    const first = await apiError(kit.run({ input: 'x' }));
    expect(first.status).toBe(500);
    expect(first.headers?.get('retry-after')).toBe('2');
    expect(first.headers?.get('x-request-id')).toMatch(/^req_/);
    expect((await apiError(kit.run({ input: 'x' }))).status).toBe(500);
    expect(text(await kit.run({ input: 'x' }))).toBe('finally');
    expect(kit.emu.requests.map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it('a cut stream ends without response.completed', async () => {
    kit.emu.enqueue({ kind: 'cut', afterText: 'partial' });
    const events: ResponseStreamEvent[] = [];
    let failure: unknown;
    try {
      const stream = await kit.client.responses.create({ model: 'gpt-5', input: 'x', stream: true });
      for await (const event of stream) events.push(event);
    } catch (err) {
      failure = err;
    }
    expect(events.some((e) => e.type === 'response.completed')).toBe(false);
    expect(String(failure)).toMatch(/terminated|closed|aborted/i);
    expect(text(events)).toBe('partial');
    expect(events[0]?.type).toBe('response.created');
  });

  it('failed ends with response.failed carrying the error', async () => {
    kit.emu.enqueue({ kind: 'failed', code: 'server_error', message: 'boom' });
    const events: ResponseStreamEvent[] = [];
    try {
      for await (const e of await kit.client.responses.create({ model: 'gpt-5', input: 'x', stream: true })) events.push(e);
    } catch {
      // the SDK may surface response.failed as an error; the events seen so far are what matter
    }
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    if (last?.type === 'response.failed') expect(last.response.error).toEqual({ code: 'server_error', message: 'boom' });
  });

  it('hang keeps the stream open until the client aborts', async () => {
    kit.emu.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const stream = await kit.client.responses.create({ model: 'gpt-5', input: 'x', stream: true }, { signal: controller.signal });
    const seen: string[] = [];
    const consume = (async () => {
      for await (const e of stream) {
        seen.push(e.type);
        if (e.type === 'response.in_progress') controller.abort();
      }
    })();
    await consume; // the SDK ends the iteration quietly on an abort
    expect(seen).toEqual(['response.created', 'response.in_progress']);
    expect(kit.emu.requests[0]?.status).toBe(200);
  });

  it('close() ends a hanging stream', async () => {
    kit.emu.enqueue({ kind: 'hang' });
    const stream = await kit.client.responses.create({ model: 'gpt-5', input: 'x', stream: true });
    const consume = (async () => {
      const seen: string[] = [];
      for await (const e of stream) seen.push(e.type);
      return seen;
    })();
    await kit.emu.waitForRequests(1);
    await kit.emu.close();
    const outcome = await consume.then(
      (seen) => `ended: ${seen.join(',')}`,
      (err: unknown) => `threw: ${String(err)}`,
    );
    expect(outcome).not.toContain('response.completed');
  });

  it('a slow stream spaces its deltas', async () => {
    kit.emu.enqueue({ kind: 'text', text: 'abcd', chunks: 4, delayMs: 30 });
    const started = Date.now();
    await kit.run({ input: 'x' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe('wire checks', () => {
  it('rejects a body that does not match the schema, naming the path', async () => {
    const res = await kit.post('/v1/responses', { model: 'gpt-5', input: [{ role: 'user', content: [{ type: 'input_txt', text: 'hi' }] }] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { error: { type: string; param: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe('input[0].content[0].type');
    expect(body.error.message).toContain('input_txt');
    const unknown = await kit.post('/v1/responses', { model: 'gpt-5', input: 'x', bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('bogus');
  });

  it('names the field a matching union branch misses, not a sibling branch', async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'shell_call_output', call_id: 'c', output: [{ stdout: '', stderr: '', outcome: { type: 'exit' } }] }, 'input[0].output[0].outcome.exit_code'],
      [{ type: 'function_call_output', call_id: 'c' }, 'input[0].output'],
    ];
    for (const [item, param] of cases) {
      const res = await kit.post('/v1/responses', { model: 'gpt-5', input: [item] });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { param: string; message: string } };
      expect(body.error.param).toBe(param);
      expect(body.error.message).toBe(`Missing required parameter: '${param}'.`);
    }
    const tool = await kit.post('/v1/responses', { model: 'gpt-5', input: 'x', tools: [{ type: 'function', name: 'f', parameters: {} }] });
    expect(((await tool.json()) as { error: { param: string } }).error.param).toBe('tools[0].strict');
    expect(kit.emu.requests.every((r) => r.status === 400 && r.responseId === undefined)).toBe(true);
  });

  it('accepts replayed assistant output_text without id/status/annotations (known schema gap)', async () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
      { role: 'user', content: 'again' },
    ];
    const res = await kit.post('/v1/responses', { model: 'gpt-5', input });
    expect(res.status).toBe(200);
  });

  it('answers bad JSON, missing auth and unknown routes like the service', async () => {
    const bad = await fetch(`${kit.emu.baseUrl}/responses`, { method: 'POST', headers: { authorization: 'Bearer x' }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect((await kit.post('/v1/responses', { model: 'gpt-5', input: 'x' }, { authorization: '' })).status).toBe(401);
    const missing = await kit.post('/v1/nothing', {});
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('Invalid URL (POST /v1/nothing)');
    const models = await kit.client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
  });

  it('exposes control endpoints', async () => {
    const queued = await kit.post('/__emulator/enqueue', [{ kind: 'text', text: 'scripted over http' }]);
    expect(queued.status).toBe(200);
    expect((await kit.post('/__emulator/enqueue', [{ kind: 'text' }])).status).toBe(400);
    const first = completed(await kit.run({ input: 'x' }));
    expect(text(await kit.run({ input: 'y', previous_response_id: first.id }))).toBe('You said: y');
    const log = (await (await fetch(kit.emu.baseUrl.replace(/\/v1$/, '/__emulator/requests'))).json()) as Array<{ seq: number; status: number }>;
    expect(log.map((r) => r.status)).toEqual([200, 200]);
    expect((await kit.post('/__emulator/forget', {})).status).toBe(200);
    expect((await apiError(kit.run({ input: 'z', previous_response_id: first.id }))).code).toBe('previous_response_not_found');
    expect((await kit.post('/__emulator/reset', {})).status).toBe(200);
    expect(kit.emu.requests).toHaveLength(0);
    await kit.emu.waitForRequests(0);
  });

  it('waitForRequests resolves on arrival and times out otherwise', async () => {
    const waiting = kit.emu.waitForRequests(1, 5000);
    await kit.run({ input: 'x' });
    await waiting;
    await expect(kit.emu.waitForRequests(5, 50)).rejects.toThrow(/waited 50 ms/);
  });
});
