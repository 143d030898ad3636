import { describe, expect, it } from 'vitest';
import { ERROR_BODY_CHARS, errorBodyReason } from './error-body.ts';

const json = (body: unknown, status = 400): string | undefined => errorBodyReason(status, body, undefined, 'application/json', []);
const page = (text: string, status = 502, contentType: string | undefined = 'text/html'): string | undefined =>
  errorBodyReason(status, undefined, text, contentType, []);

describe('errorBodyReason', () => {
  it("leaves OpenAI's shape and an empty body to the SDK", () => {
    expect(json({ error: { message: 'm', code: 'c' } })).toBeUndefined();
    expect(page('', 502)).toBeUndefined();
    expect(page('  \n', 502, undefined)).toBeUndefined();
  });

  it('reads error strings, messages and details; any other JSON is shown compactly', () => {
    expect(json({ error: 'model "x" not found, try pulling it first' })).toBe('model "x" not found, try pulling it first');
    expect(json({ object: 'error', message: 'bad\n  input', type: 'BadRequestError', code: 400 })).toBe('bad input');
    expect(json({ detail: 'Method Not Allowed' }, 405)).toBe('Method Not Allowed');
    expect(json({ detail: [{ loc: ['body', 'messages', 2], msg: 'Field required' }] }, 422)).toBe('body.messages.2: Field required');
    expect(json({ detail: [{ msg: 'no loc' }, 'odd'] }, 422)).toBe('no loc (+1 more)');
    expect(json({ detail: ['odd'] }, 422)).toBe('"odd"');
    expect(json({ status: 'failed', why: 42 })).toBe('{"status":"failed","why":42}');
    expect(json(['a', 'b'])).toBe('["a","b"]');
    expect(json('just a string')).toBe('just a string');
  });

  it('names an HTML page by its title, or else its words; entities decoded, scripts and styles left out', () => {
    expect(page('<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>')).toBe(
      'Bad Gateway (an HTML page from the server or a proxy: 502 Bad Gateway)',
    );
    expect(page('<!doctype html><html><script>var x = 1;</script><style>h1{}</style><!-- c --><h1>Tom &amp; Jerry&#39;s &#x263A;</h1></html>', 504)).toBe(
      "Gateway Timeout (an HTML page from the server or a proxy: Tom & Jerry's ☺)",
    );
    // Recognised by its start when the content type does not say so.
    expect(page('<html><body></body></html>', 503, 'text/plain')).toBe('Service Unavailable (an HTML page from the server or a proxy)');
    expect(page('<html>x</html>', 599)).toBe('error (an HTML page from the server or a proxy: x)');
  });

  it('plain text: one line without escape sequences, clipped', () => {
    expect(page('upstream connect error\x1b[31m or disconnect\r\n', 503, 'text/plain')).toBe('upstream connect error or disconnect');
    const long = page('y'.repeat(1000), 500, 'text/plain') ?? '';
    expect(Array.from(long)).toHaveLength(ERROR_BODY_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('scrubs the secrets before clipping, so no part of one is left at the cut', () => {
    const secret = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const text = `${'p'.repeat(ERROR_BODY_CHARS - 10)} ${secret}`;
    const reason = errorBodyReason(500, undefined, text, 'text/plain', [secret]) ?? '';
    expect(reason).not.toContain('abcdefgh');
    expect(reason).toContain('[REDA');
  });
});
