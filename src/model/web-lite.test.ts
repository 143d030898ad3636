import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { installLiteWebGlobals, LiteFormData, LiteHeaders, LiteResponse } from './web-lite.ts';

describe('LiteHeaders', () => {
  it('behaves like the web Headers for what the SDK does with it', () => {
    const h = new LiteHeaders({ 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'] });
    h.append('x-multi', 'c');
    h.set('Authorization', 'Bearer k');
    expect(h.get('content-type')).toBe('application/json');
    expect(h.get('X-MULTI')).toBe('a, b, c');
    expect(h.has('authorization')).toBe(true);
    h.delete('AUTHORIZATION');
    expect(h.get('authorization')).toBeNull();
    expect([...h]).toEqual([
      ['content-type', 'application/json'],
      ['x-multi', 'a, b, c'],
    ]);
    expect([...new LiteHeaders(h).keys()]).toEqual(['content-type', 'x-multi']);
    expect([
      ...new LiteHeaders([
        ['b', '2'],
        ['a', '1'],
      ]).values(),
    ]).toEqual(['1', '2']);
    const seen: string[] = [];
    h.forEach((v, k) => seen.push(`${k}=${v}`));
    expect(seen).toEqual(['content-type=application/json', 'x-multi=a, b, c']);
  });
});

describe('LiteResponse', () => {
  it('exposes status, ok, headers and an async-iterable body; text() and json() read it once', async () => {
    const ok = new LiteResponse(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]), 200, 'OK', new LiteHeaders({ 'x-request-id': 'req_1' }), 'http://x/');
    expect(ok.ok).toBe(true);
    expect(ok.headers.get('X-Request-Id')).toBe('req_1');
    expect(await ok.json()).toEqual({ a: 1 });
    expect(ok.bodyUsed).toBe(true);
    await expect(ok.text()).rejects.toThrow(/already been read/);
    const bad = new LiteResponse(Readable.from([Buffer.from('nope')]), 500, 'Server Error', new LiteHeaders(), 'http://x/');
    expect(bad.ok).toBe(false);
    expect(await bad.text()).toBe('nope');
    const chunks: string[] = [];
    const streamed = new LiteResponse(Readable.from([Buffer.from('data: 1\n\n')]), 200, '', new LiteHeaders(), 'http://x/');
    for await (const c of streamed.body ?? []) chunks.push(Buffer.from(c).toString());
    expect(chunks).toEqual(['data: 1\n\n']);
  });
});

describe('installLiteWebGlobals', () => {
  it('replaces lazy (not yet loaded) globals only', () => {
    let loaded = 0;
    const lazyTarget = {};
    for (const name of ['Headers', 'FormData'])
      Object.defineProperty(lazyTarget, name, {
        get: () => {
          loaded++;
          return class {};
        },
        configurable: true,
      });
    expect(installLiteWebGlobals(lazyTarget)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(lazyTarget, 'Headers')?.value).toBe(LiteHeaders);
    expect(Object.getOwnPropertyDescriptor(lazyTarget, 'FormData')?.value).toBe(LiteFormData);
    expect(loaded).toBe(0);
    class Real {}
    const loadedTarget = { Headers: Real, FormData: Real };
    expect(installLiteWebGlobals(loadedTarget)).toBe(false);
    expect(loadedTarget.Headers).toBe(Real);
  });
});
