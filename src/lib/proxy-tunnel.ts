// An HTTP CONNECT tunnel through a forward proxy, for https (and wss) targets: the proxy sees
// only host:port, TLS runs end to end inside the tunnel. A SOCKS5 proxy gets its own handshake
// (socks-tunnel.ts) behind the same openTunnel. Credentials in the proxy URL become a
// Basic Proxy-Authorization header; they never appear in an error (displayProxy).
import http from 'node:http';
import type { Socket } from 'node:net';
import { proxyCredentials, proxyError } from './proxy-env.ts';
import { isSocksProxy, openSocksTunnel } from './socks-tunnel.ts';

/** The Basic Proxy-Authorization for the URL's credentials; throws the proxy's one line for a malformed %-escape. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const { user, pass } = proxyCredentials(proxy);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/**
 * Opens a raw socket to host:port through the proxy (TLS is the caller's): a SOCKS5 handshake
 * for socks5:// and socks5h:// (socks-tunnel.ts), an HTTP CONNECT otherwise.
 */
export function openTunnel(proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<Socket> {
  if (isSocksProxy(proxy)) return openSocksTunnel(proxy, host, port, signal);
  return openConnectTunnel(proxy, host, port, signal);
}

function openConnectTunnel(proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    // Inside the promise: a malformed credential is this tunnel's rejection, not a throw at the caller.
    const headers: Record<string, string> = { host: authority };
    const auth = proxyAuthorization(proxy);
    if (auth !== undefined) headers['proxy-authorization'] = auth;
    const req = http.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
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
