// The fetch MCP's HTTP transports use: Node's own fetch when a server is reached directly, and
// agentx's node:http transport (model/node-fetch.ts) when a proxy applies (HTTPS_PROXY,
// HTTP_PROXY, ALL_PROXY, minus NO_PROXY) or a private CA is configured (AGENTX_CA_FILE, from the
// environment or the config file, passed in by the caller) — the same
// rules, CONNECT tunnels and proxy credentials as the API's requests. Node 20's fetch honours
// neither. The MCP SDK reads the body as a web stream (SSE), so the answer is handed over as a
// web Response. Lives in the front-ends: tools may not import the model layer.
import { Readable } from 'node:stream';
import { proxyFor } from '../lib/proxy-env.ts';
import { createNodeFetch } from '../model/node-fetch.ts';

function urlOf(input: string | URL | Request): URL {
  return new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
}

/** True when the request must not go through Node's fetch (it would skip the proxy or the CA). */
export function needsNodeTransport(url: URL, env: NodeJS.ProcessEnv, caFile: string | undefined): boolean {
  if (url.protocol === 'https:' && (caFile ?? '') !== '') return true;
  // A malformed proxy variable is reported by nodeFetch, in its one line.
  try {
    return proxyFor(url, env) !== undefined;
  } catch {
    return true;
  }
}

/** The fetch for MCP's HTTP transports; `caFile` is AGENTX_CA_FILE as configured. */
export function createMcpFetch(caFile: string | undefined): typeof fetch {
  const nodeFetch = createNodeFetch({ caFile });
  return async (input, init) => {
    // nodeFetch reads the proxy environment per request; so does this choice.
    if (!needsNodeTransport(urlOf(input), process.env, caFile)) return fetch(input, init);
    const lite = await nodeFetch(input, init ?? {});
    const body = lite.body === null ? null : (Readable.toWeb(lite.body as unknown as Readable) as ReadableStream<Uint8Array>);
    const headers = new Headers();
    for (const [k, v] of lite.headers as unknown as Iterable<[string, string]>) headers.append(k, v);
    return new Response(body, { status: lite.status, statusText: lite.statusText, headers });
  };
}
