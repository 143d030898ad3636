// A server spec made concrete when it starts: `${VAR}` references expanded from the environment
// and a relative cwd resolved against the config file's folder. A missing variable fails only
// that server, with one line naming it.
import { dirname, isAbsolute, resolve } from 'node:path';
import { expandList, expandRecord, expandString } from './expand.ts';
import type { Expanded } from './expand.ts';
import { checkUrl, isSpecError } from './spec.ts';
import type { McpServerSpec } from './spec.ts';

export interface ResolvedStdioServer {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Only the variables the config sets; the manager adds them to a sanitised base environment. */
  env: Record<string, string>;
  cwd: string;
}

export interface ResolvedHttpServer {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

/** On failure, `reason` says what is wrong and names the config file (the server is named by the caller). */
export type Resolution = { ok: true; server: ResolvedServer } | { ok: false; reason: string };

function unset<T>(r: Expanded<T>): string | undefined {
  return r.ok ? undefined : `\${${r.missing}} is not set`;
}

/**
 * `defaultCwd` is the session's directory: where a server runs when its config names no cwd.
 * A relative cwd is taken from the config file's folder, which is what its author could see.
 */
export function resolveSpec(spec: McpServerSpec, env: NodeJS.ProcessEnv, defaultCwd: string): Resolution {
  const fail = (what: string): Resolution => ({ ok: false, reason: `${what} (in ${spec.file})` });
  if (spec.transport === 'stdio') {
    const command = expandString(spec.command, env);
    const args = expandList(spec.args, env);
    const vars = expandRecord(spec.env, env);
    const cwd = spec.cwd === undefined ? ({ ok: true, value: defaultCwd } as const) : expandString(spec.cwd, env);
    const missing = unset(command) ?? unset(args) ?? unset(vars) ?? unset(cwd);
    if (missing !== undefined || !command.ok || !args.ok || !vars.ok || !cwd.ok) return fail(missing ?? 'cannot expand');
    const dir = isAbsolute(cwd.value) ? cwd.value : resolve(dirname(spec.file), cwd.value);
    return { ok: true, server: { transport: 'stdio', command: command.value, args: args.value, env: vars.value, cwd: dir } };
  }
  const url = expandString(spec.url, env);
  const headers = expandRecord(spec.headers, env);
  const missing = unset(url) ?? unset(headers);
  if (missing !== undefined || !url.ok || !headers.ok) return fail(missing ?? 'cannot expand');
  try {
    checkUrl(url.value, spec.url);
  } catch (err) {
    if (!isSpecError(err)) throw err;
    return fail(err.message);
  }
  return { ok: true, server: { transport: spec.transport, url: url.value, headers: headers.value } };
}
