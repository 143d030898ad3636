// Wiring shared by the one-shot and the REPL: config + flags → the engine's dependencies and
// the tool registry. The one place that decides which tools a session offers.
import type { CliOptions } from '../cli/args.ts';
import { readAgentsFiles } from '../config/agents-md.ts';
import type { Config } from '../config/config.ts';
import type { EmitEvent } from '../engine/events.ts';
import { withBaseDelay, type RetryPolicy } from '../engine/recovery.ts';
import type { SessionHandle, TurnDeps } from '../engine/turn.ts';
import { createOpenAIClient } from '../model/client.ts';
import { createDebugLog } from '../model/debug-log.ts';
import { buildInstructions } from '../model/request.ts';
import { withLocalImages } from '../model/local-images.ts';
import { envWithoutSecrets, scrubSecrets } from '../model/scrub.ts';
import { homeDir, logDir } from '../paths.ts';
import { createImageGenerationTool } from '../tools/hosted/image-generation.ts';
import { argumentsPreview, createRemoteMcpTool, type ApprovalDecider, type RemoteMcpServer } from '../tools/hosted/remote-mcp.ts';
import { createWebSearchTool } from '../tools/hosted/web-search.ts';
import { effectiveOutputCap, resolveLimits } from '../config/limits.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import { createMcpTool } from '../tools/mcp-tool.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { DEFAULT_TIMEOUT_MS, runShellCommand, type ShellRunOptions, type ShellRunResult } from '../tools/shell.ts';
import { createShellTool } from '../tools/shell-tool.ts';
import { resolveUserShell } from '../tools/supervisor.ts';
import { createViewImageTool } from '../tools/view-image.ts';

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
  /** Remote MCP servers the API calls, and who answers their approval requests. */
  hosted?: HostedInput;
  /** Said once when the --debug log cannot be written; requests go on regardless. */
  onDebugWarning?: (message: string) => void;
}

export interface HostedInput {
  /** From the MCP config (`"type": "remote"`), headers expanded (frontends/mcp-session.ts). */
  remoteMcp: RemoteMcpServer[];
  /** The REPL asks the person; a one-shot applies its policy (denyApprovals). */
  decideApproval: ApprovalDecider;
}

/**
 * The one-shot policy for remote MCP approval requests: nobody can answer, so the call is
 * denied, the model is told why, and `notice` says so (and how to allow it) in one line.
 */
export function denyApprovals(notice: (line: string) => void): ApprovalDecider {
  return (q) => {
    notice(`remote MCP server ${q.server} asked to run ${q.tool} ${argumentsPreview(q.arguments, 80)}: denied (a one-shot cannot ask; "require_approval": "never" in the MCP config lets it run unasked)`);
    return Promise.resolve({ approve: false, decidedBy: 'policy', reason: 'denied: agentx is running non-interactively, so nobody could approve this call' });
  };
}

export type CommandRunner = (opts: ShellRunOptions) => Promise<ShellRunResult>;

/**
 * How commands run (model commands and the person's `!commands`, whose output also reaches the
 * model): one place decides their environment and output ceiling. They never see the key (scrub.ts).
 */
export function commandRunner(r: Pick<RuntimeInput, 'config' | 'env'>): CommandRunner {
  const commandEnv = envWithoutSecrets(r.env, [r.config.apiKey]);
  const { maxOutputBytes } = resolveLimits(r.env);
  // The model's max_output_length may lower the cap, never raise it past the configured ceiling.
  return (opts) => runShellCommand({ ...opts, env: opts.env ?? commandEnv, maxOutputBytes: effectiveOutputCap(opts.maxOutputBytes, maxOutputBytes) });
}

/** The tools a session offers, in the order they are offered. */
export function buildRegistry(r: Pick<RuntimeInput, 'config' | 'env' | 'mcp' | 'hosted'>): ToolRegistry {
  const remote = r.hosted?.remoteMcp ?? [];
  return new ToolRegistry([
    ...(r.mcp ? [createMcpTool(r.mcp)] : []),
    createShellTool({
      form: r.config.shellTool,
      runCommand: commandRunner(r),
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      defaultMaxOutputBytes: resolveLimits(r.env).maxOutputBytes,
    }),
    createViewImageTool(),
    // Hosted tools: the server runs them; these only offer them and show their items.
    ...(r.config.webSearch ? [createWebSearchTool()] : []),
    ...(r.config.imageGeneration ? [createImageGenerationTool()] : []),
    ...(r.hosted && remote.length > 0 ? [createRemoteMcpTool(remote, r.hosted.decideApproval)] : []),
  ]);
}

export async function createTurnDeps(r: RuntimeInput): Promise<TurnDeps> {
  const limits = resolveLimits(r.env);
  const debug = r.cli.debug ? createDebugLog(logDir(r.env), [r.config.apiKey], new Date(), (m) => r.onDebugWarning?.(m)) : undefined;
  if (debug?.path !== undefined) r.onDebugLog?.(debug.path);
  const client = await createOpenAIClient({
    apiKey: r.config.apiKey,
    baseUrl: r.config.baseUrl,
    idleTimeoutMs: limits.streamIdleMs,
    headersTimeoutMs: limits.headersTimeoutMs,
    log: debug?.log,
    organization: r.env.OPENAI_ORG_ID || undefined,
    project: r.env.OPENAI_PROJECT_ID || undefined,
  });
  const home = homeDir(r.env);
  return {
    // Attached images are read and inlined here, just before sending (the state holds path + hash).
    client: withLocalImages(scrubSecrets(client, [r.config.apiKey])),
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
    sleep,
    now: () => new Date(),
    random: Math.random,
  };
}
