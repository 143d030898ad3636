// Wiring shared by the one-shot and the REPL: config + flags → the engine's dependencies, the
// command runner (sandbox, environment, output ceiling) and the tool registry. The one place
// that decides which tools a session offers and how commands run.
import { release as osRelease, tmpdir, type as osType } from 'node:os';
import type { CliOptions } from '../cli/args.ts';
import { sleep } from '../lib/sleep.ts';
import { readAgentsFiles } from '../config/agents-md.ts';
import type { Config } from '../config/config.ts';
import { effectiveOutputCap, resolveLimits } from '../config/limits.ts';
import type { Engine } from '../engine/engine.ts';
import type { EmitEvent } from '../engine/events.ts';
import { withBaseDelay, type RetryPolicy } from '../engine/recovery.ts';
import { capabilitiesPath, fileCapabilities } from '../engine/server-capabilities.ts';
import { turnCompaction } from '../engine/turn-compaction.ts';
import type { SessionHandle, TurnDeps } from '../engine/turn.ts';
import type { WorkspaceFiles } from '../engine/files.ts';
import type { SessionHooks } from '../engine/hooks.ts';
import type { ModelClient } from '../model/types.ts';
import { createOpenAIClient } from '../model/client.ts';
import { withReasoningFallback } from '../model/reasoning-fallback.ts';
import { headerSecrets } from '../model/provider.ts';
import { createDebugLog } from '../model/debug-log.ts';
import { localDate, type EnvironmentFacts } from '../engine/environment.ts';
import { systemPrompt } from '../engine/instructions.ts';
import { withLocalImages } from '../model/local-images.ts';
import { scrubSecrets } from '../model/scrub.ts';
import { sanitizeLine, sanitizeLines } from '../ui/sanitize.ts';
import { homeDir, logDir, projectName } from '../paths.ts';
import type { ConversationLog } from '../store/log/conversation-log.ts';
import { sessionConversation } from '../engine/conversation.ts';
import { createImageGenerationTool } from '../tools/hosted/image-generation.ts';
import { createRemoteMcpTool, type RemoteMcpServer } from '../tools/hosted/remote-mcp.ts';
import { createWebSearchTool } from '../tools/hosted/web-search.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import { createMcpTool } from '../tools/mcp-tool.ts';
import { createPatchTool } from '../tools/patch-tool.ts';
import { planRecord, type Plan } from '../tools/plan.ts';
import { createPlanTool } from '../tools/plan-tool.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { createCommandRunner, type CommandRunner } from '../tools/sandboxed.ts';
import { DEFAULT_TIMEOUT_MS } from '../tools/shell.ts';
import { createShellTool } from '../tools/shell-tool.ts';
import { resolveUserShell } from '../tools/supervisor.ts';
import { createViewImageTool } from '../tools/view-image.ts';
import { createExecTools } from '../tools/exec/exec-tool.ts';
import { execManager } from '../tools/exec/manager.ts';
import { createSkillTool, type SkillEntry } from '../tools/skill-tool.ts';
import { loadSkills } from '../config/skills.ts';
import { loadPermissionRules, type LoadedRules } from '../config/permission-rules.ts';
import { Permissions } from '../engine/permissions.ts';
import { QuestionChannel, type AnswerQuestion } from '../engine/questions.ts';
import type { ApprovalMode } from '../tools/permissions/escalation.ts';

export type { CommandRunner } from '../tools/sandboxed.ts';

export function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export interface CommandsInput {
  config: Config & { apiKey: string };
  env: NodeJS.ProcessEnv;
  /** Where the session started: writable in workspace-write, the boundary for edits. */
  workspaceRoot: string;
  /** Once-per-session sandbox warnings (bwrap missing…); stderr when absent. */
  onNotice?: (message: string) => void;
}

/**
 * How commands run — model commands (sandboxed as configured) and the person's `!commands`
 * (runUnsandboxed): one place decides their environment (no key, no pager, no editor) and output
 * ceiling. The model's max_output_length may lower the cap, never raise it past the ceiling.
 */
