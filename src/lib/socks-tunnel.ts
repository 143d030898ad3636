// A SOCKS5 tunnel (RFC 1928), with username/password authentication (RFC 1929) when the proxy
// URL carries credentials: the SOCKS twin of the CONNECT tunnel in proxy-tunnel.ts, used for
// `socks5://` and `socks5h://` proxies (ALL_PROXY or any proxy variable). As with CONNECT, the
// proxy only relays bytes; TLS, when the target is https/wss, runs end to end inside it.
//
// `socks5h://` hands the host name to the proxy (it resolves it); `socks5://` resolves the name
// here and sends the address, as curl does. Failures are one line naming the proxy without its
// credentials (displayProxy) and, for a SOCKS refusal, what the reply code means.
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { addressBytes, bareHostname, hostAuthority, proxyCredentials, proxyError } from './proxy-env.ts';

const VERSION = 5;
const NO_AUTH = 0x00;
const USER_PASS = 0x02;
/** RFC 1929's own version byte, in its request and its reply. */
const USER_PASS_VERSION = 0x01;
const NO_ACCEPTABLE = 0xff;
const CONNECT = 0x01;
const ATYP_IPV4 = 0x01;
const ATYP_DOMAIN = 0x03;
const ATYP_IPV6 = 0x04;

/** RFC 1928 §6: what each reply code means, as the line the person reads. */
const REPLY_MEANINGS: Readonly<Record<number, string>> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

export function socksReplyMeaning(code: number): string {
  return REPLY_MEANINGS[code] ?? 'unassigned reply code';
}

export function isSocksProxy(proxy: URL): boolean {
  return proxy.protocol === 'socks5:' || proxy.protocol === 'socks5h:';
}

/** A handshake step the proxy failed: its message is the rest of the one line naming the proxy. */
class SocksRefusal extends Error {}

/**
 * Reads exact byte counts from a socket during the handshake, in paused mode ('readable' and
 * read(n)): bytes after the last read (the target's first ones) stay in the socket, and once
 * the listeners are gone the socket is back in its initial mode, so whoever reads it next (TLS,
 * the HTTP parser) starts it by listening.
 */
class HandshakeReader {
  #want: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  #failure: Error | undefined;

  constructor(private readonly socket: net.Socket) {
    socket.on('readable', this.#pull);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
  }

  read(n: number): Promise<Buffer> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#want = { n, resolve, reject };
      this.#pull();
    });
  }

  release(): void {
    this.socket.off('readable', this.#pull);
    this.socket.off('end', this.#onEnd);
    this.socket.off('close', this.#onEnd);
  }

  fail(err: Error): void {
    this.#failure = err;
    const want = this.#want;
    this.#want = undefined;
    want?.reject(err);
  }

  #pull = (): void => {
    const want = this.#want;
    if (!want) return;
    const chunk = this.socket.read(want.n) as Buffer | null;
    // A short chunk is what was left when the proxy closed.
    if (chunk === null || chunk.length < want.n) {
      if (chunk !== null || this.socket.readableEnded) this.#onEnd();
      return;
    }
    this.#want = undefined;
    want.resolve(chunk);
  };

  #onEnd = (): void => {
    this.fail(new SocksRefusal('closed the connection during the SOCKS handshake'));
  };
}

/** The greeting: the methods offered (username/password only when there are credentials). */
export function greeting(withCredentials: boolean): Buffer {
  return Buffer.from(withCredentials ? [VERSION, 2, NO_AUTH, USER_PASS] : [VERSION, 1, NO_AUTH]);
}

/** RFC 1929's sub-negotiation request. */
export function userPassRequest(user: string, pass: string): Buffer {
  const u = Buffer.from(user, 'utf8');
  const p = Buffer.from(pass, 'utf8');
  if (u.length > 255 || p.length > 255) throw new SocksRefusal('cannot take a username or password longer than 255 bytes');
  return Buffer.concat([Buffer.from([USER_PASS_VERSION, u.length]), u, Buffer.from([p.length]), p]);
}

/** The CONNECT request for an address (IPv4/IPv6 literal) or a host name the proxy resolves. */
export function connectRequest(host: string, port: number): Buffer {
  const kind = net.isIP(host);
  let address: Buffer;
  if (kind === 4) address = Buffer.from([ATYP_IPV4, ...host.split('.').map(Number)]);
  else if (kind === 6) address = Buffer.from([ATYP_IPV6, ...ipv6Bytes(host)]);
  else {
    const name = Buffer.from(host, 'utf8');
    if (name.length > 255) throw new SocksRefusal(`cannot take a host name longer than 255 bytes (${host.slice(0, 40)}…)`);
    address = Buffer.concat([Buffer.from([ATYP_DOMAIN, name.length]), name]);
  }
  return Buffer.concat([Buffer.from([VERSION, CONNECT, 0]), address, Buffer.from([port >> 8, port & 0xff])]);
}

