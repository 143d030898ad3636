// The context window model: token usage of the chain, context_length_exceeded in every form,
// server-side compaction (context_management), POST /responses/compact, a server without either,
// and what the model still remembers after each.
import { describe, expect, it } from 'vitest';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { apiError, completed, text, useEmulator } from './test-kit.ts';
import { decodeCompaction } from './memory.ts';

const kit = useEmulator();
const filler = (n: number): string => 'x'.repeat(n);

async function say(
  input: string | ResponseInputItem[],
  previous?: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; text: string; events: ResponseStreamEvent[] }> {
  const events = await kit.run({ input, instructions: 'Be brief.', ...(previous ? { previous_response_id: previous } : {}), ...extra });
  return { id: completed(events).id, text: text(events), events };
}

describe('usage reflects the chain', () => {
  it('input tokens grow by about a quarter of the bytes each turn adds', async () => {
    const first = completed(await kit.run({ input: filler(4000) }));
    const second = completed(await kit.run({ input: filler(8000), previous_response_id: first.id }));
    const firstInput = first.usage?.input_tokens ?? 0;
    expect(firstInput).toBeGreaterThanOrEqual(1000);
    expect(firstInput).toBeLessThan(1100);
    const added = (second.usage?.input_tokens ?? 0) - firstInput;
    expect(added).toBeGreaterThanOrEqual(2000);
    expect(added).toBeLessThan(2200);
  });
});

describe('context_length_exceeded', () => {
  it('an over-long request is an HTTP 400 shaped like the service, and uses no scripted step', async () => {
    kit.emu.configureContext({ windowTokens: 2000 });
    kit.emu.enqueue({ kind: 'text', text: 'scripted' });
    const res = await kit.post('/v1/responses', { model: 'gpt-5', input: filler(9000) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'context_length_exceeded', type: 'invalid_request_error', param: 'input', message: expect.stringContaining('context window') as unknown },
    });
    const err = await apiError(kit.run({ input: filler(9000) }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('context_length_exceeded');
    expect(kit.emu.requests.map((r) => r.error?.code)).toEqual(['context_length_exceeded', 'context_length_exceeded']);
    expect((await say('short')).text).toBe('scripted');
  });

  it('a chain that grows past the window starts failing; the last good response stays usable', async () => {
    kit.emu.configureContext({ windowTokens: 3000 });
    const first = await say(filler(6000));
    const err = await apiError(kit.run({ input: filler(6000), previous_response_id: first.id }));
    expect(err.code).toBe('context_length_exceeded');
    expect((await say('small', first.id)).text).toBe('You said: small');
  });

  it('fails in-stream with response.failed when configured so', async () => {
    kit.emu.configureContext({ windowTokens: 2000, overflowForm: 'failed' });
    const events = await kit.run({ input: filler(9000) });
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    if (last?.type === 'response.failed') expect(last.response.error).toMatchObject({ code: 'context_length_exceeded' });
    expect(kit.emu.requests[0]).toMatchObject({ status: 200, error: { code: 'context_length_exceeded' } });
  });

  it('fails in-stream with an error event, flat (SDK type) or nested (as seen in the wild)', async () => {
    kit.emu.configureContext({ windowTokens: 2000, overflowForm: 'error' });
    const flat = await kit.run({ input: filler(9000) });
    expect(flat.at(-1)).toMatchObject({ type: 'error', code: 'context_length_exceeded', param: 'input' });
    kit.emu.configureContext({ overflowForm: 'error_nested' });
    const nested = await apiError(kit.run({ input: filler(9000) }));
    expect(nested.status).toBeUndefined();
    expect(nested.code).toBe('context_length_exceeded');
  });
});

describe('server-side compaction (context_management)', () => {
  const management = (threshold: number): Record<string, unknown> => ({ context_management: [{ type: 'compaction', compact_threshold: threshold }] });

  it('validates the field: type compaction only, threshold ≥ 1000, unknown where unsupported', async () => {
    const bad = await apiError(kit.run({ input: 'x', context_management: [{ type: 'compaction', compact_threshold: 10 }] }));
    expect(bad.status).toBe(400);
    const type = await apiError(kit.run({ input: 'x', context_management: [{ type: 'truncate' }] }));
    expect(type.code).toBe('invalid_value');
    expect(type.param).toBe('context_management[0].type');
    kit.emu.configureContext({ contextManagement: false });
    const unknown = await apiError(kit.run({ input: 'x', ...management(5000) }));
    expect(unknown).toMatchObject({ status: 400, code: 'unknown_parameter', param: 'context_management' });
  });

  it('past the threshold emits a compaction item first, then counts only the compaction and what follows', async () => {
    kit.emu.configureContext({ windowTokens: 20_000 });
    let previous = (await say('remember COLOR=teal and remember CITY=Oslo', undefined, management(3000))).id;
    let compactedAt = -1;
    let tokensBefore = 0;
    for (let i = 0; i < 12 && compactedAt < 0; i++) {
      const turn = await say(`note ${i}: ${filler(1200)}`, previous, management(3000));
      const response = completed(turn.events);
      if (response.output[0]?.type === 'compaction') compactedAt = i;
      else tokensBefore = response.usage?.input_tokens ?? 0;
      previous = turn.id;
    }
    expect(compactedAt).toBeGreaterThan(0);
    expect(tokensBefore).toBeGreaterThan(2500);
    const after = completed((await say('remember SHAPE=cube', previous, management(3000))).events);
    expect(after.usage?.input_tokens).toBeLessThan(3000);
    expect((await say('recall: COLOR CITY SHAPE LOST', after.id, management(3000))).text).toBe('Recalled: COLOR=teal, CITY=Oslo, SHAPE=cube, LOST=?');
  });

  it("the compaction item streams as an output item and the person's newest message stays visible", async () => {
    const big = await say(`remember K=v1 ${filler(5000)}`, undefined, management(1000));
    const added = big.events.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item.type).toBe('compaction');
    expect(big.text).toMatch(/^You said: remember K=v1/);
    const item = completed(big.events).output[0];
    if (item?.type !== 'compaction') throw new Error('expected a compaction item');
    expect(item.encrypted_content).not.toContain('K=v1');
    expect(decodeCompaction(item.encrypted_content)?.facts).toEqual({ K: 'v1' });
  });
});