export function createCommands(r: CommandsInput): CommandRunner {
  const runner = createCommandRunner({
    setting: r.config.sandbox,
    sessionDir: r.workspaceRoot,
    env: r.env,
    configFile: r.config.configFile,
    secrets: [r.config.apiKey],
    platform: process.platform,
    notice:
      r.onNotice ??
      ((message) => {
        process.stderr.write(`agentx: ${sanitizeLines(message)}\n`);
      }),
  });
  const { maxOutputBytes } = resolveLimits(r.env);
  const capped = <T extends { maxOutputBytes: number }>(opts: T): T => ({ ...opts, maxOutputBytes: effectiveOutputCap(opts.maxOutputBytes, maxOutputBytes) });
  return {
    run: (opts) => runner.run(capped(opts)),
    runUnsandboxed: (opts) => runner.runUnsandboxed(capped(opts)),
    childWrapper: () => runner.childWrapper(),
    hides: (path) => runner.hides(path),
    sessionLaunch: (command, cwd, scope) => runner.sessionLaunch(command, cwd, scope),
    redact: (text) => runner.redact(text),
  };
}

/** The tools a session offers, in the order they are offered. */
export function buildRegistry(r: {
  config: Config;
  env: NodeJS.ProcessEnv;
  commands: CommandRunner;
  mcp?: McpManager;
  hosted?: HostedInput;
  savePlan?: (plan: Plan) => void;
  skills?: readonly SkillEntry[];
  planMode?: boolean;
}): ToolRegistry {
  const remote = r.hosted?.remoteMcp ?? [];
  return new ToolRegistry([
    createShellTool({
      form: r.config.shellTool,
      runCommand: (opts) => r.commands.run(opts),
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      defaultMaxOutputBytes: resolveLimits(r.env).maxOutputBytes,
    }),
    ...(r.config.patchTool === 'off'
      ? []
      : [createPatchTool({ form: r.config.patchTool, readOnly: r.config.sandbox.mode === 'read-only', hidden: (path) => r.commands.hides(path) })]),
    ...(r.mcp ? [createMcpTool(r.mcp)] : []),
    createViewImageTool({ hidden: (path) => r.commands.hides(path) }),
    ...createExecTools({
      manager: execManager(),
      launch: (cmd, cwd, scope) => r.commands.sessionLaunch(cmd, cwd, scope),
      redact: (t) => r.commands.redact(t),
      planMode: r.planMode,
    }),
    createPlanTool({ save: r.savePlan ?? (() => undefined) }),
    ...(r.skills !== undefined && r.skills.length > 0 ? [createSkillTool(r.skills)] : []),
    // Hosted tools: the server runs them; these only offer them and show their items.
    ...(r.config.webSearch ? [createWebSearchTool()] : []),
    ...(r.config.imageGeneration ? [createImageGenerationTool()] : []),
    ...(r.hosted && remote.length > 0 ? [createRemoteMcpTool(remote)] : []),
  ]);
}

export interface RuntimeInput {
  config: Config & { apiKey: string };
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  session: SessionHandle;
  /**
   * The session's conversation log (session-startup.ts openConversationLog), the one the store
   * keeps tool outputs in: the record a lost or stateless chain is replayed from. Opened once per
   * session by the front-end, never here: a reconfigured engine keeps the same log.
   */
  log: ConversationLog;
  emit: EmitEvent;
  policy: RetryPolicy;
  cwd: () => string;
  /** Where the session started: the workspace boundary for tools and the sandbox. */
  workspaceRoot: string;
  commands: CommandRunner;
  onDebugLog?: (path: string) => void;
  /** MCP servers of this session (frontends/mcp-session.ts), when any are configured. */
  mcp?: McpManager;
  /** Remote MCP servers the API calls (their approval requests are questions on the channel). */
  hosted?: HostedInput;
  /** Said once when the --debug log cannot be written; requests go on regardless. */
  onDebugWarning?: (message: string) => void;
  /** Plan mode (planModeConfig): the model is told, and no MCP tools are offered (they could change anything). */
  planMode?: boolean;
  /** One line for the person (a skill file that cannot be used). */
  onNotice?: (line: string) => void;
  /** The approval mode and the rules (createPermissions), kept by the front-end across engine rebuilds. */
  permissions?: Permissions;
  /**
   * Who answers the engine's questions (questions.ts) — command approvals, escalations, sandbox
   * re-runs, remote MCP approvals, patch confirmations: the REPL's menu, a one-shot's policy.
   */
  answer?: AnswerQuestion;
  /** Wraps the model client (the REPL prices each response). */
  wrapClient?: (client: ModelClient) => ModelClient;
  /** Workspace snapshots for file rollback and `workspace_changed`; absent when off. */
  workspace?: WorkspaceFiles;
  /** The session's hooks (also settable later with Engine.setHooks). */
  hooks?: SessionHooks;
}

