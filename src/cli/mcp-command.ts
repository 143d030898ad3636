// `agentx mcp add|remove|get NAME` (and login|logout, mcp-login.ts): edits the person's MCP file with the JSON it already uses
// (tools/mcp/edit.ts), so a server can be added without opening an editor:
//   agentx mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
//   agentx mcp add db --env DB_URL='${DATABASE_URL}' --tool-timeout 300 -- node db-server.js
//   agentx mcp add docs --url https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'
// Bad input is one line (a UsageError); the file is replaced atomically, 0600, and never a
// project's `.mcp.json`.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hasUserinfo } from '../lib/display-url.ts';
import { userMcpConfigPath } from '../tools/mcp/approval.ts';
import { addServer, entryProblems, getServer, McpEditError, removeServer, withHiddenValues } from '../tools/mcp/edit.ts';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CALL_TOTAL_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS, MAX_TIMEOUT_MS, TIMEOUT_KEYS } from '../tools/mcp/spec.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { sanitizeLine } from '../ui/sanitize.ts';
import { jsonNotForCommand, wantsMcpHelp } from './args.ts';
import { AgentxError, EXIT_FAILED, UsageError } from './errors.ts';

type Entry = Record<string, unknown>;
type TimeoutKey = (typeof TIMEOUT_KEYS)[number];

export type McpCommand = { action: 'add'; name: string; entry: Entry } | { action: 'remove' | 'get' | 'login' | 'logout'; name: string } | { action: 'help' };

const USAGE = 'usage: agentx mcp add NAME [OPTIONS] -- COMMAND [ARGS…] | agentx mcp add NAME --url URL [OPTIONS]';

/** The file's timeout keys, in milliseconds; the flags take seconds, as people think of them. */
const TIMEOUT_FLAGS: Readonly<Record<string, TimeoutKey>> = {
  '--startup-timeout': 'startupTimeoutMs',
  '--tool-timeout': 'toolTimeoutMs',
  '--tool-total-timeout': 'toolTotalTimeoutMs',
};

const DEFAULT_TIMEOUTS: Readonly<Record<TimeoutKey, number>> = {
  startupTimeoutMs: DEFAULT_START_TIMEOUT_MS,
  toolTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  toolTotalTimeoutMs: DEFAULT_CALL_TOTAL_TIMEOUT_MS,
};

const seconds = (ms: number): string => `${ms / 1000} s`;

/** `agentx mcp --help` (also `agentx mcp help`, `agentx mcp add --help`, …). */
export const MCP_HELP = [
  'agentx mcp: the MCP servers in your file (~/.config/agentx/mcp.json); manual: docs/mcp.md',
  '',
  '  agentx mcp list                                   start the servers and show their state',
  '  agentx mcp add NAME [OPTIONS] -- COMMAND [ARGS…]  add a local (stdio) server',
  '  agentx mcp add NAME --url URL [OPTIONS]           add an HTTP server',
  '  agentx mcp get NAME                               show its entry (secrets hidden) and timeouts',
  '  agentx mcp remove NAME                            take it out',
  '  agentx mcp login NAME | logout NAME               OAuth sign-in to an HTTP server',
  '',
  'Options of mcp add:',
  '  -e, --env KEY=VALUE            environment variable of a local server (repeatable)',
  '  --url URL                      address of an HTTP server (no user:password@ in it: use --header or mcp login)',
  '  -H, --header "Name: value"     HTTP header sent to a --url server (repeatable)',
  '  --sse                          the older HTTP+SSE protocol only',
  `  --startup-timeout SECONDS      wait this long for the server to start (default ${DEFAULT_START_TIMEOUT_MS / 1000})`,
  `  --tool-timeout SECONDS         end a call after this long without an answer or progress (default ${DEFAULT_CALL_TIMEOUT_MS / 1000})`,
  `  --tool-total-timeout SECONDS   end a call after this long however much progress it reports (default ${DEFAULT_CALL_TOTAL_TIMEOUT_MS / 1000})`,
  '',
  "Quote ${VAR} references in single quotes ('Bearer ${TOKEN}'): agentx expands them when the server starts.",
  'To send the word "mcp" to the model as a message: agentx -- mcp',
];

function checkName(name: string | undefined, action: string): string {
  const usage = action === 'add' ? USAGE : `usage: agentx mcp ${action} NAME`;
  if (name === undefined || name === '') throw new UsageError(`mcp ${action}: needs a server NAME (${usage})`);
  if (name.startsWith('-')) throw new UsageError(`mcp ${action}: the server NAME comes first, got the option ${JSON.stringify(name)} (${usage})`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new UsageError(`mcp ${action}: server names must not contain control characters`);
  return name;
}

function splitPair(value: string, sep: string, flag: string, shape: string): [string, string] {
  const at = value.indexOf(sep);
  const key = at === -1 ? '' : value.slice(0, at).trim();
  if (key === '') throw new UsageError(`mcp add: ${flag} expects ${shape}, got ${JSON.stringify(value)}`);
  return [key, value.slice(at + sep.length).trim()];
}

/**
 * A timeout flag's SECONDS as the file's milliseconds. Refused: anything but a plain decimal
 * number, 0 (after rounding to whole milliseconds), and more than setTimeout keeps (MAX_TIMEOUT_MS).
 */
export function timeoutFlagMs(flag: string, text: string): number {
  const t = text.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) throw new UsageError(`mcp add: ${flag} expects a number of seconds, got ${JSON.stringify(text)}`);
  const ms = Math.round(Number(t) * 1000);
  if (ms <= 0) throw new UsageError(`mcp add: ${flag} must be more than 0 seconds (at least 0.001), got ${JSON.stringify(text)}`);
  if (ms > MAX_TIMEOUT_MS) {
    throw new UsageError(`mcp add: ${flag} must be at most ${MAX_TIMEOUT_MS / 1000} seconds (about 24.8 days; Node would fire a longer timer at once)`);
  }
  return ms;
}

