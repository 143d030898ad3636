// Wiring shared by the one-shot and the REPL: config + flags → the engine's dependencies and
// the tool registry. The one place that decides which tools a session offers.
import type { CliOptions } from '../cli/args.ts';
import { readAgentsFiles } from '../config/agents-md.ts';
import type { Config } from '../config/config.ts';
import type { EmitEvent } from '../engine/events.ts';
import { withBaseDelay, type RetryPolicy } from '../engine/recovery.ts';
import { capabilitiesPath, fileCapabilities } from '../engine/server-capabilities.ts';
import { turnCompaction } from '../engine/turn-compaction.ts';
import type { SessionHandle, TurnDeps } from '../engine/turn.ts';
import { createOpenAIClient } from '../model/client.ts';
import { createDebugLog } from '../model/debug-log.ts';
import { buildInstructions } from '../model/request.ts';
import { envWithoutSecrets, scrubSecrets } from '../model/scrub.ts';
import { homeDir, logDir } from '../paths.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import { createMcpTool } from '../tools/mcp-tool.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, runShellCommand, type ShellRunOptions, type ShellRunResult } from '../tools/shell.ts';
import { createShellTool } from '../tools/shell-tool.ts';
import { resolveUserShell } from '../tools/supervisor.ts';

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export interface RuntimeInput {
  config: Config & { apiKey: string };
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  session: SessionHandle;
  emit: EmitEvent;
  policy: RetryPolicy;
  cwd: () => string;
  /** Where the session started: the workspace boundary for tools. */
  workspaceRoot: string;
  confirm?: TurnDeps['confirm'];
  onDebugLog?: (path: string) => void;
  /** MCP servers of this session (frontends/mcp-session.ts), when any are configured. */
  mcp?: McpManager;
}

export type CommandRunner = (opts: ShellRunOptions) => Promise<ShellRunResult>;

/**
 * How commands run (model commands and the person's `!commands`, whose output also reaches the
 * model): one place decides their environment. They never see the key (see scrub.ts).
 */
export function commandRunner(r: Pick<RuntimeInput, 'config' | 'env'>): CommandRunner {
  const commandEnv = envWithoutSecrets(r.env, [r.config.apiKey]);
  return (opts) => runShellCommand({ ...opts, env: opts.env ?? commandEnv });
}

/** The tools a session offers, in the order they are offered. */
export function buildRegistry(r: Pick<RuntimeInput, 'config' | 'env' | 'mcp'>): ToolRegistry {
  return new ToolRegistry([
    ...(r.mcp ? [createMcpTool(r.mcp)] : []),
    createShellTool({
      form: r.config.shellTool,
      runCommand: commandRunner(r),
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      defaultMaxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
    }),
  ]);
}

export async function createTurnDeps(r: RuntimeInput): Promise<TurnDeps> {
  const debug = r.cli.debug ? createDebugLog(logDir(r.env), [r.config.apiKey]) : undefined;
  if (debug) r.onDebugLog?.(debug.path);
  const client = await createOpenAIClient({
    apiKey: r.config.apiKey,
    baseUrl: r.config.baseUrl,
    idleTimeoutMs: envNumber(r.env, 'AGENTX_STREAM_IDLE_MS') ?? 300_000,
    log: debug?.log,
    organization: r.env.OPENAI_ORG_ID || undefined,
    project: r.env.OPENAI_PROJECT_ID || undefined,
  });
  const home = homeDir(r.env);
  const now = (): Date => new Date();
  // Context window and compaction: what this server supports is remembered per base URL.
  const context = {
    windowSetting: r.config.contextWindow,
    autoCompact: r.config.autoCompact,
    capabilities: fileCapabilities(capabilitiesPath(r.env, home), r.config.baseUrl, now),
  };
  const deps: TurnDeps = {
    client: scrubSecrets(client, [r.config.apiKey]),
    shape: {
      model: r.config.model,
      // The shell named to the model is the one commands really run under (supervisor.ts decides).
      instructions: buildInstructions(r.cwd(), resolveUserShell(r.env.SHELL), readAgentsFiles(r.cwd(), home)),
      reasoningEffort: r.config.reasoningEffort,
    },
    registry: buildRegistry(r),
    session: r.session,
    cwd: r.cwd,
    workspaceRoot: r.workspaceRoot,
    emit: r.emit,
    confirm: r.confirm,
    policy: withBaseDelay(r.policy, envNumber(r.env, 'AGENTX_RETRY_BASE_MS')),
    // Reads `deps` when used: the REPL wraps the client, /model switches the model, MCP adds tools.
    compaction: turnCompaction(() => deps, context),
    sleep,
    now,
    random: Math.random,
  };
  return deps;
}
