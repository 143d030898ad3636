// Which proxy, if any, a request goes through: the conventions curl, Codex and Claude Code
// follow (HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, lower or upper case, lower case first; NO_PROXY
// with host suffixes, leading dots or `*.`, ports, IP addresses, CIDR ranges and `*`).
// Node 20's http/https modules read none of these themselves. Pure: reads only the env it gets.
import { isIP } from 'node:net';

type Env = Record<string, string | undefined>;

function pick(env: Env, name: string): string | undefined {
  const v = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

export class ProxyConfigError extends Error {}

/**
 * What agentx speaks to a proxy: HTTP (CONNECT and absolute-URI requests, proxy-tunnel.ts) and
 * SOCKS5 (socks-tunnel.ts; socks5h:// lets the proxy resolve names). Not socks4/socks4a (no
 * IPv6, no authentication; ssh -D, Tor and Dante speak SOCKS5 too), nor https://
 * (TLS to the proxy itself).
 */
const SUPPORTED_SCHEMES = new Set(['http:', 'socks5:', 'socks5h:']);

/**
 * A proxy URL as the environment gives it; a bare `host:port` means http. Throws a one-line
 * error naming `variable`, never the value (it may hold a password).
 */
export function parseProxyUrl(raw: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ProxyConfigError(`${variable}: not a URL (expected scheme://[user:password@]host:port)`);
  }
  if (!SUPPORTED_SCHEMES.has(url.protocol)) {
    throw new ProxyConfigError(`${variable}: ${url.protocol.replace(/:$/, '')} proxies are not supported (use an http://, socks5:// or socks5h:// proxy)`);
  }
  // socks5:// is not a scheme URL parsing knows, so `socks5://` or `socks5:///x` parse with no host.
  if (url.hostname === '') throw new ProxyConfigError(`${variable}: no host in the proxy URL`);
  return url;
}

/** The proxy variable in effect for one kind of target, and its name as set (lower case first, as pick reads them). */
function proxyVariable(env: Env, name: 'https_proxy' | 'http_proxy'): { variable: string; raw: string } | undefined {
  const own = pick(env, name);
  if (own !== undefined) return { variable: env[name] !== undefined ? name : name.toUpperCase(), raw: own };
  const all = pick(env, 'all_proxy');
  return all === undefined ? undefined : { variable: env.all_proxy !== undefined ? 'all_proxy' : 'ALL_PROXY', raw: all };
}

/** The proxy for `target` (undefined: connect directly). */
export function proxyFor(target: URL, env: Env): URL | undefined {
  const https = target.protocol === 'https:' || target.protocol === 'wss:';
  const setting = proxyVariable(env, https ? 'https_proxy' : 'http_proxy');
  if (setting === undefined) return undefined;
  if (bypassesProxy(target, pick(env, 'no_proxy') ?? '')) return undefined;
  return parseProxyUrl(setting.raw, setting.variable);
}

/**
 * Checks, once at start, every proxy variable a request could use (HTTPS_PROXY, HTTP_PROXY, and
 * ALL_PROXY where one of them is unset): a value agentx cannot use is a configuration mistake,
 * refused before any request rather than retried as a connection failure. Unset or empty
 * values, and a variable the others shadow, are fine; NO_PROXY cannot be wrong (an entry that
 * matches nothing matches nothing). Throws ProxyConfigError.
 */
export function checkProxyEnv(env: Env): void {
  for (const name of ['https_proxy', 'http_proxy'] as const) {
    const setting = proxyVariable(env, name);
    if (setting === undefined) continue;
    const proxy = parseProxyUrl(setting.raw, setting.variable);
    try {
      proxyCredentials(proxy);
    } catch (err) {
      // The line proxyCredentials gives a request (naming the proxy, not its credentials), with the variable.
      throw new ProxyConfigError(`${setting.variable}: ${(err as Error).message}`);
    }
  }
}

/** The port a URL names, or its scheme's default (443 for https and wss, else 80). */
export function defaultPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}

