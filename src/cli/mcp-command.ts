// `agentx mcp add|remove|get NAME` (and login|logout, mcp-login.ts): edits the person's MCP file with the JSON it already uses
// (tools/mcp/edit.ts), so a server can be added without opening an editor:
//   agentx mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
//   agentx mcp add db --env DB_URL='${DATABASE_URL}' -- node db-server.js
//   agentx mcp add docs --url https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'
// Bad input is one line (a UsageError); the file is replaced atomically, 0600, and never a
// project's `.mcp.json`.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { userMcpConfigPath } from '../tools/mcp/approval.ts';
import { addServer, getServer, McpEditError, removeServer, withHiddenValues } from '../tools/mcp/edit.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { sanitizeLine } from '../ui/sanitize.ts';
import { AgentxError, EXIT_FAILED, UsageError } from './errors.ts';

type Entry = Record<string, unknown>;

export type McpCommand = { action: 'add'; name: string; entry: Entry } | { action: 'remove' | 'get' | 'login' | 'logout'; name: string };

const USAGE = 'usage: agentx mcp add NAME [--env K=V]… -- COMMAND [ARGS…] | agentx mcp add NAME --url URL [--header "K: V"]… [--sse]';

function checkName(name: string | undefined, action: string): string {
  if (name === undefined || name === '' || name.startsWith('-'))
    throw new UsageError(`mcp ${action}: needs a server NAME (${action === 'add' ? USAGE : `agentx mcp ${action} NAME`})`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new UsageError(`mcp ${action}: server names must not contain control characters`);
  return name;
}

function splitPair(value: string, sep: string, flag: string, shape: string): [string, string] {
  const at = value.indexOf(sep);
  const key = at === -1 ? '' : value.slice(0, at).trim();
  if (key === '') throw new UsageError(`mcp add: ${flag} expects ${shape}, got ${JSON.stringify(value)}`);
  return [key, value.slice(at + sep.length).trim()];
}

function parseAdd(rest: readonly string[]): McpCommand {
  const name = checkName(rest[0], 'add');
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let url: string | undefined;
  let sse = false;
  let command: string[] | undefined;
  for (let i = 1; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    const value = (): string => {
      const v = rest[i + 1];
      if (v === undefined) throw new UsageError(`mcp add: ${arg} needs a value`);
      i++;
      return v;
    };
    if (arg === '--') {
      command = rest.slice(i + 1);
      break;
    }
    if (arg === '--env' || arg === '-e') {
      const [k, v] = splitPair(value(), '=', '--env', 'KEY=VALUE');
      env[k] = v;
    } else if (arg === '--header' || arg === '-H') {
      const [k, v] = splitPair(value(), ':', '--header', '"Name: value"');
      headers[k] = v;
    } else if (arg === '--url') {
      url = value();
    } else if (arg === '--sse') {
      sse = true;
    } else {
      throw new UsageError(`mcp add: unexpected ${JSON.stringify(arg)} (put the server's command after --; ${USAGE})`);
    }
  }
  if (url !== undefined && command !== undefined) throw new UsageError('mcp add: give either --url or a command after --, not both');
  if (url === undefined) {
    if (command === undefined || command.length === 0 || command[0] === '') throw new UsageError(`mcp add: needs a command after -- or --url (${USAGE})`);
    if (Object.keys(headers).length > 0 || sse) throw new UsageError('mcp add: --header and --sse only apply with --url');
    const entry: Entry = { command: command[0], args: command.slice(1) };
    if (Object.keys(env).length > 0) entry.env = env;
    return { action: 'add', name, entry };
  }
  if (Object.keys(env).length > 0) throw new UsageError('mcp add: --env only applies to a local server (a command after --)');
  const entry: Entry = { type: sse ? 'sse' : 'http', url };
  if (Object.keys(headers).length > 0) entry.headers = headers;
  return { action: 'add', name, entry };
}

/** `args`: the words after `mcp`. Pure; throws a one-line UsageError. */
export function parseMcpCommand(args: readonly string[]): McpCommand {
  const [action = '', ...rest] = args;
  if (action === 'add') return parseAdd(rest);
  if (action === 'remove' || action === 'get' || action === 'login' || action === 'logout') {
    const name = checkName(rest[0], action);
    if (rest.length > 1) throw new UsageError(`mcp ${action}: takes one NAME, got ${rest.length}`);
    return { action, name };
  }
  throw new UsageError(`unknown command 'mcp ${action}'; mcp commands: list, add, remove, get, login, logout`);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
    if (code === 'ENOENT') return undefined;
    throw new AgentxError(`cannot read ${file} (${code || String(err)})`, EXIT_FAILED);
  }
}

function write(file: string, text: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // 0600: header values and environment entries are often tokens.
    writeFileAtomicSync(file, text, 0o600);
  } catch (err) {
    throw new AgentxError(`cannot write ${file} (${err instanceof Error ? err.message : String(err)})`, EXIT_FAILED);
  }
}

/** Runs the command; `out` prints one line (already sanitized here). Returns the exit status. */
export async function runMcpCommand(args: readonly string[], env: NodeJS.ProcessEnv, out: (line: string) => void, projectDir: string): Promise<number> {
  const cmd = parseMcpCommand(args);
  if (cmd.action === 'login' || cmd.action === 'logout') {
    // The SDK, node:http and the proxy-aware fetch load only for these two.
    const [{ runMcpLogin, runMcpLogout }, { createMcpFetch }, { caFileSetting }] = await Promise.all([
      import('./mcp-login.ts'),
      import('../frontends/mcp-fetch.ts'),
      import('../config/config.ts'),
    ]);
    const o = { name: cmd.name, env, projectDir, out };
    return cmd.action === 'login' ? runMcpLogin({ ...o, fetch: createMcpFetch(caFileSetting(env)) }) : runMcpLogout(o);
  }
  const file = userMcpConfigPath(env);
  const print = (line: string): void => out(sanitizeLine(line));
  try {
    const text = readText(file);
    if (cmd.action === 'add') {
      write(file, addServer(text, file, cmd.name, cmd.entry));
      print(`mcp: added ${cmd.name} to ${file}`);
      return 0;
    }
    if (cmd.action === 'remove') {
      write(file, removeServer(text, file, cmd.name));
      print(`mcp: removed ${cmd.name} from ${file}`);
      return 0;
    }
    const entry = getServer(text, file, cmd.name);
    if (entry === undefined) throw new McpEditError(`no server ${JSON.stringify(cmd.name)} in ${file}`);
    print(`${cmd.name} (in ${file}; values other than \${VAR} references hidden):`);
    for (const line of JSON.stringify(withHiddenValues(entry), null, 2).split('\n')) print(line);
    return 0;
  } catch (err) {
    // The message may quote the file (a JSON parse error): shown through the sanitizer.
    if (err instanceof McpEditError) throw new AgentxError(sanitizeLine(`mcp ${cmd.action}: ${err.message}`), EXIT_FAILED);
    throw err;
  }
}
