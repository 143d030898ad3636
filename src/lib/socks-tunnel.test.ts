import { describe, expect, it } from 'vitest';
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
