// `agentx mcp list` and the REPL's `/mcp`: every configured server with its state, transport,
// tool count and where it is configured (or why it is not running). Returns lines; the caller
// prints them.
import { homedir } from 'node:os';
import { loadMcpConfig } from './config.ts';
import type { McpConfig } from './config.ts';
import type { McpManagerOptions, McpServerStatus } from './manager.ts';

export interface McpListOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  startTimeoutMs?: number;
  wrapCommand?: McpManagerOptions['wrapCommand'];
  fetch?: McpManagerOptions['fetch'];
}

export interface McpList {
  lines: string[];
  /** False when a config file has problems or a server failed to start. */
  ok: boolean;
}

interface Row {
  name: string;
  state: string;
  transport: string;
  tools: string;
  detail: string;
}

/** Paths under the home directory are shown as ~/…: shorter, and the same on every machine. */
function shortPath(path: string, home: string): string {
  return home !== '' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function statusRow(s: McpServerStatus, home: string): Row {
  const where = `${s.scope}: ${shortPath(s.file, home)}`;
  return {
    name: s.name,
    state: s.state,
    transport: s.transport ?? '-',
    tools: s.state === 'ready' ? `${s.tools} tool${s.tools === 1 ? '' : 's'}` : '-',
    detail: s.state === 'failed' && s.error ? s.error : where,
  };
}

function table(rows: Row[]): string[] {
  const width = (pick: (r: Row) => string): number => Math.max(...rows.map((r) => pick(r).length));
  const w = { name: width((r) => r.name), state: width((r) => r.state), transport: width((r) => r.transport), tools: width((r) => r.tools) };
  return rows.map((r) =>
    `  ${r.name.padEnd(w.name)}  ${r.state.padEnd(w.state)}  ${r.transport.padEnd(w.transport)}  ${r.tools.padEnd(w.tools)}  ${r.detail}`.trimEnd(),
  );
}

/**
 * The list for running servers (`statuses`, from McpManager.servers()) plus the servers a
 * project file would add once approved. Pure, for `/mcp` as well as `agentx mcp list`.
 */
export function formatMcpList(config: McpConfig, statuses: McpServerStatus[], home: string = homedir()): string[] {
  const rows = statuses.map((s) => statusRow(s, home));
  // Remote servers are not started here: the API connects to them when a request offers them.
  for (const s of config.remoteServers()) {
    rows.push({ name: s.name, state: 'via the API', transport: 'remote', tools: '-', detail: `${s.scope}: ${shortPath(s.file, home)}` });
  }
  const pending = config.pendingApproval();
  for (const s of pending?.servers ?? []) {
    rows.push({
      name: s.name,
      state: 'not approved',
      transport: s.transport,
      tools: '-',
      detail: `project: ${shortPath(pending?.file ?? '', home)} (review it in an interactive agentx session)`,
    });
  }
  const lines: string[] = [];
  if (rows.length === 0) {
    lines.push('No MCP servers configured: add them to ~/.config/agentx/mcp.json or to .mcp.json in the project.');
  } else {
    lines.push(`MCP servers (${rows.length}):`, ...table(rows));
  }
  lines.push(...config.problems, ...config.skipped);
  return lines;
}

/** Loads the config, starts the servers it allows (not unapproved project ones), lists them, stops them. */
export async function listMcpServers(opts: McpListOptions): Promise<McpList> {
  const config = await loadMcpConfig({ projectDir: opts.projectDir, env: opts.env });
  const specs = config.servers();
  let statuses: McpServerStatus[] = [];
  if (specs.length > 0) {
    const { McpManager } = await import('./manager.ts');
    const manager = await McpManager.start({
      specs,
      env: opts.env,
      projectDir: opts.projectDir,
      clientVersion: opts.clientVersion,
      startTimeoutMs: opts.startTimeoutMs,
      wrapCommand: opts.wrapCommand,
      fetch: opts.fetch,
    });
    statuses = manager.servers();
    await manager.close();
  }
  const ok = config.problems.length === 0 && statuses.every((s) => s.state !== 'failed');
  return { lines: formatMcpList(config, statuses, opts.env.HOME ?? homedir()), ok };
}
