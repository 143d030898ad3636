// An HTTP CONNECT tunnel through a forward proxy, for https (and wss) targets: the proxy sees
// only host:port, TLS runs end to end inside the tunnel. Credentials in the proxy URL become a
// Basic Proxy-Authorization header; they never appear in an error (displayProxy).
import http from 'node:http';
import type { Socket } from 'node:net';
import { displayProxy } from './proxy-env.ts';

export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/** An error whose message names the proxy (and the code a connection failure had). */
export function proxyError(proxy: URL, what: string, cause?: NodeJS.ErrnoException): Error {
  const code = cause?.code !== undefined ? `: ${cause.code}` : '';
  // No `cause`: the one-line error shows the innermost cause, and this line is the one that names the proxy.
  return new Error(`proxy ${displayProxy(proxy)} ${what}${code}`);
}

/** Opens a raw socket to host:port through the proxy (TLS is the caller's). */
export function openTunnel(proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const headers: Record<string, string> = { host: authority };
  const auth = proxyAuthorization(proxy);
  if (auth !== undefined) headers['proxy-authorization'] = auth;
  return new Promise((resolve, reject) => {
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
