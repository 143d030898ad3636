// Remote (hosted) MCP entries made concrete for a session: `${VAR}` references in the url and
// headers expanded from the environment (a missing variable leaves that server out, named in one
// line) and a label the API accepts. The expanded headers are secrets: they go into requests only
// (model/hosted-secrets.ts keeps them out of every file agentx writes).
import type { RemoteMcpServer } from '../hosted/remote-mcp.ts';
import { expandRecord, expandString } from './expand.ts';
import { checkUrl, isSpecError, type RemoteServerSpec } from './spec.ts';

export type RemoteResolution = { ok: true; server: RemoteMcpServer } | { ok: false; problem: string };

/** Server labels are identifiers on the wire: letters, digits, `_` and `-`. */
export function serverLabel(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

export function resolveRemote(spec: RemoteServerSpec, env: NodeJS.ProcessEnv): RemoteResolution {
  const fail = (what: string): RemoteResolution => ({
    ok: false,
    problem: `mcp: remote server ${JSON.stringify(spec.name)} is not offered: ${what} (in ${spec.file})`,
  });
  const url = expandString(spec.url, env);
  if (!url.ok) return fail(`\${${url.missing}} is not set`);
  const headers = expandRecord(spec.headers, env);
  if (!headers.ok) return fail(`\${${headers.missing}} is not set`);
  try {
    checkUrl(url.value, spec.url, 'remote');
  } catch (err) {
    if (!isSpecError(err)) throw err;
    return fail(err.message);
  }
  const server: RemoteMcpServer = {
    name: spec.name,
    label: serverLabel(spec.name),
    url: url.value,
    headers: headers.value,
    requireApproval: spec.requireApproval,
  };
  if (spec.allowedTools !== undefined) server.allowedTools = [...spec.allowedTools];
  return { ok: true, server };
}

/** The servers that resolve, and one line for each that does not; two servers never share a label. */
export function resolveRemoteServers(specs: readonly RemoteServerSpec[], env: NodeJS.ProcessEnv): { servers: RemoteMcpServer[]; problems: string[] } {
  const servers: RemoteMcpServer[] = [];
  const problems: string[] = [];
  for (const spec of specs) {
    const r = resolveRemote(spec, env);
    if (!r.ok) problems.push(r.problem);
    else if (servers.some((s) => s.label === r.server.label))
      problems.push(
        `mcp: remote server ${JSON.stringify(spec.name)} is not offered: its label "${r.server.label}" is taken by another remote server (rename one)`,
      );
    else servers.push(r.server);
  }
  return { servers, problems };
}
