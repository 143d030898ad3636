// Classification on real failures: the real SDK client against the emulator over HTTP.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { userMessage, type InputItem } from '../wire/items.ts';
import { createOpenAIClient } from './client.ts';
import { displayUrl, ModelError, parseRetryAfter, type FailureKind } from './errors.ts';
import { buildRequest } from './request.ts';
import type { ModelClient } from './types.ts';

let emu: Emulator;
let client: ModelClient;

beforeAll(async () => {
  emu = await startEmulator();
  client = await createOpenAIClient({ apiKey: 'k', baseUrl: emu.baseUrl, idleTimeoutMs: 500 });
});
afterAll(async () => {
  await emu.close();
});

const shape = { model: 'gpt-4.1', instructions: 'sys', tools: [], reasoningEffort: undefined };
const userInput: InputItem[] = [userMessage([], 'hi')];

async function failureOf(c: ModelClient, previous: string | null = null, signal = new AbortController().signal): Promise<ModelError> {
  try {
    for await (const ev of c.stream(buildRequest(shape, userInput, previous), signal)) void ev;
  } catch (err) {
    expect(err).toBeInstanceOf(ModelError);
    return err as ModelError;
  }
  throw new Error('the request did not fail');
}

describe('classifyFailure on real failures', () => {
  const httpCases: [number, string | undefined, FailureKind][] = [
    [500, undefined, 'retryable'],
    [502, undefined, 'retryable'],
    [503, undefined, 'retryable'],
    [504, undefined, 'retryable'],
    [408, undefined, 'retryable'],
    [409, undefined, 'retryable'],
    [429, 'rate_limit_exceeded', 'retryable'],
    [429, 'insufficient_quota', 'fatal'],
    [401, 'invalid_api_key', 'fatal'],
    [403, undefined, 'fatal'],
    [400, 'invalid_value', 'fatal'],
  ];
  for (const [status, code, kind] of httpCases) {
    it(`HTTP ${status}${code ? ` ${code}` : ''} is ${kind}`, async () => {
      emu.enqueue({ kind: 'http_error', status, code });
      const f = await failureOf(client);
      expect(f.kind).toBe(kind);
      expect(f.details.status).toBe(status);
      expect(f.details.requestId).toMatch(/.+/);
      expect(f.message).not.toMatch(/\n/);
    });
  }

  it('carries Retry-After, and a far reset time is reported instead of retried', async () => {
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 2 });
    expect((await failureOf(client)).details.retryAfterMs).toBe(2000);
    // OpenAI's millisecond header wins over the seconds one.
    emu.enqueue({ kind: 'http_error', status: 503, retryAfter: 9, retryAfterMs: 1500 });
    expect((await failureOf(client)).details.retryAfterMs).toBe(1500);
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 7200 });
    const far = await failureOf(client);
    expect(far.kind).toBe('fatal');
    expect(far.message).toMatch(/wait until/);
  });

  it('previous_response_not_found breaks the chain', async () => {
    const f = await failureOf(client, 'resp_gone');
    expect(f.kind).toBe('chain_broken');
  });

  it('a stream cut before response.completed is retryable and keeps the partial text', async () => {
    emu.enqueue({ kind: 'cut', afterText: 'half an ans' });
    const f = await failureOf(client);
    expect(f.kind).toBe('retryable');
    expect(f.details.partialText).toBe('half an ans');
  });

  it('response.failed follows its error code', async () => {
    emu.enqueue({ kind: 'failed', code: 'server_error', message: 'boom' });
    expect((await failureOf(client)).kind).toBe('retryable');
    emu.enqueue({ kind: 'failed', code: 'invalid_prompt', message: 'no' });
    expect((await failureOf(client)).kind).toBe('fatal');
  });

  it('a silent stream times out as retryable; an abort is aborted', async () => {
    emu.enqueue({ kind: 'hang' });
    const idle = await failureOf(client);
    expect(idle.kind).toBe('retryable');
    expect(idle.message).toMatch(/no data/);
    emu.enqueue({ kind: 'hang' });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    expect((await failureOf(client, null, ctl.signal)).kind).toBe('aborted');
  });

  it('connection refused is retryable and names the cause', async () => {
    const port = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
    const down = await createOpenAIClient({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v1`, idleTimeoutMs: 1000 });
    const f = await failureOf(down);
    expect(f.kind).toBe('retryable');
    expect(f.message).toMatch(/ECONNREFUSED/);
    // Which server: the base URL, so a wrong AGENTX_BASE_URL is obvious from the one line.
    expect(f.message).toContain(`(http://127.0.0.1:${port}/v1)`);
  });

  it('names the base URL without the credentials or query it may carry', async () => {
    const port = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
    const down = await createOpenAIClient({ apiKey: 'k', baseUrl: `http://user:s3cret@127.0.0.1:${port}/openai/v1?api-key=q5ecret`, idleTimeoutMs: 1000 });
    const f = await failureOf(down);
    expect(f.message).toContain(`(http://127.0.0.1:${port}/openai/v1)`);
    expect(f.message).not.toMatch(/s3cret|q5ecret|user/);
    expect(displayUrl('not a url')).toBe('the configured base URL');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after': '3' })).toBe(3000);
    expect(parseRetryAfter({ 'retry-after-ms': '250' })).toBe(250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
