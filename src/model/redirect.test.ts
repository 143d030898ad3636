import { describe, expect, it } from 'vitest';
import { MAX_REDIRECTS, nextHop, type HopRequest } from './redirect.ts';

const post = (url = 'https://proxy.example/v1/responses'): HopRequest => ({
  url: new URL(url),
  method: 'POST',
  body: '{"model":"x"}',
  headers: { authorization: 'Bearer sk-secret', 'content-type': 'application/json', 'openai-project': 'p', host: 'proxy.example' },
});

describe('nextHop', () => {
  it('307/308 keep the method, the body and, on the same origin, the Authorization header', () => {
    for (const status of [307, 308]) {
      const hop = nextHop(post(), status, '/v2/responses', 0);
      expect(hop).toEqual({
        url: new URL('https://proxy.example/v2/responses'),
        method: 'POST',
        body: '{"model":"x"}',
        headers: { authorization: 'Bearer sk-secret', 'content-type': 'application/json', 'openai-project': 'p' },
      });
    }
  });

  it('never forwards Authorization to another origin (host, port or scheme)', () => {
    for (const target of ['https://api.other.example/v1/responses', 'https://proxy.example:8443/v1/responses', 'http://proxy.example/v1/responses']) {
      const hop = nextHop(post(), 308, target, 0);
      if ('error' in hop) throw new Error(hop.error);
      expect(hop.headers.authorization).toBeUndefined();
      expect(hop.headers['openai-project']).toBe('p');
      expect(hop.body).toBe('{"model":"x"}');
    }
  });

  it('a stripped Authorization stays stripped when a later hop comes back to the first origin', () => {
    const away = nextHop(post(), 307, 'https://elsewhere.example/x', 0);
    if ('error' in away) throw new Error(away.error);
    const back = nextHop(away, 307, 'https://proxy.example/v1/responses', 1);
    if ('error' in back) throw new Error(back.error);
    expect(back.headers.authorization).toBeUndefined();
  });

  it('301/302 turn a POST into a GET without body, 303 turns anything but GET/HEAD into a GET', () => {
    for (const status of [301, 302, 303]) {
      const hop = nextHop(post(), status, '/elsewhere', 0);
      if ('error' in hop) throw new Error(hop.error);
      expect(hop.method).toBe('GET');
      expect(hop.body).toBeUndefined();
      expect(hop.headers['content-type']).toBeUndefined();
    }
    const put = nextHop({ ...post(), method: 'PUT' }, 302, '/x', 0);
    expect('error' in put ? put : put.method).toBe('PUT');
  });

  it('stops after five redirects, without a Location, and at non-HTTP targets', () => {
    expect(nextHop(post(), 307, '/again', MAX_REDIRECTS)).toEqual({ error: 'too many redirects (more than 5)' });
    expect(nextHop(post(), 307, undefined, 0)).toEqual({ error: 'redirect 307 without a Location header' });
    expect(nextHop(post(), 308, 'file:///etc/passwd', 0)).toEqual({ error: 'redirect 308 to a non-HTTP URL (file:)' });
  });
});
