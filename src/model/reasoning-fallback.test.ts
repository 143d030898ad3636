// A configured reasoning effort reaches any model; a server that refuses `reasoning` for a model
// (a gpt-oss model on a gateway) gets the request once more without it, said once, remembered.
// The real client against the emulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { createOpenAIClient } from './client.ts';
import { ModelError } from './errors.ts';
import { reasoningRefused, withReasoningFallback } from './reasoning-fallback.ts';
import { buildRequest } from './request.ts';
import type { ModelClient, ModelRequest } from './types.ts';
import { userMessage } from '../wire/items.ts';

let emu: Emulator;
let raw: ModelClient;
beforeAll(async () => {
  emu = await startEmulator({ noReasoningModels: ['gpt-oss-refuses'] });
  raw = await createOpenAIClient({ apiKey: 'k', baseUrl: emu.baseUrl, idleTimeoutMs: 2000 });
});
afterAll(async () => {
  await emu.close();
});

const request = (model: string): ModelRequest =>
  buildRequest({ model, instructions: 'sys', tools: [], reasoningEffort: 'high' }, [userMessage([], 'hi')], null);

async function drain(c: ModelClient, r: ModelRequest): Promise<void> {
  for await (const _ of c.stream(r, new AbortController().signal)) {
    /* events */
  }
}

describe('reasoning effort for any model', () => {
  it('is sent to a model the regex does not know when the person configured it', async () => {
    const n = emu.requests.length;
    await drain(
      withReasoningFallback(raw, emu.baseUrl, () => {
        throw new Error('no warning expected');
      }),
      request('gpt-oss-120b'),
    );
    expect((emu.requests[n]?.body as { reasoning?: unknown }).reasoning).toEqual({ effort: 'high', summary: 'auto' });
  });

  it('a 400 naming reasoning: retried once without it, one warning, not sent again this session', async () => {
    // Without the wrapper the request fails (what a person saw before: a fatal 400).
    await expect(drain(raw, request('gpt-oss-refuses-20b'))).rejects.toBeInstanceOf(ModelError);
    const warnings: string[] = [];
    const client = withReasoningFallback(raw, emu.baseUrl, (line) => warnings.push(line));
    const n = emu.requests.length;
    await drain(client, request('gpt-oss-refuses-20b'));
    await drain(client, request('gpt-oss-refuses-20b'));
    const bodies = emu.requests.slice(n).map((r) => r.body as { reasoning?: unknown });
    expect(bodies.map((b) => b.reasoning !== undefined)).toEqual([true, false, false]);
    expect(warnings).toEqual(['the server does not accept a reasoning effort for gpt-oss-refuses-20b: sent without it for the rest of this session']);
    expect(reasoningRefused(emu.baseUrl, 'gpt-oss-refuses-20b')).toBe(true);
    expect(reasoningRefused(emu.baseUrl, 'gpt-oss-120b')).toBe(false);
  });
});