function parseAdd(rest: readonly string[]): McpCommand {
  const name = checkName(rest[0], 'add');
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const timeouts: Partial<Record<TimeoutKey, number>> = {};
  let url: string | undefined;
  let sse = false;
  let command: string[] | undefined;
  for (let i = 1; i < rest.length; i++) {
    const word = rest[i] ?? '';
    if (word === '--') {
      command = rest.slice(i + 1);
      break;
    }
    // --flag=value as well as --flag value.
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const arg = eq === -1 ? word : word.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) return word.slice(eq + 1);
      const v = rest[i + 1];
      if (v === undefined) throw new UsageError(`mcp add: ${arg} needs a value`);
      i++;
      return v;
    };
    const timeoutKey = Object.hasOwn(TIMEOUT_FLAGS, arg) ? TIMEOUT_FLAGS[arg] : undefined;
    if (arg === '--env' || arg === '-e') {
      const [k, v] = splitPair(value(), '=', '--env', 'KEY=VALUE');
      env[k] = v;
    } else if (arg === '--header' || arg === '-H') {
      const [k, v] = splitPair(value(), ':', '--header', '"Name: value"');
      headers[k] = v;
    } else if (arg === '--url') {
      url = value();
    } else if (arg === '--sse' && eq === -1) {
      sse = true;
    } else if (timeoutKey !== undefined) {
      timeouts[timeoutKey] = timeoutFlagMs(arg, value());
    } else {
      throw new UsageError(`mcp add: unexpected ${JSON.stringify(word)} (put the server's command after --; ${USAGE})`);
    }
  }
  if (url !== undefined && command !== undefined) throw new UsageError('mcp add: give either --url or a command after --, not both');
  let entry: Entry;
  if (url === undefined) {
    if (command === undefined || command.length === 0 || command[0] === '') throw new UsageError(`mcp add: needs a command after -- or --url (${USAGE})`);
    if (Object.keys(headers).length > 0 || sse) throw new UsageError('mcp add: --header and --sse only apply with --url');
    entry = { command: command[0], args: command.slice(1) };
    if (Object.keys(env).length > 0) entry.env = env;
  } else {
    if (Object.keys(env).length > 0) throw new UsageError('mcp add: --env only applies to a local server (a command after --)');
    // Credentials in the URL would be shown by every list and error line; the line never repeats them.
    if (hasUserinfo(url)) {
      throw new UsageError(
        `mcp add: --url must not hold a user name or password (user:password@); send the credential in a header (--header 'Authorization: Bearer \${TOKEN}') or sign in with OAuth (agentx mcp login ${name})`,
      );
    }
    entry = { type: sse ? 'sse' : 'http', url };
    if (Object.keys(headers).length > 0) entry.headers = headers;
  }
  // The keys the file uses, in milliseconds (tools/mcp/spec.ts), always in the same order.
  for (const key of TIMEOUT_KEYS) if (timeouts[key] !== undefined) entry[key] = timeouts[key];
  return { action: 'add', name, entry };
}

/** `args`: the words after `mcp`. Pure; throws a one-line UsageError. */
export function parseMcpCommand(args: readonly string[]): McpCommand {
  if (wantsMcpHelp(args)) return { action: 'help' };
  const [action = '', ...rest] = args;
  const end = args.indexOf('--');
  if ((end === -1 ? args : args.slice(0, end)).includes('--json')) throw jsonNotForCommand(`mcp ${action}`);
  if (action === 'add') return parseAdd(rest);
  if (action === 'remove' || action === 'get' || action === 'login' || action === 'logout') {
    const name = checkName(rest[0], action);
    if (rest.length > 1) throw new UsageError(`mcp ${action}: takes one NAME, got ${rest.length} arguments (usage: agentx mcp ${action} NAME)`);
    return { action, name };
  }
  throw new UsageError(`unknown command 'mcp ${action}'; mcp commands: list, add, remove, get, login, logout`);
}

/** `mcp get`'s last line: each timeout as the server gets it, the file's value or the default. */
export function timeoutsLine(entry: Entry): string {
  const shown = (key: TimeoutKey): string => {
    const v = entry[key];
    return typeof v === 'number' ? seconds(v) : `${seconds(DEFAULT_TIMEOUTS[key])} (default)`;
  };
  return `timeouts: start ${shown('startupTimeoutMs')}, call without an answer or progress ${shown('toolTimeoutMs')}, call in all ${shown('toolTotalTimeoutMs')}`;
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
  if (cmd.action === 'help') {
    for (const line of MCP_HELP) out(line);
    return 0;
  }
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
    // Remote servers are called by the API: agentx's timeouts do not apply to them.
    if (entry.type !== 'remote') print(timeoutsLine(entry));
    // What a session would say about it (a URL with a password, a timeout too long): one line each.
    for (const problem of entryProblems(text, file, cmd.name)) print(`a session does not start it: ${problem}`);
    return 0;
  } catch (err) {
    // The message may quote the file (a JSON parse error): shown through the sanitizer.
    if (err instanceof McpEditError) throw new AgentxError(sanitizeLine(`mcp ${cmd.action}: ${err.message}`), EXIT_FAILED);
    throw err;
  }
}