/** A URL's host as sockets and TLS take it: an IPv6 literal without its brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** "host:port" as a CONNECT request and the error lines write it: an IPv6 literal in brackets. */
export function hostAuthority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** True when NO_PROXY says `target` is reached directly. */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = bareHostname(target).toLowerCase();
  const port = defaultPort(target);
  for (const entry of noProxy.split(/[\s,]+/)) {
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entryMatches(entry.toLowerCase(), host, port)) return true;
  }
  return false;
}

function splitPort(entry: string): { name: string; port: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? '', port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
  // A bare IPv6 address has many colons and no port.
  if (isIP(entry.split('/')[0] ?? '') === 6) return { name: entry, port: undefined };
  const m = /^(.*):(\d+)$/.exec(entry);
  return m ? { name: m[1] ?? '', port: Number(m[2]) } : { name: entry, port: undefined };
}

function entryMatches(entry: string, host: string, port: number): boolean {
  const { name, port: wantPort } = splitPort(entry);
  if (wantPort !== undefined && wantPort !== port) return false;
  if (name.includes('/')) return inCidr(host, name);
  if (isIP(name) !== 0) return isIP(host) !== 0 && sameAddress(host, name);
  // `.example.com` and `*.example.com` match subdomains; `example.com` matches itself and its subdomains (curl).
  const suffix = name.replace(/^\*?\./, '');
  if (suffix === '') return false;
  return host === suffix || host.endsWith(`.${suffix}`);
}

function sameAddress(a: string, b: string): boolean {
  const x = addressBytes(a);
  const y = addressBytes(b);
  return x !== undefined && y !== undefined && x.length === y.length && x.every((v, i) => v === y[i]);
}

function inCidr(host: string, cidr: string): boolean {
  const [base = '', bitsText = ''] = cidr.split('/');
  const bits = Number(bitsText);
  const h = addressBytes(host);
  const b = addressBytes(base);
  if (h === undefined || b === undefined || h.length !== b.length || !Number.isInteger(bits) || bits < 0 || bits > h.length * 8) return false;
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if (((h[Math.floor(i / 8)] ?? 0) & mask) !== ((b[Math.floor(i / 8)] ?? 0) & mask)) return false;
  }
  return true;
}

/** An IPv4 or IPv6 address as bytes (IPv4-mapped IPv6 kept as 16 bytes). */
export function addressBytes(addr: string): number[] | undefined {
  const kind = isIP(addr);
  if (kind === 4) return addr.split('.').map(Number);
  if (kind !== 6) return undefined;
  let text = addr;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (v4) {
    tail = (v4[1] ?? '').split('.').map(Number);
    text = addr.slice(0, addr.length - (v4[1] ?? '').length);
    text = text.endsWith('::') ? text : text.replace(/:$/, '');
  }
  const groupsWanted = v4 ? 6 : 8;
  const [left = '', right] = text.split('::');
  const l = left === '' ? [] : left.split(':');
  const r = right === undefined || right === '' ? [] : right.split(':');
  const fill = right === undefined ? [] : Array<string>(groupsWanted - l.length - r.length).fill('0');
  const groups = [...l, ...fill, ...r];
  if (groups.length !== groupsWanted) return undefined;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return [...bytes, ...tail];
}

/** The proxy as it may be shown: no credentials. */
export function displayProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** An error whose message names the proxy (and the code a connection failure had). */
export function proxyError(proxy: URL, what: string, cause?: NodeJS.ErrnoException): Error {
  const code = cause?.code !== undefined ? `: ${cause.code}` : '';
  // No `cause`: the one-line error shows the innermost cause, and this line is the one that names the proxy.
  return new Error(`proxy ${displayProxy(proxy)} ${what}${code}`);
}

/**
 * The username and password in the proxy URL, percent-decoded. A malformed escape (`%zz`) is
 * the proxy URL's fault: one line naming the proxy (never the credentials), not a bare
 * "URI malformed". Shared by the CONNECT tunnel's Proxy-Authorization (proxy-tunnel.ts) and the SOCKS5 one (socks-tunnel.ts).
 */
export function proxyCredentials(proxy: URL): { user: string; pass: string } {
  try {
    return { user: decodeURIComponent(proxy.username), pass: decodeURIComponent(proxy.password) };
  } catch {
    throw proxyError(proxy, 'has a malformed %-escape in its username or password');
  }
}