/**
 * The 16 bytes of an IPv6 literal. SOCKS5 has no field for a zone (`fe80::1%eth0`), and
 * addressBytes would drop it silently (or misread the group holding it): such an address is
 * refused rather than sent as some other address.
 */
function ipv6Bytes(host: string): number[] {
  const bytes = host.includes('%') ? undefined : addressBytes(host);
  if (bytes?.length !== 16) throw new SocksRefusal(`cannot be sent the address ${host} (SOCKS5 has no form for a scoped IPv6 address)`);
  return bytes;
}

/** Length of the bound address in a reply, after its ATYP byte (the domain form reads one more byte). */
function boundAddressLength(atyp: number): number | 'domain' {
  if (atyp === ATYP_IPV4) return 4;
  if (atyp === ATYP_IPV6) return 16;
  if (atyp === ATYP_DOMAIN) return 'domain';
  throw new SocksRefusal('did not answer as a SOCKS5 proxy (an unknown address type in its reply)');
}

/** socks5:// resolves here (curl's meaning); socks5h:// (or an address literal) sends the name as is. */
async function destination(proxy: URL, host: string): Promise<string> {
  if (proxy.protocol === 'socks5h:' || net.isIP(host) !== 0) return host;
  try {
    return (await lookup(host)).address;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new SocksRefusal(`could not be used: ${host} did not resolve here (${code}; socks5h:// lets the proxy resolve names)`);
  }
}

interface Target {
  host: string;
  port: number;
  /** host:port as the error lines show it. */
  authority: string;
}

async function handshake(
  socket: net.Socket,
  reader: HandshakeReader,
  proxy: URL,
  { user, pass }: { user: string; pass: string },
  target: Target,
): Promise<void> {
  const { host, port, authority } = target;
  const withCredentials = user !== '' || pass !== '';
  socket.write(greeting(withCredentials));
  const [version, method] = await reader.read(2);
  if (version !== VERSION) throw new SocksRefusal('did not answer as a SOCKS5 proxy');
  if (method === NO_ACCEPTABLE) {
    throw new SocksRefusal(
      withCredentials
        ? 'accepted none of the offered authentication methods'
        : 'accepts no connection without authentication (no username and password in the proxy URL)',
    );
  }
  if (method === USER_PASS) {
    if (!withCredentials) throw new SocksRefusal('asked for a username and password it was not offered');
    socket.write(userPassRequest(user, pass));
    const [authVersion, status] = await reader.read(2);
    // RFC 1929 §2: the reply's first byte is the sub-negotiation's version, 1.
    if (authVersion !== USER_PASS_VERSION) {
      throw new SocksRefusal(`did not answer the username and password as RFC 1929 asks (version ${String(authVersion)}, not 1)`);
    }
    if (status !== 0) throw new SocksRefusal('refused the username and password');
  } else if (method !== NO_AUTH) {
    throw new SocksRefusal(`chose an authentication method it was not offered (${String(method)})`);
  }
  socket.write(connectRequest(await destination(proxy, host), port));
  const [replyVersion, reply, , atyp] = await reader.read(4);
  if (replyVersion !== VERSION) throw new SocksRefusal('did not answer as a SOCKS5 proxy');
  if (reply !== 0) throw new SocksRefusal(`refused the connection to ${authority} (${String(reply)}: ${socksReplyMeaning(reply ?? -1)})`);
  const length = boundAddressLength(atyp ?? 0);
  const addressLength = length === 'domain' ? ((await reader.read(1))[0] ?? 0) : length;
  await reader.read(addressLength + 2);
}

/** Opens a raw socket to host:port through a SOCKS5 proxy (TLS is the caller's). */
export function openSocksTunnel(proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<net.Socket> {
  const authority = hostAuthority(host, port);
  return new Promise((resolve, reject) => {
    const abortError = (): Error => (signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError'));
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    // Before any connection: a malformed credential throws here, which rejects this promise.
    const credentials = proxyCredentials(proxy);
    const socket = net.connect({ host: bareHostname(proxy), port: proxy.port === '' ? 1080 : Number(proxy.port) });
    const reader = new HandshakeReader(socket);
    let connected = false;
    const onAbort = (): void => {
      socket.destroy();
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => {
      signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
    };
    const onError = (err: NodeJS.ErrnoException): void => {
      settle();
      reader.fail(err);
      socket.destroy();
      reject(proxyError(proxy, connected ? 'dropped the connection during the SOCKS handshake' : 'could not be reached', err));
    };
    socket.on('error', onError);
    socket.once('connect', () => {
      connected = true;
      handshake(socket, reader, proxy, credentials, { host, port, authority }).then(
        () => {
          settle();
          reader.release();
          resolve(socket);
        },
        (err: Error) => {
          settle();
          socket.destroy();
          // A socket error was already reported by onError (this rejection is then a no-op).
          reject(err instanceof SocksRefusal ? proxyError(proxy, err.message) : err);
        },
      );
    });
  });
}
