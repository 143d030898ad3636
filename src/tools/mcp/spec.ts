// MCP server settings as read from a config file: the shape people already write for other
// agents (`{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`), validated with
// one-line messages that name the file and the server. Pure: text in, specs and problems out.
import { isRecord } from '../../lib/guards.ts';
import { jsonParseError } from '../../lib/json-error.ts';
import type { McpApprovalPolicy } from '../../wire/items.ts';
import { shownWord } from '../../lib/text.ts';
import { displayUrl, hasUserinfo } from '../../lib/display-url.ts';

export type McpScope = 'project' | 'user';

/** Per server in the file as `startupTimeoutMs`, `toolTimeoutMs` and `toolTotalTimeoutMs`. */
export const DEFAULT_START_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
/** However much progress a call reports, it ends after this long (per server: `toolTotalTimeoutMs`). */
export const DEFAULT_CALL_TOTAL_TIMEOUT_MS = 30 * 60_000;
/**
 * The longest delay setTimeout keeps (2^31-1 ms, about 24.8 days): Node runs a longer one after
 * 1 ms, so a timeout above it would end every start or call at once.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The timeout keys of an entry, in the order `agentx mcp add` and `get` show them. */
export const TIMEOUT_KEYS = ['startupTimeoutMs', 'toolTimeoutMs', 'toolTotalTimeoutMs'] as const;

interface SpecBase {
  name: string;
  /** The config file the server came from, for messages and for resolving a relative cwd. */
  file: string;
  scope: McpScope;
  startupTimeoutMs?: number;
  toolTimeoutMs?: number;
  toolTotalTimeoutMs?: number;
}

