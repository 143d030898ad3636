// MCP servers for one session: read the configuration, ask about an unapproved project file
// (interactive sessions) or say why it is not used (one-shots), and start the servers. The MCP
// client (and its SDK) is imported only when at least one server is configured.
import type { RemoteMcpServer } from '../tools/hosted/remote-mcp.ts';
import { loadMcpConfig, type PendingApproval } from '../tools/mcp/config.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import { resolveRemoteServers } from '../tools/mcp/remote.ts';
import { VERSION } from '../version.ts';

export interface McpSessionOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  apiKey: string;
  /** Interactive sessions ask before a project file starts programs; undefined never asks. */
  approve?: (pending: PendingApproval) => Promise<boolean>;
  /** One-line notices (problems, skipped entries, servers that failed to start). */
  notice(line: string): void;
  /** One-shots wait for the servers (their one request needs the tools); the REPL does not. */
  wait: boolean;
  wrapCommand?: (argv: string[], server: { name: string; cwd: string }) => string[];
}

/** Local servers started (their manager), and remote ones for the API to call (headers expanded). */
export interface McpSession {
  manager?: McpManager;
  remote: RemoteMcpServer[];
}

export async function startMcp(o: McpSessionOptions): Promise<McpManager | undefined> {
  return (await startMcpSession(o)).manager;
}

export async function startMcpSession(o: McpSessionOptions): Promise<McpSession> {
  const config = await loadMcpConfig({ projectDir: o.projectDir, env: o.env });
  for (const line of [...config.problems, ...config.skipped]) o.notice(line);
  const pending = config.pendingApproval();
  if (pending) {
    if (o.approve && await o.approve(pending)) config.approve();
    else {
      const notice = config.unapprovedNotice();
      if (notice) o.notice(notice);
    }
  }
  const remote = resolveRemoteServers(config.remoteServers(), o.env);
  for (const line of remote.problems) o.notice(line);
  const specs = config.servers();
  if (specs.length === 0) return { remote: remote.servers };
  const { McpManager } = await import('../tools/mcp/manager.ts');
  const options = {
    specs, env: o.env, secrets: [o.apiKey], projectDir: o.projectDir, clientVersion: VERSION, wrapCommand: o.wrapCommand,
    onEvent: (ev: { type: string; server: string; reason?: string }) => {
      if (ev.type === 'server_failed') o.notice(`mcp: server ${ev.server} failed to start: ${ev.reason ?? 'unknown reason'}`);
    },
  };
  return { manager: await (o.wait ? McpManager.start(options) : McpManager.launch(options)), remote: remote.servers };
}
