import { describe, expect, it } from 'vitest';
import { proxyCredentials } from './proxy-env.ts';
import { connectRequest, greeting, socksReplyMeaning, userPassRequest } from './socks-tunnel.ts';

describe('SOCKS5 messages (RFC 1928, RFC 1929)', () => {
  it('offers username/password only when the URL has credentials', () => {
    expect([...greeting(false)]).toEqual([5, 1, 0]);
    expect([...greeting(true)]).toEqual([5, 2, 0, 2]);
  });
  it('encodes CONNECT for an IPv4 address, an IPv6 address and a host name', () => {
    expect([...connectRequest('10.0.0.7', 443)]).toEqual([5, 1, 0, 1, 10, 0, 0, 7, 1, 187]);
    expect([...connectRequest('::1', 8080)]).toEqual([5, 1, 0, 4, ...Array<number>(15).fill(0), 1, 0x1f, 0x90]);
    expect([...connectRequest('api.example', 80)]).toEqual([5, 1, 0, 3, 11, ...Buffer.from('api.example'), 0, 80]);
  });
  it('refuses an IPv6 address SOCKS5 cannot carry (a scoped one) instead of sending another address', () => {
    expect(() => connectRequest('fe80::1%eth0', 443)).toThrow('cannot be sent the address fe80::1%eth0 (SOCKS5 has no form for a scoped IPv6 address)');
    expect(() => connectRequest('fe80::%2', 443)).toThrow('scoped IPv6 address');
    expect([...connectRequest('::ffff:10.0.0.7', 443)]).toEqual([5, 1, 0, 4, ...Array<number>(10).fill(0), 255, 255, 10, 0, 0, 7, 1, 187]);
  });
  it('decodes the proxy URL’s credentials; a malformed %-escape is one line naming the proxy, not the credentials', () => {
    expect(proxyCredentials(new URL('socks5h://al%40ice:s%3Acret@127.0.0.1:1080'))).toEqual({ user: 'al@ice', pass: 's:cret' });
    expect(() => proxyCredentials(new URL('socks5h://al%zzce:hunter2@127.0.0.1:1080'))).toThrow(
      /^proxy socks5h:\/\/127\.0\.0\.1:1080 has a malformed %-escape in its username or password$/,
    );
  });
  it('encodes the username/password request, in UTF-8', () => {
    expect([...userPassRequest('al', 'pé')]).toEqual([1, 2, 0x61, 0x6c, 3, 0x70, 0xc3, 0xa9]);
    expect(() => userPassRequest('x'.repeat(256), '')).toThrow('longer than 255 bytes');
  });
  it('says what a reply code means', () => {
    expect(socksReplyMeaning(5)).toBe('connection refused');
    expect(socksReplyMeaning(2)).toBe('connection not allowed by ruleset');
    expect(socksReplyMeaning(42)).toBe('unassigned reply code');
  });
});