/** Values still hold their `${VAR}` references; they are expanded when the server starts. */
export interface StdioServerSpec extends SpecBase {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** `http` is Streamable HTTP with a fallback to the older HTTP+SSE; `sse` is the older one only. */
export interface HttpServerSpec extends SpecBase {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type McpServerSpec = StdioServerSpec | HttpServerSpec;

/**
 * `"type": "remote"`: a server the API calls itself (hosted MCP). Its url and headers keep their
 * `${VAR}` references until a session offers it (tools/mcp/remote.ts).
 */
export interface RemoteServerSpec extends Pick<SpecBase, 'name' | 'file' | 'scope'> {
  transport: 'remote';
  url: string;
  headers: Record<string, string>;
  requireApproval: McpApprovalPolicy;
  allowedTools?: string[];
}

export interface ParsedMcpFile {
  servers: McpServerSpec[];
  /** Hosted remote servers (`"type": "remote"`), offered to the API rather than started. */
  remote: RemoteServerSpec[];
  /** One line each: the file, the server and what is wrong. Those servers are left out. */
  problems: string[];
  /** One line each: entries deliberately not used (disabled). */
  skipped: string[];
}

type Json = Record<string, unknown>;

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** The first key whose value is not a string, to name it in the message. */
function firstNonString(v: Json): string {
  return Object.keys(v).find((k) => typeof v[k] !== 'string') ?? '';
}

class SpecError extends Error {}

function optionalTimeout(entry: Json, key: string): number | undefined {
  const v = entry[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new SpecError(`"${key}" must be a positive number of milliseconds`);
  if (v > MAX_TIMEOUT_MS) throw new SpecError(`"${key}" must be at most ${MAX_TIMEOUT_MS} (about 24.8 days; Node would fire a longer timer at once)`);
  return v;
}

function optionalRecord(entry: Json, key: string): Record<string, string> {
  const v = entry[key];
  if (v === undefined) return {};
  if (!isRecord(v)) throw new SpecError(`"${key}" must be an object of strings`);
  if (!isStringRecord(v)) throw new SpecError(`"${key}.${firstNonString(v)}" must be a string`);
  return { ...v };
}

const TRANSPORT_TYPES = new Set(['stdio', 'http', 'sse', 'streamable-http', 'streamableHttp']);

function stdioSpec(entry: Json, base: SpecBase): StdioServerSpec {
  const { command, args, cwd } = entry;
  if (typeof command !== 'string' || command.trim() === '') throw new SpecError('"command" must be a non-empty string');
  if (args !== undefined && !isStringArray(args)) throw new SpecError('"args" must be an array of strings');
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) throw new SpecError('"cwd" must be a non-empty string');
  if (entry.headers !== undefined) throw new SpecError('"headers" only applies to a server with a "url"');
  const spec: StdioServerSpec = { ...base, transport: 'stdio', command, args: args ? [...args] : [], env: optionalRecord(entry, 'env') };
  if (typeof cwd === 'string') spec.cwd = cwd;
  return spec;
}

function httpSpec(entry: Json, base: SpecBase, type: unknown): HttpServerSpec {
  const { url } = entry;
  if (typeof url !== 'string' || url.trim() === '') throw new SpecError('"url" must be a non-empty string');
  refuseUserinfo(url, 'http');
  // A URL with references is checked after expansion, when the server starts.
  if (!url.includes('${')) checkUrl(url);
  for (const key of ['args', 'env', 'cwd']) {
    if (entry[key] !== undefined) throw new SpecError(`"${key}" only applies to a server with a "command"`);
  }
  return { ...base, transport: type === 'sse' ? 'sse' : 'http', url, headers: optionalRecord(entry, 'headers') };
}

/**
 * The one line that refuses `scheme://user:password@host` (the credentials would be shown by
 * every list and error line, and kept in the session's logs): what to use instead. `remote`
 * servers are called by the API, so only headers apply to them, not `agentx mcp login`.
 */
export function userinfoProblem(kind: 'http' | 'remote'): string {
  const login = kind === 'http' ? ', or sign in with OAuth (agentx mcp login NAME)' : '';
  return `"url" must not hold a user name or password (user:password@); send the credential in "headers" ("Authorization": "Bearer \${TOKEN}")${login}`;
}

function refuseUserinfo(url: string, kind: 'http' | 'remote'): void {
  if (hasUserinfo(url)) throw new SpecError(userinfoProblem(kind));
}

/**
 * Throws SpecError unless `url` is an absolute http(s) URL without credentials in it. `shown` is
 * what the message quotes: the text as written, since the expanded one may hold a token, and that
 * as displayUrl shows it (no userinfo, no query values).
 */
export function checkUrl(url: string, shown: string = url, kind: 'http' | 'remote' = 'http'): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SpecError(`"url" is not a valid URL: ${displayUrl(shown)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new SpecError(`"url" must be http(s), got ${parsed.protocol}`);
  // A `${VAR}` that expanded to `user:pw@host` is refused as the written one is.
  if (parsed.username !== '' || parsed.password !== '') throw new SpecError(userinfoProblem(kind));
}

export function isSpecError(err: unknown): err is Error {
  return err instanceof SpecError;
}

function toolNameFilter(v: unknown, key: string): { tool_names: string[] } {
  if (!isRecord(v) || !isStringArray(v.tool_names) || Object.keys(v).some((k) => k !== 'tool_names')) {
    throw new SpecError(`"require_approval.${key}" must be {"tool_names": [names]}`);
  }
  return { tool_names: [...v.tool_names] };
}

/** `"always"` (the default: the server asks before each call), `"never"`, or per-tool lists. */
function approvalPolicy(v: unknown): McpApprovalPolicy {
  if (v === undefined) return 'always';
  if (v === 'always' || v === 'never') return v;
  if (isRecord(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k === 'always' || k === 'never')) {
    const policy: { always?: { tool_names: string[] }; never?: { tool_names: string[] } } = {};
    if (v.always !== undefined) policy.always = toolNameFilter(v.always, 'always');
    if (v.never !== undefined) policy.never = toolNameFilter(v.never, 'never');
    return policy;
  }
  throw new SpecError('"require_approval" must be "always", "never" or {"never": {"tool_names": [...]}}');
}

function remoteSpec(entry: Json, name: string, file: string, scope: McpScope): RemoteServerSpec {
  for (const key of ['command', 'args', 'env', 'cwd']) {
    if (entry[key] !== undefined) throw new SpecError(`"${key}" does not apply to a remote server (the API connects to its "url")`);
  }
  if (entry.url !== undefined && entry.server_url !== undefined) throw new SpecError('has both "url" and "server_url"; give one');
  const url = entry.url ?? entry.server_url;
  if (typeof url !== 'string' || url.trim() === '') throw new SpecError('a remote server needs "url" (a non-empty string)');
  refuseUserinfo(url, 'remote');
  if (!url.includes('${')) checkUrl(url, url, 'remote');
  const spec: RemoteServerSpec = {
    name,
    file,
    scope,
    transport: 'remote',
    url,
    headers: optionalRecord(entry, 'headers'),
    requireApproval: approvalPolicy(entry.require_approval),
  };
  if (entry.allowed_tools !== undefined) {
    if (!isStringArray(entry.allowed_tools)) throw new SpecError('"allowed_tools" must be an array of tool names');
    spec.allowedTools = [...entry.allowed_tools];
  }
  return spec;
}

/** One entry of `mcpServers`: a spec, a reason it is skipped, or a SpecError. */
function parseEntry(name: string, entry: unknown, file: string, scope: McpScope): McpServerSpec | RemoteServerSpec | { skipped: string } {
  if (!isRecord(entry)) throw new SpecError('must be an object');
  const { type } = entry;
  if (type === 'remote') {
    if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') throw new SpecError('"disabled" must be true or false');
    return entry.disabled === true ? { skipped: 'disabled' } : remoteSpec(entry, name, file, scope);
  }
  if (type !== undefined && (typeof type !== 'string' || !TRANSPORT_TYPES.has(type))) {
    throw new SpecError(`unknown "type" ${JSON.stringify(type)} (expected stdio, http, sse or remote)`);
  }
  if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') throw new SpecError('"disabled" must be true or false');
  if (entry.disabled === true) return { skipped: 'disabled' };
  const base: SpecBase = { name, file, scope };
  const startupTimeoutMs = optionalTimeout(entry, 'startupTimeoutMs');
  const toolTimeoutMs = optionalTimeout(entry, 'toolTimeoutMs');
  if (startupTimeoutMs !== undefined) base.startupTimeoutMs = startupTimeoutMs;
  if (toolTimeoutMs !== undefined) base.toolTimeoutMs = toolTimeoutMs;
  const toolTotalTimeoutMs = optionalTimeout(entry, 'toolTotalTimeoutMs');
  if (toolTotalTimeoutMs !== undefined) base.toolTotalTimeoutMs = toolTotalTimeoutMs;
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand && hasUrl) throw new SpecError('has both "command" and "url"; give one');
  if (!hasCommand && !hasUrl) throw new SpecError('needs "command" (a local server) or "url" (a remote one)');
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') throw new SpecError(`"type": "${String(type)}" needs a "url", not a "command"`);
    return stdioSpec(entry, base);
  }
  if (type === 'stdio') throw new SpecError('"type": "stdio" needs a "command", not a "url"');
  return httpSpec(entry, base, type);
}

/** Control characters in a name would garble every line that shows it. */
function nameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'server names must not be empty';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'server names must not contain control characters';
  return undefined;
}

export function parseMcpFile(text: string, file: string, scope: McpScope): ParsedMcpFile {
  const result: ParsedMcpFile = { servers: [], remote: [], problems: [], skipped: [] };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    result.problems.push(`mcp: ${jsonParseError(file, text, err)}`);
    return result;
  }
  if (!isRecord(root) || !isRecord(root.mcpServers)) {
    result.problems.push(`mcp: ${file}: expected {"mcpServers": {…}}`);
    return result;
  }
  for (const [name, entry] of Object.entries(root.mcpServers)) {
    const badName = nameProblem(name);
    const where = `mcp: ${file}: server ${JSON.stringify(name)}`;
    if (badName !== undefined) {
      result.problems.push(`${where}: ${badName}`);
      continue;
    }
    try {
      const parsed = parseEntry(name, entry, file, scope);
      if ('skipped' in parsed) result.skipped.push(`${where}: skipped: ${parsed.skipped}`);
      else if (parsed.transport === 'remote') result.remote.push(parsed);
      else result.servers.push(parsed);
    } catch (err) {
      if (!isSpecError(err)) throw err;
      result.problems.push(`${where}: ${err.message}`);
    }
  }
  return result;
}

/** A short description of what a server runs or where it connects, for approval prompts and lists. */
export function describeSpec(spec: McpServerSpec | RemoteServerSpec): string {
  // Every shown text quoted where needed: a URL with escapes once erased another server's line.
  if (spec.transport === 'stdio') return [spec.command, ...spec.args].map(shownWord).join(' ');
  if (spec.transport === 'remote') {
    const headers = Object.keys(spec.headers);
    return `${shownWord(displayUrl(spec.url))} (called by the API${headers.length > 0 ? `, with headers ${headers.map(shownWord).join(', ')}` : ''})`;
  }
  return `${shownWord(displayUrl(spec.url))}${spec.transport === 'sse' ? ' (SSE)' : ''}`;
}