describe('POST /responses/compact', () => {
  it('returns the kept user messages and one compaction item; that output starts a new chain that remembers', async () => {
    kit.emu.configureContext({ windowTokens: 50_000 });
    let previous = (await say('remember OWNER=ada')).id;
    for (let i = 0; i < 5; i++) previous = (await say(`message ${i} ${filler(200)}`, previous)).id;
    const compacted = await kit.client.responses.compact({ model: 'gpt-5', previous_response_id: previous, instructions: 'Be brief.' });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.at(-1)?.type).toBe('compaction');
    const kept = compacted.output.slice(0, -1);
    expect(kept).toEqual(Array.from({ length: 6 }, () => expect.objectContaining({ type: 'message', role: 'user' }) as unknown));
    expect(compacted.usage.input_tokens).toBeGreaterThan(0);
    // The whole output is the input of a new chain (no previous_response_id).
    const input = [...compacted.output, { role: 'user', content: 'recall: OWNER' }] as ResponseInputItem[];
    expect((await say(input)).text).toBe('Recalled: OWNER=ada');
  });

  it('keeps only the newest messages that fit, folding the facts of the rest', async () => {
    kit.emu.configureContext({ windowTokens: 5000 });
    let previous = (await say('remember FIRST=1')).id;
    for (let i = 0; i < 6; i++) previous = (await say(`filler ${i} ${filler(1500)}`, previous)).id;
    const compacted = await kit.client.responses.compact({ model: 'gpt-5', previous_response_id: previous });
    expect(compacted.output.length).toBeLessThan(7);
    const input = [...compacted.output, { role: 'user', content: 'recall: FIRST' }] as ResponseInputItem[];
    const answer = await say(input);
    expect(answer.text).toBe('Recalled: FIRST=1');
    expect(completed(answer.events).usage?.input_tokens).toBeLessThan(2500);
  });

  it('refuses unknown parameters, unknown chains and compaction items it did not make', async () => {
    const unknown = await kit.post('/v1/responses/compact', { model: 'gpt-5', tools: [] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_parameter', param: 'tools' } });
    const gone = await apiError(kit.client.responses.compact({ model: 'gpt-5', previous_response_id: 'resp_nope' }));
    expect(gone.code).toBe('previous_response_not_found');
    const forged = await apiError(kit.run({ input: [{ type: 'compaction', encrypted_content: 'opaque-from-elsewhere' }] }));
    expect(forged).toMatchObject({ status: 400, code: 'invalid_encrypted_content' });
  });

  it('a server without it answers 404, and the request is logged', async () => {
    kit.emu.configureContext({ compactEndpoint: false });
    const err = await apiError(kit.client.responses.compact({ model: 'gpt-5', input: 'x' }));
    expect(err.status).toBe(404);
    expect(kit.emu.requests[0]).toMatchObject({ path: '/v1/responses/compact', status: 404 });
  });
});

describe('what the model remembers', () => {
  it('recall reads facts from instructions and visible messages; a new chain without them forgets', async () => {
    const first = await kit.run({ input: 'remember PORT=8080', instructions: 'remember RULE=tabs' });
    const answer = text(await kit.run({ input: 'recall: PORT RULE', instructions: 'remember RULE=tabs', previous_response_id: completed(first).id }));
    expect(answer).toBe('Recalled: PORT=8080, RULE=tabs');
    expect((await say('recall: PORT')).text).toBe('Recalled: PORT=?');
    expect((await say('recall: *')).text).toBe('Recalled: (nothing)');
  });

  it('a summary request answers with the facts as remember lines and the newest messages verbatim', async () => {
    let previous = (await say('remember DB=postgres')).id;
    previous = (await say('please keep tests green', previous)).id;
    const summary = (await say('Summarize the conversation so far for a fresh start.', previous)).text;
    expect(summary).toContain('- remember DB=postgres');
    expect(summary).toContain('> please keep tests green');
    expect(summary).not.toContain('Summarize the conversation');
    expect(
      (
        await say([
          { role: 'user', content: summary },
          { role: 'user', content: 'recall: DB' },
        ])
      ).text,
    ).toBe('Recalled: DB=postgres');
  });

  it('the control endpoint configures the window from another process; reset restores it', async () => {
    const root = kit.emu.baseUrl.replace(/\/v1$/, '');
    const set = await fetch(`${root}/__emulator/context`, { method: 'POST', body: JSON.stringify({ windowTokens: 1500, overflowForm: 'failed' }) });
    expect(await set.json()).toMatchObject({ windowTokens: 1500, overflowForm: 'failed', contextManagement: true, compactEndpoint: true });
    const bad = await fetch(`${root}/__emulator/context`, { method: 'POST', body: JSON.stringify({ windowTokens: -3 }) });
    expect(bad.status).toBe(400);
    expect((await kit.run({ input: filler(8000) })).at(-1)?.type).toBe('response.failed');
    await fetch(`${root}/__emulator/reset`, { method: 'POST' });
    expect(completed(await kit.run({ input: filler(8000) })).status).toBe('completed');
  });
});
