import { describe, expect, it } from 'vitest';
import { bypassesProxy, parseProxyUrl, proxyFor } from './proxy-env.ts';

describe('NO_PROXY', () => {
  const cases: [string, string, boolean][] = [
    ['https://api.openai.com/v1', '', false],
    ['https://api.openai.com/v1', '*', true],
    ['https://api.openai.com/v1', 'openai.com', true],
    ['https://api.openai.com/v1', '.openai.com', true],
    ['https://api.openai.com/v1', '*.openai.com', true],
    ['https://openai.com/v1', '.openai.com', true],
    ['https://notopenai.com/v1', 'openai.com', false],
    ['https://API.OpenAI.com/v1', 'api.openai.com', true],
    ['https://api.openai.com/v1', 'API.OPENAI.COM', true],
    ['https://api.openai.com/v1', 'api.openai.com:443', true],
    ['https://api.openai.com/v1', 'api.openai.com:8443', false],
    ['http://gateway.local:8080/v1', 'gateway.local:8080', true],
    ['http://gateway.local/v1', 'gateway.local:80', true],
    ['http://10.1.2.3/v1', '10.0.0.0/8', true],
    ['http://11.1.2.3/v1', '10.0.0.0/8', false],
    ['http://192.168.1.7:3000/v1', '192.168.1.0/24', true],
    ['http://127.0.0.1:3000/v1', '127.0.0.1', true],
    ['http://127.0.0.2:3000/v1', '127.0.0.1', false],
    ['http://[::1]:3000/v1', '::1', true],
    ['http://[::1]:3000/v1', '[::1]:3000', true],
    ['http://[::1]:3000/v1', '[::1]:4000', false],
    ['http://[fd00::5]/v1', 'fd00::/8', true],
    ['http://[fe80::5]/v1', 'fd00::/8', false],
    ['https://api.openai.com/v1', 'localhost, example.com  openai.com', true],
    ['https://api.openai.com/v1', ',,', false],
    ['https://api.openai.com/v1', '.', false],
  ];
  for (const [url, noProxy, bypass] of cases) {
    it(`${url} with NO_PROXY="${noProxy}" ${bypass ? 'goes direct' : 'uses the proxy'}`, () => {
      expect(bypassesProxy(new URL(url), noProxy)).toBe(bypass);
    });
  }
});

describe('proxyFor', () => {
  const https = new URL('https://api.openai.com/v1');
  const http = new URL('http://gateway.internal/v1');
  it('picks HTTPS_PROXY for https and HTTP_PROXY for http, lower case first', () => {
    const env = { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', HTTP_PROXY: 'http://plain:3' };
    expect(proxyFor(https, env)?.host).toBe('lower:2');
    expect(proxyFor(http, env)?.host).toBe('plain:3');
    expect(proxyFor(https, { HTTPS_PROXY: 'http://upper:1' })?.host).toBe('upper:1');
  });
  it('falls back to ALL_PROXY and takes a bare host:port as http', () => {
    expect(proxyFor(https, { all_proxy: 'proxy.corp:3128' })?.href).toBe('http://proxy.corp:3128/');
  });
  it('none set, or NO_PROXY matching (either case): direct', () => {
    expect(proxyFor(https, {})).toBeUndefined();
    expect(proxyFor(https, { HTTPS_PROXY: 'http://p:1', no_proxy: 'openai.com' })).toBeUndefined();
    expect(proxyFor(https, { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'openai.com' })).toBeUndefined();
    expect(proxyFor(https, { HTTPS_PROXY: '  ' })).toBeUndefined();
  });
  it('keeps credentials from the URL and refuses schemes it cannot speak in one line', () => {
    expect(proxyFor(https, { HTTPS_PROXY: 'http://me:s%40cret@p:1' })?.password).toBe('s%40cret');
    expect(parseProxyUrl('socks5://p:1080', 'ALL_PROXY').protocol).toBe('socks5:');
    expect(parseProxyUrl('socks5h://me:pw@p', 'ALL_PROXY').username).toBe('me');
    expect(() => parseProxyUrl('socks4://p:1080', 'ALL_PROXY')).toThrow(
      'ALL_PROXY: socks4 proxies are not supported (use an http://, socks5:// or socks5h:// proxy)',
    );
    expect(() => parseProxyUrl('https://p:443', 'HTTPS_PROXY')).toThrow('HTTPS_PROXY: https proxies are not supported');
    expect(() => parseProxyUrl('http://[bad', 'HTTPS_PROXY')).toThrow('HTTPS_PROXY: not a URL');
  });
});
