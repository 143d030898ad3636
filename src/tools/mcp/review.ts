// What a project `.mcp.json` entry would run or send, for the person who approves it, and the
// entries it may never hold (issue 23 §4). A cloned repository chooses these files: the prompt
// must show everything that reaches a program or a server (command, args, cwd, the names of the
// env variables and headers it sets, every `${VAR}` it reads from the person's environment),
// and a project can never hand agentx's own key to a server, whatever the person answers.
import { displayUrl } from '../../lib/display-url.ts';
import { shownWord } from '../../lib/text.ts';
import { SECRET_ENV_NAMES } from '../../sandbox/env.ts';
import { referencedVariables } from './expand.ts';
import type { McpServerSpec, ParsedMcpFile, RemoteServerSpec } from './spec.ts';

type AnySpec = McpServerSpec | RemoteServerSpec;

/** Every text of the entry that is expanded from the environment. */
function expandedTexts(spec: AnySpec): string[] {
  // In the order the prompt shows them.
  if (spec.transport === 'stdio') return [spec.command, ...spec.args, ...(spec.cwd === undefined ? [] : [spec.cwd]), ...Object.values(spec.env)];
  return [spec.url, ...Object.values(spec.headers)];
}

/** Every `${VAR}` the entry reads, in order of first use. */
export function specVariables(spec: AnySpec): string[] {
  const names: string[] = [];
  for (const text of expandedTexts(spec)) for (const name of referencedVariables(text)) if (!names.includes(name)) names.push(name);
  return names;
}

function names(record: Readonly<Record<string, string>>): string {
  return Object.keys(record).map(shownWord).join(', ');
}

/**
 * The lines of the approval prompt below the server's name: all of them, even when empty, so a
 * missing line cannot be mistaken for one cut off. Values of env and headers are not shown (they
 * may hold tokens); their names are, and so is every variable that goes into them.
 */
export function reviewDetails(spec: AnySpec): string[] {
  const lines: string[] = [];
  if (spec.transport === 'stdio') {
    lines.push(`command: ${[spec.command, ...spec.args].map(shownWord).join(' ')}`);
    lines.push(`cwd: ${spec.cwd === undefined ? '(the session directory)' : shownWord(spec.cwd)}`);
    lines.push(`env: ${Object.keys(spec.env).length === 0 ? '(none set)' : names(spec.env)}`);
  } else {
    // As every list shows it: a key in the query is the person's, not something to review.
    lines.push(`url: ${shownWord(displayUrl(spec.url))}${spec.transport === 'remote' ? ' (called by the API)' : ''}`);
    lines.push(`headers: ${Object.keys(spec.headers).length === 0 ? '(none)' : names(spec.headers)}`);
  }
  const vars = specVariables(spec);
  lines.push(`reads from your environment: ${vars.length === 0 ? '(nothing)' : vars.map((v) => `\${${v}}`).join(', ')}`);
  return lines;
}

/** Shorter values could match ordinary text; the key variables are refused by name anyway. */
const MIN_SECRET_CHARS = 8;

/**
 * Why a project entry is refused: it reads one of the variables agentx takes its key from, or
 * one whose value holds the key in use (a copy under another name). undefined when it may run.
 */
export function keyReference(spec: AnySpec, env: NodeJS.ProcessEnv, secrets: readonly string[]): string | undefined {
  const keyNames = new Set<string>(SECRET_ENV_NAMES);
  for (const name of specVariables(spec)) {
    const value = env[name] ?? '';
    const holdsKey = secrets.some((s) => s.length >= MIN_SECRET_CHARS && value.includes(s));
    if (keyNames.has(name) || holdsKey) {
      const what = keyNames.has(name) ? "one of agentx's API key variables" : "agentx's API key";
      return `uses \${${name}}, which ${keyNames.has(name) ? 'is' : 'holds'} ${what}: a project file may not pass it to a server; not started`;
    }
  }
  return undefined;
}

/** The project file without the entries that reach for agentx's key; one problem line each. */
export function withoutKeyReferences(parsed: ParsedMcpFile, env: NodeJS.ProcessEnv, secrets: readonly string[]): ParsedMcpFile {
  const problems = [...parsed.problems];
  const keep = <T extends AnySpec>(spec: T): boolean => {
    const why = keyReference(spec, env, secrets);
    if (why !== undefined) problems.push(`mcp: ${spec.file}: server ${JSON.stringify(spec.name)} ${why}`);
    return why === undefined;
  };
  return { ...parsed, servers: parsed.servers.filter(keep), remote: parsed.remote.filter(keep), problems };
}
