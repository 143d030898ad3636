// `agentx mcp login NAME` / `agentx mcp logout NAME`: OAuth 2.1 sign-in to a remote (HTTP) MCP
// server with the SDK's client auth (discovery, dynamic registration, PKCE, code exchange). A
// local callback on 127.0.0.1 receives the code; the authorization URL is printed, and opened
// with xdg-open only when a display exists. The tokens go to the private state store, 0600
// (tools/mcp/oauth-store.ts); sessions then use and refresh them (tools/mcp/connection.ts).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadMcpConfig } from '../tools/mcp/config.ts';
import { StoredOAuthProvider } from '../tools/mcp/oauth-provider.ts';
import { oauthKey, oauthStorePath, readOAuthEntry, writeOAuthEntry } from '../tools/mcp/oauth-store.ts';
import { resolveSpec } from '../tools/mcp/resolve.ts';
import { redactUrls } from '../lib/display-url.ts';
import { sanitizeLine } from '../ui/sanitize.ts';
import { AgentxError, EXIT_FAILED } from './errors.ts';

const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

interface LoginOptions {
  name: string;
  env: NodeJS.ProcessEnv;
  projectDir: string;
  out: (line: string) => void;
  fetch: typeof fetch;
}

/** The server's URL, ${VAR} expanded; only HTTP servers sign in (stdio ones get their credentials from env). */
async function serverUrl(name: string, env: NodeJS.ProcessEnv, projectDir: string): Promise<string> {
  const config = await loadMcpConfig({ projectDir, env });
  const spec = config.servers().find((s) => s.name === name);
  if (spec === undefined) throw new AgentxError(sanitizeLine(`mcp: no server ${JSON.stringify(name)} is configured (agentx mcp list shows them)`), EXIT_FAILED);
  if (spec.transport === 'stdio') throw new AgentxError(sanitizeLine(`mcp: ${name} is a local (stdio) server; only servers with a "url" sign in`), EXIT_FAILED);
  const resolved = resolveSpec(spec, env, projectDir);
  if (!resolved.ok) throw new AgentxError(sanitizeLine(`mcp: ${name}: ${resolved.reason}`), EXIT_FAILED);
  if (resolved.server.transport === 'stdio') throw new AgentxError('mcp: not an HTTP server', EXIT_FAILED);
  return resolved.server.url;
}

function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  if ((env.DISPLAY ?? '') === '' && (env.WAYLAND_DISPLAY ?? '') === '') return;
  try {
    const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is printed; opening it is a convenience.
  }
}

interface Callback {
  redirectUrl: string;
  code: Promise<string>;
  close(): void;
}

/** The local redirect target: one GET /callback with the code and the expected state. */
async function startCallback(state: string, timeoutMs: number): Promise<Callback> {
  let settle: { resolve: (code: string) => void; reject: (err: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get('error');
    const got = url.searchParams.get('code');
    if (url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('agentx: the sign-in answer does not match this sign-in (state); nothing was saved.\n');
      settle?.reject(new Error('the callback carried the wrong state'));
      return;
    }
    if (error !== null || got === null) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('agentx: sign-in failed; see the terminal.\n');
      settle?.reject(
        new Error(
          `the authorization server answered ${error ?? 'without a code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description') ?? ''}` : ''}`,
        ),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('agentx: signed in. You can close this tab.\n');
    settle?.resolve(got);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const timer = setTimeout(() => settle?.reject(new Error(`no sign-in within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function runMcpLogin(o: LoginOptions): Promise<number> {
  const url = await serverUrl(o.name, o.env, o.projectDir);
  const storePath = oauthStorePath(o.env);
  const key = oauthKey(o.name, url);
  const { randomBytes } = await import('node:crypto');
  const state = randomBytes(16).toString('base64url');
  const timeoutMs = Number(o.env.AGENTX_MCP_LOGIN_TIMEOUT_MS ?? '') || DEFAULT_LOGIN_TIMEOUT_MS;
  const callback = await startCallback(state, timeoutMs);
  const sdk = await import('@modelcontextprotocol/client');
  // A fresh sign-in: the client is registered for this callback's address, old tokens dropped.
  writeOAuthEntry(storePath, key, undefined);
  const provider = new StoredOAuthProvider({
    storePath,
    key,
    server: o.name,
    redirectUrl: callback.redirectUrl,
    state,
    onRedirect: (authUrl) => {
      o.out(sanitizeLine(`Open this address in a browser to sign in to ${o.name}:`));
      o.out(sanitizeLine(authUrl.href));
      openBrowser(authUrl.href, o.env);
    },
  });
  try {
    const first = await sdk.auth(provider, { serverUrl: url, fetchFn: o.fetch });
    if (first === 'REDIRECT') {
      const code = await callback.code;
      await sdk.auth(provider, { serverUrl: url, authorizationCode: code, fetchFn: o.fetch });
    }
  } catch (err) {
    // The SDK's message may quote the server's URL (or a metadata URL built from it), query and all.
    throw new AgentxError(sanitizeLine(`mcp login ${o.name}: ${redactUrls(err instanceof Error ? err.message : String(err))}`), EXIT_FAILED);
  } finally {
    callback.close();
  }
  if (readOAuthEntry(storePath, key)?.tokens === undefined) throw new AgentxError(`mcp login ${o.name}: the server gave no tokens`, EXIT_FAILED);
  o.out(sanitizeLine(`mcp: signed in to ${o.name}; the tokens are kept in ${storePath}`));
  return 0;
}

export async function runMcpLogout(o: Omit<LoginOptions, 'fetch'>): Promise<number> {
  const url = await serverUrl(o.name, o.env, o.projectDir);
  const storePath = oauthStorePath(o.env);
  const key = oauthKey(o.name, url);
  if (readOAuthEntry(storePath, key) === undefined) {
    o.out(sanitizeLine(`mcp: not signed in to ${o.name}`));
    return 0;
  }
  writeOAuthEntry(storePath, key, undefined);
  o.out(sanitizeLine(`mcp: signed out of ${o.name}; its tokens were deleted from ${storePath}`));
  return 0;
}
