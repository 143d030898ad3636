// Following HTTP redirects the way fetch does (WHATWG Fetch "HTTP-redirect fetch"), for the
// node:http transport in node-fetch.ts: a proxy or gateway in front of the API may answer
// 307/308 (or 301/302/303). Pure: decides the next request, moves no bytes.

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Credentials that must not reach another origin (fetch drops these on a cross-origin hop). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Headers that describe a body, dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export interface HopRequest {
  url: URL;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/**
 * The request to send after a redirect answer, or an error message. `hops` counts the
 * redirects already followed. Authorization (and cookies) are kept only on the same origin.
 */
export function nextHop(current: HopRequest, status: number, location: string | undefined, hops: number): HopRequest | { error: string } {
  if (location === undefined || location === '') return { error: `redirect ${status} without a Location header` };
  if (hops >= MAX_REDIRECTS) return { error: `too many redirects (more than ${MAX_REDIRECTS})` };
  let url: URL;
  try {
    url = new URL(location, current.url);
  } catch {
    return { error: `redirect ${status} to an invalid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `redirect ${status} to a non-HTTP URL (${url.protocol})` };
  let { method, body } = current;
  const headers = { ...current.headers };
  // 301/302 turn a POST into a GET, 303 turns anything but GET/HEAD into a GET: without a body.
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET';
    body = undefined;
    for (const h of BODY_HEADERS) delete headers[h];
  }
  if (url.origin !== current.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
  // The Host header belongs to the old URL; node:http sets the right one from the new URL.
  delete headers.host;
  return { url, method, headers, body };
}
