import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { ResponseStreamEvent, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { startEmulator } from './server.ts';
import type { Emulator } from './server.ts';

let emu: Emulator;
let client: OpenAI;

beforeEach(async () => {
  emu = await startEmulator();
  client = new OpenAI({ apiKey: 'x', baseURL: emu.baseUrl, maxRetries: 0 });
});

afterEach(async () => {
  await emu.close();
});

const SHELL: Tool[] = [{ type: 'shell', environment: { type: 'local' } }];
const FUNCTION_SHELL: Tool[] = [
  { type: 'function', name: 'shell', strict: false, parameters: { type: 'object', properties: { commands: { type: 'array' } } } },
];

type CreateBody = Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream' | 'model'>;

async function run(body: CreateBody): Promise<ResponseStreamEvent[]> {
  const stream = await client.responses.create({ model: 'gpt-5', ...body, stream: true });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function completed(events: ResponseStreamEvent[]): OpenAI.Responses.Response {
  const last = events.at(-1);
  if (last?.type !== 'response.completed') throw new Error(`no response.completed (last: ${last?.type})`);
  return last.response;
}

function text(events: ResponseStreamEvent[]): string {
  return events.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
}

async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  throw new Error('expected an API error');
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(emu.baseUrl.replace(/\/v1$/, '') + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x', ...headers },
    body: JSON.stringify(body),
  });
}

