// A socket to a server through a proxy, for both API transports (model/node-fetch.ts and
// model/ws-transport.ts) and whoever else tunnels: openTunnelSocket opens the tunnel (an HTTP
// CONNECT here, or a SOCKS5 handshake, socks-tunnel.ts), then, for an https or wss target, TLS
// end to end inside it; the proxy sees only host:port. Credentials in the proxy URL become a
// Basic Proxy-Authorization header (or SOCKS5's username/password); they never appear in an
// error (displayProxy).
//
// The tunnel and the TLS inside it are bounded together, by a timeout and the caller's signal:
// a caller's own timers cannot reach them. node:http's request, destroyed before its socket
// arrives, only waits for that socket (its own signal and timeout emit nothing until then); ws's
// handshakeTimeout reaches only the socket handed back. Without this bound a proxy that accepts
// and goes silent, or a server behind it that never answers the ClientHello, would hold the
// request and a referenced socket for good.
import http from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { bareHostname, defaultPort, hostAuthority, proxyCredentials, proxyError } from './proxy-env.ts';
import { isSocksProxy, openSocksTunnel } from './socks-tunnel.ts';
import { durationText } from './text.ts';

/** The Basic Proxy-Authorization for the URL's credentials; throws the proxy's one line for a malformed %-escape. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const { user, pass } = proxyCredentials(proxy);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

export interface TunnelSocketOptions {
  /** How long the tunnel and the TLS handshake inside it may take, together. */
  timeoutMs: number;
  /** The caller's cancel: ends the attempt with its abort error (not a proxy error). */
  signal?: AbortSignal | undefined;
  /** The trust list for TLS to the target (undefined: Node's default). */
  ca?: string[] | undefined;
  /** ALPN protocols offered in the TLS handshake (a WebSocket upgrade asks for http/1.1). */
  alpnProtocols?: string[];
}

export interface TunnelSocket {
  /** What the request speaks over: TLS inside the tunnel for https and wss, the tunnel itself otherwise. */
  socket: Socket | TLSSocket;
  /** The connection to the proxy under it: unref'ing an idle connection must reach this one too. */
  tunnel: Socket;
}

/**
 * A socket to `target` (its host and port, default port by scheme) through `proxy`. Every
 * failure rejects once and leaves no socket open; one that the timeout caused is one line naming
 * the proxy (without credentials) and the stage that stalled.
 */
export async function openTunnelSocket(proxy: URL, target: URL, opts: TunnelSocketOptions): Promise<TunnelSocket> {
  const host = bareHostname(target);
  const port = defaultPort(target);
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  // The timeout's own reason is a bare "aborted due to timeout": the error says whose it was.
  const timedOut = (): boolean => timeout.aborted && opts.signal?.aborted !== true;
  const within = durationText(opts.timeoutMs);
  let tunnel: Socket;
  try {
    tunnel = await openTunnel(proxy, host, port, signal);
  } catch (err) {
    throw timedOut() ? proxyError(proxy, `did not open a tunnel within ${within}`) : err;
  }
  if (target.protocol !== 'https:' && target.protocol !== 'wss:') return { socket: tunnel, tunnel };
  try {
    return { socket: await startTls(tunnel, host, opts, signal), tunnel };
  } catch (err) {
    tunnel.destroy();
    if (!timedOut()) throw err;
    throw proxyError(proxy, `opened a tunnel to ${hostAuthority(host, port)}, but the TLS handshake inside it did not finish within ${within}`);
  }
}

/** TLS over the tunnel, verified for `host` (SNI only for a name, as node:https does). */
async function startTls(tunnel: Socket, host: string, opts: TunnelSocketOptions, signal: AbortSignal): Promise<TLSSocket> {
  // node:tls is loaded only for an https or wss target through a proxy.
  const { default: tls } = await import('node:tls');
  if (signal.aborted) throw abortError(signal);
  return new Promise((resolve, reject) => {
    const secure = tls.connect({
      socket: tunnel,
      servername: isIP(host) === 0 ? host : undefined,
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.alpnProtocols ? { ALPNProtocols: opts.alpnProtocols } : {}),
    });
    // Each outcome detaches the others: the socket's later errors are its new owner's.
    const settle = (): void => {
      signal.removeEventListener('abort', onAbort);
      secure.off('secureConnect', onReady);
      secure.off('error', onError);
    };
    const onReady = (): void => {
      settle();
      resolve(secure);
    };
    const onError = (err: Error): void => {
      settle();
      secure.destroy();
      reject(err);
    };
    const onAbort = (): void => onError(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    secure.once('secureConnect', onReady);
    secure.once('error', onError);
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** A raw socket to host:port through the proxy: a SOCKS5 handshake for socks5:// and socks5h://, an HTTP CONNECT otherwise. */
function openTunnel(proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  if (isSocksProxy(proxy)) return openSocksTunnel(proxy, host, port, signal);
  return openConnectTunnel(proxy, host, port, signal);
}

function openConnectTunnel(proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  const authority = hostAuthority(host, port);
  return new Promise((resolve, reject) => {
    // Inside the promise: a malformed credential is this tunnel's rejection, not a throw at the caller.
    const headers: Record<string, string> = { host: authority };
    const auth = proxyAuthorization(proxy);
    if (auth !== undefined) headers['proxy-authorization'] = auth;
    const req = http.request({
      host: bareHostname(proxy),
      port: proxy.port === '' ? 80 : Number(proxy.port),
      method: 'CONNECT',
      path: authority,
      headers,
      agent: false,
      signal,
    });
    req.once('connect', (res, socket) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        resolve(socket);
        return;
      }
      socket.destroy();
      reject(proxyError(proxy, `refused the tunnel to ${authority} (${status}${res.statusMessage ? ` ${res.statusMessage}` : ''})`));
    });
    req.once('response', (res) => {
      // A proxy that answers CONNECT with an ordinary response (no upgrade) refused it.
      res.resume();
      reject(proxyError(proxy, `refused the tunnel to ${authority} (${res.statusCode ?? 0})`));
    });
    req.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.name === 'AbortError' ? err : proxyError(proxy, 'could not be reached', err));
    });
    req.end();
  });
}
