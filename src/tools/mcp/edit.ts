// Editing the person's MCP file ($XDG_CONFIG_HOME/agentx/mcp.json) for `agentx mcp add|remove`:
// pure transitions on its text (other servers and keys are kept as they are), each result
// checked by the same parser sessions use, so what is written is what a session will start.
// Never a project's `.mcp.json`: that one belongs to the repository and is reviewed, not edited.
import { displayUrl } from '../../lib/display-url.ts';
import { isRecord } from '../../lib/guards.ts';
import { jsonParseError } from '../../lib/json-error.ts';
import { parseMcpFile } from './spec.ts';

export class McpEditError extends Error {}

type Json = Record<string, unknown>;

/** The file's root with its `mcpServers` object; `undefined` text is a file that does not exist yet. */
function readRoot(text: string | undefined, file: string): { root: Json; servers: Json } {
  if (text === undefined || text.trim() === '') {
    const servers: Json = {};
    return { root: { mcpServers: servers }, servers };
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    throw new McpEditError(`${jsonParseError(file, text, err)}; fix it by hand first`);
  }
  if (!isRecord(root)) throw new McpEditError(`${file}: expected {"mcpServers": {…}}; fix it by hand first`);
  if (root.mcpServers === undefined) root.mcpServers = {};
  if (!isRecord(root.mcpServers)) throw new McpEditError(`${file}: "mcpServers" is not an object; fix it by hand first`);
  return { root, servers: root.mcpServers };
}

function render(root: Json): string {
  return `${JSON.stringify(root, null, 2)}\n`;
}

/** The file's text with `name` added as `entry`; refuses a name already there. */
export function addServer(text: string | undefined, file: string, name: string, entry: Json): string {
  const { root, servers } = readRoot(text, file);
  if (Object.hasOwn(servers, name)) throw new McpEditError(`server ${JSON.stringify(name)} already exists in ${file} (agentx mcp remove ${name} first)`);
  servers[name] = entry;
  const next = render(root);
  // The entry is checked as a session would read it: a bad value is refused here, not at start.
  const problem = parseMcpFile(next, file, 'user').problems.find((p) => p.includes(`server ${JSON.stringify(name)}`));
  if (problem !== undefined) throw new McpEditError(problem.replace(/^mcp: /, ''));
  return next;
}

/** The file's text without `name`; refuses a name that is not there. */
export function removeServer(text: string | undefined, file: string, name: string): string {
  const { root, servers } = readRoot(text, file);
  if (!Object.hasOwn(servers, name)) throw new McpEditError(`no server ${JSON.stringify(name)} in ${file}`);
  delete servers[name];
  return render(root);
}

/** The entry of `name` as the file has it, or undefined. */
export function getServer(text: string | undefined, file: string, name: string): Json | undefined {
  const { servers } = readRoot(text, file);
  const entry = Object.hasOwn(servers, name) ? servers[name] : undefined;
  return isRecord(entry) ? entry : undefined;
}

const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$|^Bearer \$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * The entry for showing: values of `env` and `headers` that are not a `${VAR}` reference are
 * hidden (they are often tokens, and a shown line ends up in scrollback and screen shares), and
 * the URL is shown without user name, password and query values (displayUrl).
 */
export function withHiddenValues(entry: Json): Json {
  const out: Json = { ...entry };
  for (const key of ['url', 'server_url']) {
    const v = entry[key];
    if (typeof v === 'string') out[key] = displayUrl(v);
  }
  for (const key of ['env', 'headers']) {
    const v = entry[key];
    if (!isRecord(v)) continue;
    out[key] = Object.fromEntries(Object.entries(v).map(([k, value]) => [k, typeof value === 'string' && REFERENCE.test(value) ? value : '<hidden>']));
  }
  return out;
}

/**
 * What a session would say about the entry `name` (it is left out, or skipped as disabled), one
 * line each without the file and server prefix; the lines never quote credentials (spec.ts).
 */
export function entryProblems(text: string | undefined, file: string, name: string): string[] {
  if (text === undefined) return [];
  const parsed = parseMcpFile(text, file, 'user');
  const prefix = `mcp: ${file}: server ${JSON.stringify(name)}: `;
  return [...parsed.problems, ...parsed.skipped].filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
}
