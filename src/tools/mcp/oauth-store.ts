// Where OAuth sign-ins to MCP servers are kept: $XDG_STATE_HOME/agentx/mcp-oauth.json (0600, in
// a 0700 directory), outside every project, one entry per server name *and* URL — a config edit
// that points the name at another URL does not hand it the old server's tokens. Tokens never
// appear in a log line, an error, the session state or the conversation log.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { homeDir } from '../../paths.ts';
import { writeFileAtomicSync } from '../../lib/atomic-file.ts';
import { isRecord } from '../../lib/guards.ts';

export interface OAuthEntry {
  /** The client as registered with the authorization server (dynamic registration). */
  client?: Record<string, unknown>;
  /** The tokens, as the SDK saved them (access, refresh, expiry). */
  tokens?: Record<string, unknown>;
  savedAt: string;
}

export function oauthStorePath(env: NodeJS.ProcessEnv): string {
  const state =
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== '' && isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : join(homeDir(env), '.local', 'state');
  return join(state, 'agentx', 'mcp-oauth.json');
}

export function oauthKey(server: string, url: string): string {
  return `${server} ${url}`;
}

function readAll(path: string): Record<string, OAuthEntry> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // Missing or unreadable: no sign-ins (the worst case is signing in again).
    return {};
  }
  const out: Record<string, OAuthEntry> = {};
  if (!isRecord(parsed) || !isRecord(parsed.servers)) return out;
  for (const [key, v] of Object.entries(parsed.servers)) {
    if (!isRecord(v) || typeof v.savedAt !== 'string') continue;
    const entry: OAuthEntry = { savedAt: v.savedAt };
    if (isRecord(v.client)) entry.client = v.client;
    if (isRecord(v.tokens)) entry.tokens = v.tokens;
    out[key] = entry;
  }
  return out;
}

export function readOAuthEntry(path: string, key: string): OAuthEntry | undefined {
  return readAll(path)[key];
}

/** Replaces (or, with undefined, removes) one entry; the file is rewritten by rename, 0600. */
export function writeOAuthEntry(path: string, key: string, entry: OAuthEntry | undefined): void {
  const all = readAll(path);
  if (entry === undefined) delete all[key];
  else all[key] = entry;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(path, `${JSON.stringify({ version: 1, servers: all }, null, 2)}\n`, 0o600);
}