/**
 * The session's permissions: the approval mode (flag, AGENTX_APPROVAL, config, else the front-end's
 * default) and the rules files. Throws ConfigError when a rules file that may hold a deny rule
 * cannot be read: agentx never runs without a deny rule the person wrote.
 */
export function createPermissions(r: {
  config: Config;
  env: NodeJS.ProcessEnv;
  workspaceRoot: string;
  defaultMode: ApprovalMode;
  notice: (line: string) => void;
}): { permissions: Permissions; loaded: LoadedRules } {
  const loaded = loadPermissionRules(r.env, r.workspaceRoot);
  for (const line of loaded.notices) r.notice(sanitizeLine(line));
  const permissions = new Permissions(
    {
      mode: r.config.approval ?? r.defaultMode,
      rules: loaded.rules,
      inactive: loaded.inactive,
      unsandboxed: r.config.sandbox.mode === 'danger-full-access',
      planMode: false,
      userRulesPath: loaded.userPath,
    },
    (line) => r.notice(sanitizeLine(line)),
  );
  return { permissions, loaded };
}

/** Problems already said this process: an engine rebuilt (/plan, /setup) does not say them again. */
const saidProblems = new Set<string>();

/** The skills offered this session (config/skills.ts); each problem said once, sanitized. */
function sessionSkills(home: string, projectDir: string, notice: ((line: string) => void) | undefined): SkillEntry[] {
  const { skills, problems } = loadSkills(home, projectDir);
  for (const p of problems) {
    if (saidProblems.has(p)) continue;
    saidProblems.add(p);
    notice?.(sanitizeLine(p));
  }
  return skills;
}

/**
 * Plan mode's configuration: commands run in the read-only sandbox (never unsandboxed when
 * bwrap is missing: then they fail, and nothing changes) and apply_patch is not offered.
 */
export function planModeConfig<C extends Config>(config: C): C {
  const sandbox = { ...config.sandbox, mode: 'read-only' as const, offIfUnavailable: false, planMode: true };
  return { ...config, sandbox, patchTool: 'off' };
}

export interface HostedInput {
  /** From the MCP config (`"type": "remote"`), headers expanded (frontends/mcp-session.ts); their approval requests are asked on the question channel. */
  remoteMcp: RemoteMcpServer[];
}

