// MCP servers for one session: read the configuration, ask about an unapproved project file
// (interactive sessions) or say why it is not used (one-shots), and start the servers. The MCP
// client (and its SDK) is imported only when at least one server is configured.
// Everything shown from here (notices quoting a server's stderr, the approval prompt's lines from
// a project file) is redacted like command output and sanitized for the terminal (issue 23 §4).
import type { RemoteMcpServer } from '../tools/hosted/remote-mcp.ts';
import { loadMcpConfig, type PendingApproval } from '../tools/mcp/config.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import { redactionSecrets } from '../tools/mcp/manager-secrets.ts';
import { resolveRemoteServers } from '../tools/mcp/remote.ts';
import { redactSecrets } from '../sandbox/env.ts';
import { sanitizeLine } from '../ui/sanitize.ts';
import { VERSION } from '../version.ts';
import type { CommandRunner } from './runtime.ts';

export interface McpSessionOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  apiKey: string;
  /** AGENTX_CA_FILE as configured (HTTP servers trust it). */
  caFile: string | undefined;
  /** Interactive sessions ask before a project file starts programs; undefined never asks. */
  approve?: (pending: PendingApproval) => Promise<boolean>;
  /** One-line notices (problems, skipped entries, servers that failed to start). */
  notice(line: string): void;
  /** One-shots wait for the servers (their one request needs the tools); the REPL does not. */
  wait: boolean;
  /** The session's command runner: stdio servers run inside the same sandbox as model commands. */
  commands?: CommandRunner;
}

/** Local servers started (their manager), and remote ones for the API to call (headers expanded). */
export interface McpSession {
  manager?: McpManager;
  remote: RemoteMcpServer[];
}

/** The approval question's texts, every one from the project file, safe to print. */
export function shownApproval(pending: PendingApproval): PendingApproval {
  return {
    file: sanitizeLine(pending.file),
    sha256: pending.sha256,
    servers: pending.servers.map((s) => ({
      name: sanitizeLine(s.name),
      transport: s.transport,
      description: sanitizeLine(s.description),
      details: s.details.map(sanitizeLine),
    })),
  };
}

export async function startMcpSession(given: McpSessionOptions): Promise<McpSession> {
  const secrets = redactionSecrets(given.env, [given.apiKey]);
  const o: McpSessionOptions = { ...given, notice: (line) => given.notice(sanitizeLine(redactSecrets(line, secrets))) };
  const config = await loadMcpConfig({ projectDir: o.projectDir, env: o.env, secrets: [o.apiKey] });
  for (const line of [...config.problems, ...config.skipped]) o.notice(line);
  const pending = config.pendingApproval();
  if (pending) {
    if (o.approve && (await o.approve(shownApproval(pending)))) config.approve();
    else {
      const notice = config.unapprovedNotice();
      if (notice) o.notice(notice);
    }
  }
  const remote = resolveRemoteServers(config.remoteServers(), o.env);
  for (const line of remote.problems) o.notice(line);
  const specs = config.servers();
  if (specs.length === 0) return { remote: remote.servers };
  const wrapper = o.commands ? await o.commands.childWrapper() : null;
  if (wrapper !== null && 'refused' in wrapper) {
    // The default never silently runs unsandboxed: stdio servers are model-controlled programs too.
    const local = specs.filter((spec) => spec.transport === 'stdio').map((spec) => spec.name);
    if (local.length > 0) o.notice(`mcp: not starting ${local.join(', ')}: ${wrapper.refused}`);
  }
  const usable = wrapper !== null && 'refused' in wrapper ? specs.filter((spec) => spec.transport !== 'stdio') : specs;
  if (usable.length === 0) return { remote: remote.servers };
  const wrapCommand = typeof wrapper === 'function' ? (argv: string[], server: { cwd: string }): string[] => wrapper(argv, server.cwd) : undefined;
  const [{ McpManager }, { createMcpFetch }] = await Promise.all([import('../tools/mcp/manager.ts'), import('./mcp-fetch.ts')]);
  const options = {
    specs: usable,
    env: o.env,
    secrets: [o.apiKey],
    projectDir: o.projectDir,
    clientVersion: VERSION,
    wrapCommand,
    fetch: createMcpFetch(o.caFile),
    onEvent: (ev: { type: string; server: string; reason?: string }) => {
      if (ev.type === 'server_failed') o.notice(`mcp: server ${ev.server} failed to start: ${ev.reason ?? 'unknown reason'}`);
    },
  };
  return { manager: await (o.wait ? McpManager.start(options) : McpManager.launch(options)), remote: remote.servers };
}