describe('streaming', () => {
  it('streams a scripted text answer with the full event sequence and usage', async () => {
    emu.enqueue({ kind: 'text', text: 'Hello there, world!', chunks: 3 });
    const events = await run({ input: 'hi', instructions: 'Be brief.' });
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(text(events)).toBe('Hello there, world!');
    const response = completed(events);
    expect(response.id).toMatch(/^resp_[0-9a-f]+$/);
    expect(response.status).toBe('completed');
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(0);
    expect(response.usage?.output_tokens).toBe(5);
    expect(response.usage?.total_tokens).toBe((response.usage?.input_tokens ?? 0) + 5);
    expect(emu.responseRequests()).toHaveLength(1);
    expect(emu.requests[0]).toMatchObject({ seq: 1, method: 'POST', path: '/v1/responses', hasAuth: true, status: 200, responseId: response.id });
  });

  it('default brain echoes and streams a reasoning summary when reasoning is requested', async () => {
    const events = await run({ input: 'how are you?', reasoning: { effort: 'low', summary: 'auto' } });
    expect(text(events)).toBe('You said: how are you?');
    const summary = events.map((e) => (e.type === 'response.reasoning_summary_text.delta' ? e.delta : '')).join('');
    expect(summary).toBe('Thinking about the request.');
    const response = completed(events);
    expect(response.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('sends x-request-id and answers stream:false with the response object', async () => {
    const { data, response } = await client.responses.create({ model: 'gpt-5', input: 'plain' }).withResponse();
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(data.output_text).toBe('You said: plain');
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
  });
});

describe('chaining', () => {
  it('a chained request reports cached tokens from the stored chain', async () => {
    const first = completed(await run({ input: 'first message that is long enough to count for something' }));
    const second = completed(await run({ input: 'second', previous_response_id: first.id }));
    expect(second.previous_response_id).toBe(first.id);
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(second.usage?.input_tokens).toBeGreaterThan(first.usage?.input_tokens ?? 0);
    expect(second.usage?.input_tokens_details.cached_tokens).toBeLessThan(second.usage?.input_tokens ?? 0);
  });

  it('an unknown previous_response_id is a 400 previous_response_not_found', async () => {
    const err = await apiError(run({ input: 'x', previous_response_id: 'resp_nope' }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('previous_response_not_found');
    expect(err.param).toBe('previous_response_id');
    expect(err.message).toContain("Previous response with id 'resp_nope' not found.");
    expect(emu.requests[0]?.error?.code).toBe('previous_response_not_found');
  });

  it('forgetAll drops stored responses', async () => {
    const first = completed(await run({ input: 'a' }));
    emu.forgetAll();
    const err = await apiError(run({ input: 'b', previous_response_id: first.id }));
    expect(err.code).toBe('previous_response_not_found');
  });

  it('store:false responses cannot be chained to', async () => {
    const first = completed(await run({ input: 'a', store: false }));
    expect(first.store).toBe(false);
    const err = await apiError(run({ input: 'b', previous_response_id: first.id }));
    expect(err.code).toBe('previous_response_not_found');
  });
});

describe('tool calls', () => {
  it('shell_call must be answered exactly once by call_id', async () => {
    const events = await run({ input: 'please run: ls -la', tools: SHELL });
    const call = completed(events).output[0];
    if (call?.type !== 'shell_call') throw new Error('expected a shell_call');
    expect(call.action).toEqual({ commands: ['ls -la'], timeout_ms: null, max_output_length: null });
    expect(call.environment).toEqual({ type: 'local' });
    expect(call.call_id).toMatch(/^call_/);
    expect(call.id).toMatch(/^sh_/);
    const previous_response_id = completed(events).id;

    const missing = await apiError(run({ input: 'next', previous_response_id, tools: SHELL }));
    expect(missing.status).toBe(400);
    expect(missing.message).toContain(`No tool output found for shell call ${call.call_id}.`);

    const output: ResponseInputItem = {
      type: 'shell_call_output',
      call_id: call.call_id,
      output: [{ stdout: 'file1\nfile2\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    };
    const unknown = await apiError(run({ input: [output, { ...output, call_id: 'call_other' }], previous_response_id, tools: SHELL }));
    expect(unknown.status).toBe(400);
    const duplicate = await apiError(run({ input: [output, output], previous_response_id, tools: SHELL }));
    expect(duplicate.message).toContain('Duplicate');

    const answered = await run({ input: [output], previous_response_id, tools: SHELL });
    expect(text(answered)).toBe('Ran it. Output:\nfile1\nfile2');
    expect(completed(answered).usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('an output for an unknown call id is a 400', async () => {
    const err = await apiError(run({ input: [{ type: 'function_call_output', call_id: 'call_ghost', output: 'x' }] }));
    expect(err.status).toBe(400);
    expect(err.message).toContain('call_ghost');
  });

  it('emits function_call arguments as-is, even invalid JSON', async () => {
    emu.enqueue({ kind: 'function', name: 'shell', arguments: '{"commands": ["ls"' });
    const events = await run({ input: 'go', tools: FUNCTION_SHELL });
    const args = events.map((e) => (e.type === 'response.function_call_arguments.delta' ? e.delta : '')).join('');
    expect(args).toBe('{"commands": ["ls"');
    const call = completed(events).output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'shell', arguments: '{"commands": ["ls"', status: 'completed' });
  });

  it('several calls in one response all need outputs', async () => {
    emu.enqueue({ kind: 'calls', calls: [{ commands: ['echo a'] }, { commands: ['echo b'] }, { name: 'lookup', arguments: '{}' }] });
    const response = completed(await run({ input: 'go', tools: FUNCTION_SHELL }));
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [o] : []));
    expect(calls.map((c) => c.name)).toEqual(['shell', 'shell', 'lookup']);
    expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual({ commands: ['echo a'] });
    const outputs: ResponseInputItem[] = calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: `out ${c.name}` }));
    const partial = await apiError(run({ input: outputs.slice(0, 2), previous_response_id: response.id, tools: FUNCTION_SHELL }));
    expect(partial.message).toContain(`No tool output found for function call ${calls[2]?.call_id}.`);
    const done = await run({ input: outputs, previous_response_id: response.id, tools: FUNCTION_SHELL });
    expect(text(done)).toBe('Ran it. Output:\nout shell\nout shell\nout lookup');
  });

  it('picks the exec_command flavour, or says there is no shell tool', async () => {
    const exec: Tool[] = [{ type: 'function', name: 'exec_command', strict: false, parameters: { type: 'object' } }];
    emu.enqueue({ kind: 'shell', commands: ['cd src', 'ls'] });
    const call = completed(await run({ input: 'x', tools: exec })).output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cd src && ls"}' });
    expect(text(await run({ input: 'please run `ls -la` now' }))).toContain('no shell tool');
  });

  it('store:false full history must pair replayed calls with outputs and gets prefix-cached tokens', async () => {
    const first = completed(await run({ input: 'run: pwd', tools: FUNCTION_SHELL, store: false }));
    const call = first.output[0];
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const history: ResponseInputItem[] = [{ role: 'user', content: 'run: pwd' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }];
    const err = await apiError(run({ input: history, tools: FUNCTION_SHELL, store: false }));
    expect(err.message).toContain(`No tool output found for function call ${call.call_id}.`);
    const full = [...history, { type: 'function_call_output' as const, call_id: call.call_id, output: '/home' }];
    const second = completed(await run({ input: full, tools: FUNCTION_SHELL, store: false }));
    expect(second.output[0]).toMatchObject({ type: 'message' });
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });
});

describe('faults', () => {
  it('http_error twice then success, with retry-after', async () => {
    emu.enqueue({ kind: 'http_error', status: 500, times: 2, retryAfter: 2 }, { kind: 'text', text: 'finally' });
    const first = await apiError(run({ input: 'x' }));
    expect(first.status).toBe(500);
    expect(first.headers?.get('retry-after')).toBe('2');
    expect(first.headers?.get('x-request-id')).toMatch(/^req_/);
    expect((await apiError(run({ input: 'x' }))).status).toBe(500);
    expect(text(await run({ input: 'x' }))).toBe('finally');
    expect(emu.requests.map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it('a cut stream ends without response.completed', async () => {
    emu.enqueue({ kind: 'cut', afterText: 'partial' });
    const events: ResponseStreamEvent[] = [];
    let failure: unknown;
    try {
      const stream = await client.responses.create({ model: 'gpt-5', input: 'x', stream: true });
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
    emu.enqueue({ kind: 'failed', code: 'server_error', message: 'boom' });
    const events: ResponseStreamEvent[] = [];
    try {
      for await (const e of await client.responses.create({ model: 'gpt-5', input: 'x', stream: true })) events.push(e);
    } catch {
      // the SDK may surface response.failed as an error; the events seen so far are what matter
    }
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    if (last?.type === 'response.failed') expect(last.response.error).toEqual({ code: 'server_error', message: 'boom' });
  });

  it('hang keeps the stream open until the client aborts', async () => {
    emu.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const stream = await client.responses.create({ model: 'gpt-5', input: 'x', stream: true }, { signal: controller.signal });
    const seen: string[] = [];
    const consume = (async () => {
      for await (const e of stream) {
        seen.push(e.type);
        if (e.type === 'response.in_progress') controller.abort();
      }
    })();
    await consume; // the SDK ends the iteration quietly on an abort
    expect(seen).toEqual(['response.created', 'response.in_progress']);
    expect(emu.requests[0]?.status).toBe(200);
  });

  it('close() ends a hanging stream', async () => {
    emu.enqueue({ kind: 'hang' });
    const stream = await client.responses.create({ model: 'gpt-5', input: 'x', stream: true });
    const consume = (async () => {
      const seen: string[] = [];
      for await (const e of stream) seen.push(e.type);
      return seen;
    })();
    await emu.waitForRequests(1);
    await emu.close();
    const outcome = await consume.then(
      (seen) => `ended: ${seen.join(',')}`,
      (err: unknown) => `threw: ${String(err)}`,
    );
    expect(outcome).not.toContain('response.completed');
  });

  it('a slow stream spaces its deltas', async () => {
    emu.enqueue({ kind: 'text', text: 'abcd', chunks: 4, delayMs: 30 });
    const started = Date.now();
    await run({ input: 'x' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe('wire checks', () => {
  it('rejects a body that does not match the schema, naming the path', async () => {
    const res = await post('/v1/responses', { model: 'gpt-5', input: [{ role: 'user', content: [{ type: 'input_txt', text: 'hi' }] }] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { error: { type: string; param: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe('input[0].content[0].type');
    expect(body.error.message).toContain('input_txt');
    const unknown = await post('/v1/responses', { model: 'gpt-5', input: 'x', bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('bogus');
  });

  it('accepts replayed assistant output_text without id/status/annotations (known schema gap)', async () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
      { role: 'user', content: 'again' },
    ];
    const res = await post('/v1/responses', { model: 'gpt-5', input });
    expect(res.status).toBe(200);
  });

  it('answers bad JSON, missing auth and unknown routes like the service', async () => {
    const bad = await fetch(`${emu.baseUrl}/responses`, { method: 'POST', headers: { authorization: 'Bearer x' }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect((await post('/v1/responses', { model: 'gpt-5', input: 'x' }, { authorization: '' })).status).toBe(401);
    const missing = await post('/v1/nothing', {});
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('Invalid URL (POST /v1/nothing)');
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
  });

  it('exposes control endpoints', async () => {
    const queued = await post('/__emulator/enqueue', [{ kind: 'text', text: 'scripted over http' }]);
    expect(queued.status).toBe(200);
    expect((await post('/__emulator/enqueue', [{ kind: 'text' }])).status).toBe(400);
    const first = completed(await run({ input: 'x' }));
    expect(text(await run({ input: 'y', previous_response_id: first.id }))).toBe('You said: y');
    const log = (await (await fetch(emu.baseUrl.replace(/\/v1$/, '/__emulator/requests'))).json()) as Array<{ seq: number; status: number }>;
    expect(log.map((r) => r.status)).toEqual([200, 200]);
    expect((await post('/__emulator/forget', {})).status).toBe(200);
    expect((await apiError(run({ input: 'z', previous_response_id: first.id }))).code).toBe('previous_response_not_found');
    expect((await post('/__emulator/reset', {})).status).toBe(200);
    expect(emu.requests).toHaveLength(0);
    await emu.waitForRequests(0);
  });

  it('waitForRequests resolves on arrival and times out otherwise', async () => {
    const waiting = emu.waitForRequests(1, 5000);
    await run({ input: 'x' });
    await waiting;
    await expect(emu.waitForRequests(5, 50)).rejects.toThrow(/waited 50 ms/);
  });
});
