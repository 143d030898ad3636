// context_length_exceeded in every form it arrives in, server-side compaction items and
// POST /responses/compact: the real client against the emulator over HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { createOpenAIClient } from './client.ts';
import { ModelError } from './errors.ts';
import { buildRequest, withContextManagement } from './request.ts';
import { withLocalImages } from './local-images.ts';
import { scrubSecrets } from './scrub.ts';
import { observeUsage } from './usage-observer.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from './types.ts';
import { userMessage, type InputItem } from '../wire/items.ts';

let emu: Emulator;
let client: ModelClient;

beforeAll(async () => {
  emu = await startEmulator();
  client = await createOpenAIClient({ apiKey: 'k', baseUrl: emu.baseUrl, idleTimeoutMs: 2000 });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  emu.configureContext({ windowTokens: 2000, overflowForm: 'http', contextManagement: true, compactEndpoint: true });
});

const shape = { model: 'gpt-4.1', instructions: 'sys', tools: [], reasoningEffort: undefined };
const message = (text: string): InputItem => userMessage([], text);
const huge = (): ModelRequest => buildRequest(shape, [message('y'.repeat(12_000))], null);

async function complete(c: ModelClient, request: ModelRequest): Promise<CompletedResponse> {
  for await (const ev of c.stream(request, new AbortController().signal)) if (ev.type === 'completed') return ev.response;
  throw new Error('no completed event');
}

async function failure(c: ModelClient, request: ModelRequest): Promise<ModelError> {
  try {
    await complete(c, request);
  } catch (err) {
    if (err instanceof ModelError) return err;
    throw err;
  }
  throw new Error('the request did not fail');
}

describe('context_length_exceeded is its own failure kind', () => {
  it('as HTTP 400', async () => {
    const f = await failure(client, huge());
    expect(f.kind).toBe('context_overflow');
    expect(f.details).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'input' });
    expect(f.details.requestId).toMatch(/^req_/);
    expect(f.message).toMatch(/context window/);
  });

  for (const form of ['failed', 'error', 'error_nested'] as const) {
    it(`in the stream (${form})`, async () => {
      emu.configureContext({ overflowForm: form });
      const f = await failure(client, huge());
      expect(f.kind).toBe('context_overflow');
      expect(f.details.code).toBe('context_length_exceeded');
    });
  }

  it('other 400s keep their kind and now carry the param', async () => {
    emu.configureContext({ contextManagement: false });
    const f = await failure(client, withContextManagement(buildRequest(shape, [message('hi')], null), 5000));
    expect(f.kind).toBe('fatal');
    expect(f.details).toMatchObject({ status: 400, code: 'unknown_parameter', param: 'context_management' });
  });
});

describe('compaction on the wire', () => {
  it('server-side compaction items are surfaced on the completed response', async () => {
    emu.configureContext({ windowTokens: 50_000 });
    const first = await complete(client, withContextManagement(buildRequest(shape, [message(`remember A=1 ${'z'.repeat(6000)}`)], null), 1000));
    expect(first.compactions).toHaveLength(1);
    expect(first.compactions?.[0]).toMatchObject({ type: 'compaction', encrypted_content: expect.stringMatching(/.+/) as unknown });
    const plain = await complete(client, buildRequest(shape, [message('hi')], null));
    expect(plain.compactions).toBeUndefined();
  });

  it('compact() returns the output to start a new chain with, and its usage, through every wrapper the CLI uses', async () => {
    emu.configureContext({ windowTokens: 50_000 });
    const first = await complete(client, buildRequest(shape, [message('remember B=2')], null));
    const seen: number[] = [];
    const wrapped = observeUsage(withLocalImages(scrubSecrets(client, ['k-secret'])), (_model, usage) => seen.push(usage.inputTokens));
    const compacted = await wrapped.compact?.({ model: 'gpt-4.1', instructions: 'sys', previous_response_id: first.id }, new AbortController().signal);
    expect(compacted?.output.at(-1)).toMatchObject({ type: 'compaction' });
    expect(compacted?.usage.inputTokens).toBeGreaterThan(0);
    expect(seen).toEqual([compacted?.usage.inputTokens]);
    // The service's ids and statuses are not carried into the next chain's input.
    expect(compacted?.output.every((item) => !('status' in item))).toBe(true);
    const next = await complete(client, buildRequest(shape, [...(compacted?.output ?? []), message('recall: B')], null));
    expect(next.text).toBe('Recalled: B=2');
  });

  it('compact() on a server without the endpoint is a classified 404, also through scrubSecrets', async () => {
    emu.configureContext({ compactEndpoint: false });
    const scrubbed = scrubSecrets(client, ['k-secret']);
    let caught: unknown;
    try {
      await scrubbed.compact?.({ model: 'gpt-4.1', instructions: 'sys', previous_response_id: 'resp_any' }, new AbortController().signal);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ModelError);
    expect(caught).toMatchObject({ kind: 'fatal', details: { status: 404 } });
  });
});
