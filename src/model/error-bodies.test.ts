// Error bodies of servers that are not OpenAI (vLLM, FastAPI apps, proxies' HTML pages): the real
// client, scrubbed as the engine builds it, against the emulator's raw answers over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { userMessage } from '../wire/items.ts';
import { createOpenAIClient } from './client.ts';
import { ModelError } from './errors.ts';
import { buildRequest } from './request.ts';
import { scrubSecrets } from './scrub.ts';
import type { ModelClient } from './types.ts';

const KEY = 'local-key-0123456789abcdef';
let emu: Emulator;
let client: ModelClient;

beforeAll(async () => {
  emu = await startEmulator();
  client = scrubSecrets(await createOpenAIClient({ apiKey: KEY, baseUrl: emu.baseUrl, idleTimeoutMs: 2000 }), [KEY]);
});
afterAll(async () => {
  await emu.close();
});

async function failureFor(status: number, body: string, contentType = 'application/json'): Promise<ModelError> {
  emu.enqueue({ kind: 'raw', status, body, contentType });
  try {
    const request = buildRequest({ model: 'm', instructions: 'sys', tools: [], reasoningEffort: undefined }, [userMessage([], 'hi')], null);
    for await (const ev of client.stream(request, new AbortController().signal)) void ev;
  } catch (err) {
    expect(err).toBeInstanceOf(ModelError);
    const f = err as ModelError;
    // Whatever the body, the message is one line with nothing for the terminal to act on.
    expect(f.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    return f;
  }
  throw new Error('the request did not fail');
}

const NGINX_502 = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n`;

describe('error bodies of OpenAI-compatible servers and proxies', () => {
  it("vLLM's {object: error, message}: the message, still fatal", async () => {
    const body = JSON.stringify({
      object: 'error',
      message: "[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required'}]",
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    const f = await failureFor(400, body);
    expect(f.message).toBe("400 [{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required'}]");
    expect(f.kind).toBe('fatal');
    expect(f.details.status).toBe(400);
  });

  it("a compatible server's 'too long for the context' wording is a context overflow (compaction, then one retry), like OpenAI's code", async () => {
    const vllm = JSON.stringify({
      object: 'error',
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (5000 in the messages, 120 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    const llamaCpp = JSON.stringify({
      error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' },
    });
    const lmStudio = JSON.stringify({
      error: 'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length.',
    });
    for (const body of [vllm, llamaCpp, lmStudio]) {
      const f = await failureFor(400, body);
      expect(f.kind).toBe('context_overflow');
      expect(f.details.status).toBe(400);
    }
    expect((await failureFor(413, '{"detail":"prompt is too long: 210000 tokens > 200000 maximum"}')).kind).toBe('context_overflow');
    // Other 400s stay what they were.
    expect((await failureFor(400, JSON.stringify({ object: 'error', message: 'unknown model m', code: 400 }))).kind).toBe('fatal');
  });

  it("FastAPI's 422 {detail: [...]}: the first problem with where it is, and how many more", async () => {
    const body = JSON.stringify({
      detail: [
        { loc: ['body', 'input', 0, 'content'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'model'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'stream'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      ],
    });
    const f = await failureFor(422, body);
    expect(f.message).toBe('422 body.input.0.content: Field required (+2 more)');
    expect(f.kind).toBe('fatal');
  });

  it('{detail: "..."} (FastAPI, Starlette and others): the detail', async () => {
    expect((await failureFor(404, '{"detail":"Not Found"}')).message).toBe('404 Not Found');
  });

  it('an nginx 502 page: one line naming it an HTML page and its title, retried as a 502 always was', async () => {
    const f = await failureFor(502, NGINX_502, 'text/html');
    expect(f.message).toBe('502 Bad Gateway (an HTML page from the server or a proxy: 502 Bad Gateway)');
    expect(f.kind).toBe('retryable');
    expect(f.details.status).toBe(502);
  });

  it('a hostile page: escape sequences removed, the key scrubbed, the line clipped', async () => {
    const page = `<!DOCTYPE html><html><head><style>p{}</style><title>\x1b]0;owned\x07Gateway &amp; ${KEY} ${'x'.repeat(400)}</title></head><body>…</body></html>`;
    const f = await failureFor(503, page, 'text/html; charset=utf-8');
    expect(f.message).toMatch(/^503 Service Unavailable \(an HTML page from the server or a proxy: Gateway & \[REDACTED\] x+…\)$/);
    expect(f.message.length).toBeLessThan(300);
    expect(f.message).not.toContain('owned');
    expect(f.message).not.toContain(KEY.slice(0, 8));
    expect(f.kind).toBe('retryable');
  });

  it('a JSON body echoing the key in its message: scrubbed', async () => {
    const f = await failureFor(401, JSON.stringify({ object: 'error', message: `invalid key ${KEY}\x1b[2J`, type: 'Unauthorized', code: 401 }));
    expect(f.message).toBe('authentication failed (401): check your API key — 401 invalid key [REDACTED]');
    expect(f.kind).toBe('fatal');
  });

  it('an OpenAI body is read as before', async () => {
    const f = await failureFor(
      400,
      JSON.stringify({ error: { message: 'Invalid value for input.', type: 'invalid_request_error', code: 'invalid_value', param: 'input' } }),
    );
    expect(f.message).toBe('400 Invalid value for input.');
    expect(f.details).toMatchObject({ code: 'invalid_value', param: 'input' });
  });
});
