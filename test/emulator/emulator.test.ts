import { describe, expect, it } from 'vitest';
import type { ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { FUNCTION_SHELL, SHELL, apiError, completed, text, useEmulator } from './test-kit.ts';

const kit = useEmulator();

describe('streaming', () => {
  it('streams a scripted text answer with the full event sequence and usage', async () => {
    kit.emu.enqueue({ kind: 'text', text: 'Hello there, world!', chunks: 3 });
    const events = await kit.run({ input: 'hi', instructions: 'Be brief.' });
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
    expect(kit.emu.responseRequests()).toHaveLength(1);
    expect(kit.emu.requests[0]).toMatchObject({ seq: 1, method: 'POST', path: '/v1/responses', hasAuth: true, status: 200, responseId: response.id });
  });

  it('default brain echoes and streams a reasoning summary when reasoning is requested', async () => {
    const events = await kit.run({ input: 'how are you?', reasoning: { effort: 'low', summary: 'auto' } });
    expect(text(events)).toBe('You said: how are you?');
    const summary = events.map((e) => (e.type === 'response.reasoning_summary_text.delta' ? e.delta : '')).join('');
    expect(summary).toBe('Thinking about the request.');
    const response = completed(events);
    expect(response.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('sends x-request-id and answers stream:false with the response object', async () => {
    const { data, response } = await kit.client.responses.create({ model: 'gpt-5', input: 'plain' }).withResponse();
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(data.output_text).toBe('You said: plain');
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
  });
});

describe('chaining', () => {
  it('a chained request reports cached tokens from the stored chain', async () => {
    const first = completed(await kit.run({ input: 'first message that is long enough to count for something' }));
    const second = completed(await kit.run({ input: 'second', previous_response_id: first.id }));
    expect(second.previous_response_id).toBe(first.id);
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(second.usage?.input_tokens).toBeGreaterThan(first.usage?.input_tokens ?? 0);
    expect(second.usage?.input_tokens_details.cached_tokens).toBeLessThan(second.usage?.input_tokens ?? 0);
  });

  it('an unknown previous_response_id is a 400 previous_response_not_found', async () => {
    const err = await apiError(kit.run({ input: 'x', previous_response_id: 'resp_nope' }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('previous_response_not_found');
    expect(err.param).toBe('previous_response_id');
    expect(err.message).toContain("Previous response with id 'resp_nope' not found.");
    expect(kit.emu.requests[0]?.error?.code).toBe('previous_response_not_found');
  });

  it('forgetAll drops stored responses', async () => {
    const first = completed(await kit.run({ input: 'a' }));
    kit.emu.forgetAll();
    const err = await apiError(kit.run({ input: 'b', previous_response_id: first.id }));
    expect(err.code).toBe('previous_response_not_found');
  });

  it('store:false responses cannot be chained to', async () => {
    const first = completed(await kit.run({ input: 'a', store: false }));
    expect(first).toMatchObject({ store: false });
    const err = await apiError(kit.run({ input: 'b', previous_response_id: first.id }));
    expect(err.code).toBe('previous_response_not_found');
  });
});

describe('stateless mode (a server that stores nothing)', () => {
  it('forgets every response: its id is unknown on the next request (400 previous_response_not_found), even with store:true', async () => {
    kit.emu.setStateless(true);
    try {
      const first = completed(await kit.run({ input: 'a', store: true }));
      const err = await apiError(kit.run({ input: 'b', previous_response_id: first.id }));
      expect(err.status).toBe(400);
      expect(err.code).toBe('previous_response_not_found');
    } finally {
      kit.emu.setStateless(false);
    }
  });

  it('checks a replay: a call sent back without its output is a 400; with its output it is answered', async () => {
    kit.emu.setStateless(true);
    try {
      kit.emu.enqueue({ kind: 'shell', commands: ['echo hi'] });
      const first = completed(await kit.run({ input: 'run it', tools: SHELL, store: false }));
      const call = first.output.find((i) => i.type === 'shell_call');
      expect(call).toBeDefined();
      const asked = { type: 'message', role: 'user', content: 'run it' } as ResponseInputItem;
      const missing = await apiError(kit.run({ input: [asked, call as ResponseInputItem], tools: SHELL, store: false }));
      expect(missing.status).toBe(400);
      expect(missing.message).toMatch(/No tool output found for .*call/);
      const callId = (call as { call_id: string }).call_id;
      const output = {
        type: 'shell_call_output',
        call_id: callId,
        output: [{ stdout: 'hi\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
      } as unknown as ResponseInputItem;
      expect(completed(await kit.run({ input: [asked, call as ResponseInputItem, output], tools: SHELL, store: false })).status).toBe('completed');
    } finally {
      kit.emu.setStateless(false);
    }
  });
});

describe('tool calls', () => {
  it('shell_call must be answered exactly once by call_id', async () => {
    const events = await kit.run({ input: 'please run: ls -la', tools: SHELL });
    const call = completed(events).output[0];
    if (call?.type !== 'shell_call') throw new Error('expected a shell_call');
    expect(call.action).toEqual({ commands: ['ls -la'], timeout_ms: null, max_output_length: null });
    expect(call.environment).toEqual({ type: 'local' });
    expect(call.call_id).toMatch(/^call_/);
    expect(call.id).toMatch(/^sh_/);
    const previous_response_id = completed(events).id;

    const missing = await apiError(kit.run({ input: 'next', previous_response_id, tools: SHELL }));
    expect(missing.status).toBe(400);
    expect(missing.message).toContain(`No tool output found for shell call ${call.call_id}.`);

    const output: ResponseInputItem = {
      type: 'shell_call_output',
      call_id: call.call_id,
      output: [{ stdout: 'file1\nfile2\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    };
    const unknown = await apiError(kit.run({ input: [output, { ...output, call_id: 'call_other' }], previous_response_id, tools: SHELL }));
    expect(unknown.status).toBe(400);
    const duplicate = await apiError(kit.run({ input: [output, output], previous_response_id, tools: SHELL }));
    expect(duplicate.message).toContain('Duplicate');

    const answered = await kit.run({ input: [output], previous_response_id, tools: SHELL });
    expect(text(answered)).toBe('Ran it. Output:\nfile1\nfile2');
    expect(completed(answered).usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('an output for an unknown call id is a 400', async () => {
    const err = await apiError(kit.run({ input: [{ type: 'function_call_output', call_id: 'call_ghost', output: 'x' }] }));
    expect(err.status).toBe(400);
    expect(err.message).toContain('call_ghost');
  });

  it('emits function_call arguments as-is, even invalid JSON', async () => {
    kit.emu.enqueue({ kind: 'function', name: 'shell', arguments: '{"commands": ["ls"' });
    const events = await kit.run({ input: 'go', tools: FUNCTION_SHELL });
    const args = events.map((e) => (e.type === 'response.function_call_arguments.delta' ? e.delta : '')).join('');
    expect(args).toBe('{"commands": ["ls"');
    const call = completed(events).output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'shell', arguments: '{"commands": ["ls"', status: 'completed' });
  });

  it('several calls in one response all need outputs', async () => {
    kit.emu.enqueue({ kind: 'calls', calls: [{ commands: ['echo a'] }, { commands: ['echo b'] }, { name: 'lookup', arguments: '{}' }] });
    const response = completed(await kit.run({ input: 'go', tools: FUNCTION_SHELL }));
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [o] : []));
    expect(calls.map((c) => c.name)).toEqual(['shell', 'shell', 'lookup']);
    expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual({ commands: ['echo a'] });
    const outputs: ResponseInputItem[] = calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: `out ${c.name}` }));
    const partial = await apiError(kit.run({ input: outputs.slice(0, 2), previous_response_id: response.id, tools: FUNCTION_SHELL }));
    expect(partial.message).toContain(`No tool output found for function call ${calls[2]?.call_id}.`);
    const done = await kit.run({ input: outputs, previous_response_id: response.id, tools: FUNCTION_SHELL });
    expect(text(done)).toBe('Ran it. Output:\nout shell\nout shell\nout lookup');
  });

  it('picks the exec_command or argv shell flavour, or says there is no shell tool', async () => {
    const exec: Tool[] = [{ type: 'function', name: 'exec_command', strict: false, parameters: { type: 'object' } }];
    kit.emu.enqueue({ kind: 'shell', commands: ['cd src', 'ls'] });
    const call = completed(await kit.run({ input: 'x', tools: exec })).output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cd src && ls"}' });
    expect(text(await kit.run({ input: 'please run `ls -la` now' }))).toContain('no shell tool');
    const argv: Tool[] = [{ type: 'function', name: 'shell', strict: false, parameters: { type: 'object', properties: { command: { type: 'array' } } } }];
    const codex = completed(await kit.run({ input: 'run: ls', tools: argv })).output[0];
    expect(codex).toMatchObject({ type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","ls"]}' });
  });

  it('a scripted shell step carries its text, timeout and output cap', async () => {
    kit.emu.enqueue({ kind: 'shell', commands: ['make test'], timeoutMs: 5000, maxOutputLength: 1000, text: 'Running the tests.' });
    const builtin = completed(await kit.run({ input: 'x', tools: SHELL })).output;
    expect(builtin[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'Running the tests.' }] });
    expect(builtin[1]).toMatchObject({
      type: 'shell_call',
      status: 'completed',
      action: { commands: ['make test'], timeout_ms: 5000, max_output_length: 1000 },
    });
    kit.emu.enqueue({ kind: 'shell', commands: ['make test'], timeoutMs: 5000 });
    const fn = completed(await kit.run({ input: 'x', tools: FUNCTION_SHELL })).output[0];
    expect(fn).toMatchObject({ type: 'function_call', name: 'shell' });
    if (fn?.type === 'function_call') expect(JSON.parse(fn.arguments)).toEqual({ commands: ['make test'], timeout_ms: 5000 });
  });

  it('the prefix cache serves a prompt only under the prompt_cache_key it was seen with, chained or replayed', async () => {
    const text = 'a long first message that the prefix cache should remember for this conversation only';
    const first = completed(await kit.run({ input: text, prompt_cache_key: 'conv-a' }));
    const cachedOf = (r: typeof first): number => r.usage?.input_tokens_details.cached_tokens ?? -1;
    // The same prompt under another key (another conversation): nothing of it is cached there.
    expect(cachedOf(completed(await kit.run({ input: text, prompt_cache_key: 'conv-b', store: false })))).toBe(0);
    // Chained under its own key: the earlier prompt is the cached prefix; under another key, none.
    const chained = completed(await kit.run({ input: 'next', previous_response_id: first.id, prompt_cache_key: 'conv-a' }));
    expect(cachedOf(chained)).toBeGreaterThanOrEqual((first.usage?.input_tokens ?? Infinity) - 1);
    expect(cachedOf(completed(await kit.run({ input: 'next', previous_response_id: first.id, prompt_cache_key: 'conv-c' })))).toBe(0);
    // The same conversation sent whole (a store:false replay) under its key hits the same prefix.
    const replay: ResponseInputItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      { role: 'assistant', content: 'You said it' },
      { role: 'user', content: 'next' },
    ];
    expect(cachedOf(completed(await kit.run({ input: replay, store: false, prompt_cache_key: 'conv-a' })))).toBeGreaterThanOrEqual(
      (first.usage?.input_tokens ?? Infinity) - 1,
    );
  });

  it('store:false full history must pair replayed calls with outputs and gets prefix-cached tokens', async () => {
    const first = completed(await kit.run({ input: 'run: pwd', tools: FUNCTION_SHELL, store: false }));
    const call = first.output[0];
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const history: ResponseInputItem[] = [
      { role: 'user', content: 'run: pwd' },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
    ];
    const err = await apiError(kit.run({ input: history, tools: FUNCTION_SHELL, store: false }));
    expect(err.message).toContain(`No tool output found for function call ${call.call_id}.`);
    const full = [...history, { type: 'function_call_output' as const, call_id: call.call_id, output: '/home' }];
    const second = completed(await kit.run({ input: full, tools: FUNCTION_SHELL, store: false }));
    expect(second.output[0]).toMatchObject({ type: 'message' });
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });
});
