// Shared setup for the emulator's own tests: a fresh emulator per test and the real SDK against it.
import { afterEach, beforeEach } from 'vitest';
import OpenAI from 'openai';
import type { ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import { startEmulator } from './server.ts';
import type { Emulator } from './server.ts';

export const SHELL: Tool[] = [{ type: 'shell', environment: { type: 'local' } }];
export const FUNCTION_SHELL: Tool[] = [
  { type: 'function', name: 'shell', strict: false, parameters: { type: 'object', properties: { commands: { type: 'array' } } } },
];

export type CreateBody = Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream' | 'model'>;

export interface Kit {
  readonly emu: Emulator;
  readonly client: OpenAI;
  /** Streams one request through the SDK and collects every event. */
  run(body: CreateBody): Promise<ResponseStreamEvent[]>;
  /** A raw POST (with a bearer key unless overridden) for bodies the SDK types would refuse. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export function useEmulator(): Kit {
  let current: { emu: Emulator; client: OpenAI } | undefined;
  beforeEach(async () => {
    const emu = await startEmulator();
    current = { emu, client: new OpenAI({ apiKey: 'x', baseURL: emu.baseUrl, maxRetries: 0 }) };
  });
  afterEach(async () => {
    await current?.emu.close();
    current = undefined;
  });
  const get = (): { emu: Emulator; client: OpenAI } => {
    if (!current) throw new Error('emulator not started');
    return current;
  };
  return {
    get emu() {
      return get().emu;
    },
    get client() {
      return get().client;
    },
    async run(body) {
      const stream = await get().client.responses.create({ model: 'gpt-5', ...body, stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      return events;
    },
    post(path, body, headers = {}) {
      return fetch(get().emu.baseUrl.replace(/\/v1$/, '') + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x', ...headers },
        body: JSON.stringify(body),
      });
    },
  };
}

export function completed(events: ResponseStreamEvent[]): OpenAI.Responses.Response {
  const last = events.at(-1);
  if (last?.type !== 'response.completed') throw new Error(`no response.completed (last: ${last?.type})`);
  return last.response;
}

export function text(events: ResponseStreamEvent[]): string {
  return events.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
}

export async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  throw new Error('expected an API error');
}