export async function createTurnDeps(r: RuntimeInput): Promise<TurnDeps> {
  const limits = resolveLimits(r.env);
  const debug = r.cli.debug
    ? createDebugLog(logDir(r.env), [r.config.apiKey, ...headerSecrets(r.config.extraHeaders)], new Date(), (m) => r.onDebugWarning?.(m))
    : undefined;
  if (debug?.path !== undefined) r.onDebugLog?.(debug.path);
  const home = homeDir(r.env);
  const now = (): Date => new Date();
  // Context window, compaction and transport: what this server supports is remembered per base URL.
  const capabilities = fileCapabilities(capabilitiesPath(r.env, home), r.config.baseUrl, now);
  const client = await createOpenAIClient({
    apiKey: r.config.apiKey,
    provider: r.config.provider,
    azureApiVersion: r.config.azureApiVersion,
    extraHeaders: r.config.extraHeaders,
    caFile: r.config.caFile,
    transport: r.config.transport,
    websocketSupport: { get: () => capabilities.get().websocket ?? 'unknown', set: (websocket) => capabilities.set({ websocket }) },
    baseUrl: r.config.baseUrl,
    idleTimeoutMs: limits.streamIdleMs,
    headersTimeoutMs: limits.headersTimeoutMs,
    log: debug?.log,
    organization: r.env.OPENAI_ORG_ID || undefined,
    project: r.env.OPENAI_PROJECT_ID || undefined,
  });
  // The plan is kept in the session state (restored on resume, dropped by /clear).
  const savePlan = (plan: Plan): void => r.session.update((s) => ({ ...s, plan: planRecord(plan) }));
  const planMode = r.planMode === true;
  const mcp = planMode ? undefined : r.mcp;
  const skills = sessionSkills(home, r.workspaceRoot, r.onNotice);
  const registry = buildRegistry({
    config: r.config,
    env: r.env,
    commands: r.commands,
    mcp,
    hosted: planMode ? undefined : r.hosted,
    savePlan,
    skills,
    planMode,
  });
  // Written for what this session offers; stable for the session (prompt caching): what changes
  // (directory, date, sandbox) goes in the environment context instead.
  const instructions = systemPrompt({ tools: registry.definitions(), mcp: mcp !== undefined, planMode, skills, agentsFiles: readAgentsFiles(r.cwd(), home) });
  const context = { windowSetting: r.config.contextWindow, autoCompact: r.config.autoCompact, capabilities };
  // The prompt cache key is the project's hash only (its directory name stays on this machine).
  const project = projectName(r.workspaceRoot);
  const wrap = r.wrapClient ?? ((c: ModelClient): ModelClient => c);
  const deps: TurnDeps = {
    // Attached images are read and inlined here, just before sending (the state holds path + hash).
    // A refused reasoning effort: retried once without it, said in one line (reasoning-fallback.ts).
    client: wrap(
      withReasoningFallback(withLocalImages(scrubSecrets(client, [r.config.apiKey, ...headerSecrets(r.config.extraHeaders)])), r.config.baseUrl, (line) =>
        r.emit({ type: 'context_notice', message: line }),
      ),
    ),
    shape: { model: r.config.model, instructions, reasoningEffort: r.config.reasoningEffort },
    registry,
    session: r.session,
    cwd: r.cwd,
    workspaceRoot: r.workspaceRoot,
    emit: r.emit,
    policy: withBaseDelay(r.policy, envNumber(r.env, 'AGENTX_RETRY_BASE_MS')),
    // Reads `deps` when used: the REPL wraps the client, /model switches the model, MCP adds tools.
    compaction: turnCompaction(() => deps, context),
    conversation: sessionConversation(() => deps, { log: r.log, setting: r.config.store, capabilities, promptCacheKey: `agentx-${project.slice(-16)}` }),
    sleep,
    now,
    random: Math.random,
    environment: () => environmentFacts(r, deps.shape.model, now()),
    // The one question channel: every question to the person is an event, answered by `answer`.
    questions: new QuestionChannel(r.emit, r.answer),
    workspace: r.workspace,
    hooks: r.hooks,
  };
  if (r.permissions !== undefined) {
    r.permissions.setPlanMode(planMode);
    deps.permissions = r.permissions;
  }
  return deps;
}

/**
 * The facts of the environment context (engine/environment.ts). The shell named is the one
 * commands really run under (supervisor.ts decides); the sandbox is what commands get, so the
 * model plans within it instead of discovering it by failing.
 */
export function environmentFacts(
  r: Pick<RuntimeInput, 'config' | 'cli' | 'env' | 'cwd' | 'workspaceRoot' | 'planMode' | 'permissions'>,
  model: string,
  now: Date,
): EnvironmentFacts {
  const { mode, network } = r.config.sandbox;
  return {
    cwd: r.cwd(),
    shell: resolveUserShell(r.env.SHELL),
    os: `${osType()} ${osRelease()} (${process.arch})`,
    date: localDate(now),
    model,
    sandbox: mode,
    writableRoots: mode === 'workspace-write' ? [r.workspaceRoot, tmpdir()] : [],
    network,
    approval: approvalFact(r.permissions?.mode ?? (r.cli.confirm ? 'untrusted' : 'never')),
    planMode: r.planMode === true,
  };
}

/** The approval mode as the model is told it (environment context): what it may ask for and how. */
export function approvalFact(mode: ApprovalMode): string {
  switch (mode) {
    case 'untrusted':
      return 'untrusted: the user is asked before each command that no rule allows';
    case 'on-request':
      return 'on-request: commands run in the sandbox without asking; for one that needs more, set sandbox_permissions "require_escalated" with a justification and the user is asked';
    case 'never':
      return 'never: nobody is asked; commands run in the sandbox and requests to run outside it are refused';
  }
}

/** SessionStart hooks: what they print is context for the first message. */
export async function sessionStartHooks(engine: Engine, source: 'startup' | 'resume', signal?: AbortSignal): Promise<void> {
  const hooks = engine.hooks;
  if (hooks?.has('SessionStart') !== true) return;
  const outcome = await hooks.run({ event: 'SessionStart', source }, signal);
  for (const text of outcome.context) engine.noteForNextMessage(text);
}
