// What the REPL's parts share: the engine (and through it the session), the terminal, and the
// session's working directory (which `cd` changes; the state files stay where agentx started).
import { hostname, userInfo } from 'node:os';
import type { CliOptions } from '../../cli/args.ts';
import type { Config } from '../../config/config.ts';
import type { LoadedRules } from '../../config/permission-rules.ts';
import type { Permissions } from '../../engine/permissions.ts';
import type { Engine } from '../../engine/engine.ts';
import type { SessionHooks } from '../../engine/hooks.ts';
import type { ConversationLog } from '../../store/log/conversation-log.ts';
import type { SessionStore } from '../../store/session-store.ts';
import type { McpManager } from '../../tools/mcp/manager.ts';
import type { LocalImagePart } from '../../wire/items.ts';
import type { Theme } from '../../ui/theme.ts';
import type { CommandRunner, HostedInput } from '../runtime.ts';
import type { SnapshotSession } from '../workspace-session.ts';
import type { TerminalInput } from './terminal.ts';
import { activeScreen } from './screen.ts';
import { contextLeft } from '../../engine/context.ts';
import { reasoningRefused } from '../../model/reasoning-fallback.ts';
import type { StatusFields } from '../../ui/status-line.ts';
import type { CostTracker } from './usage-view.ts';
import type { LastOutput } from './last-output.ts';
import { execManager } from '../../tools/exec/manager.ts';

export interface ReplContext {
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WriteStream;
  theme: Theme;
  term: TerminalInput;
  session: SessionStore;
  /** The session's conversation log, shared by the store and the engine (session-startup.ts openConversationLog). */
  log: ConversationLog;
  config: Config & { apiKey: string };
  /** Built once for the session; /setup, /plan and MCP tools reconfigure it, /model changes its request shape. */
  engine: Engine;
  /** Runs model commands (sandboxed) and the person's `!commands` (runUnsandboxed), same environment rules. */
  commands: CommandRunner;
  /** The approval mode and the command rules (engine/permissions.ts), one for the session. */
  permissions: Permissions;
  /** The rules files as read at start (/permissions approve activates the project's allow rules). */
  loadedRules: LoadedRules;
  home: string;
  cwd: string;
  previousCwd: string | undefined;
  /** The directory the model was last told about; a different `cwd` is noted in the next request. */
  announcedCwd: string;
  costs: CostTracker;
  /** Newest first, shared with the line editor. */
  history: string[];
  /** MCP servers of this session, when any are configured and approved. */
  mcp?: McpManager;
  /** Remote MCP servers (called by the API); their approval requests are questions on the engine's channel. */
  hosted: HostedInput;
  /** Images attached with /image, sent with the next message. */
  images: LocalImagePart[];
  /** Workspace snapshots (file rollback, /diff); absent when AGENTX_SNAPSHOTS=off. */
  snapshots?: SnapshotSession;
  /** Plan mode (/plan, --plan): the engine runs with planModeConfig until the plan is approved. */
  planMode?: boolean;
  /** The next turn asks before each apply_patch call, showing its diff (/init). */
  reviewPatchesOnce?: boolean;
  /** The person's hooks (frontends/hooks/), given to the engine (it keeps them across reconfiguration). */
  hooks?: SessionHooks;
  /**
   * The archive entry the last /clear, "New session", /rollback or /resume wrote of the
   * conversation it left (resume-command.ts archiveCurrent): `/rollback undo` brings that
   * conversation back and removes this copy, without listing the archive.
   */
  archivedCopy?: { file: string; responseId: string | null; turns: number };
  /** The last command's whole output, for Ctrl-O (the turn runner's, `!commands` recorded too). */
  lastOutput?: LastOutput;
}

/** One line of information for the user, on its own line — above the prompt when one is shown. */
export function say(ctx: Pick<ReplContext, 'out'>, line: string): void {
  const screen = activeScreen(ctx.out);
  if (screen) screen.printAbove(`${line}\n`);
  else ctx.out.write(`${line}\n`);
}

/** What the status line under the prompt shows today (approval and background sessions come later). */
export function statusFields(ctx: Pick<ReplContext, 'engine' | 'config' | 'session' | 'planMode'> & { permissions?: Permissions }): StatusFields {
  const shape = ctx.engine.shape;
  const window = ctx.engine.contextWindow();
  const left = contextLeft(ctx.session.state.context_tokens, window);
  return {
    // What is actually sent: nothing once the server refused `reasoning` for this model.
    model: shape.model,
    reasoningEffort: reasoningRefused(ctx.config.baseUrl, shape.model) ? undefined : shape.reasoningEffort,
    contextLeft: { fraction: left.leftFraction, assumed: left.windowSource === 'default' },
    // Plan mode runs every command read-only (runtime.ts planModeConfig), whatever the session started with.
    sandbox: ctx.planMode === true ? 'read-only' : ctx.config.sandbox.mode,
    network: ctx.config.sandbox.network ? 'on' : 'off',
    planMode: ctx.planMode,
    backgroundSessions: backgroundSessionCount(),
    ...(ctx.permissions !== undefined ? { approval: ctx.permissions.mode } : {}),
  };
}

/** Exec sessions the model started that still run (/ps lists them). */
function backgroundSessionCount(): number {
  return execManager().runningCount();
}

export function tildePath(path: string, home: string): string {
  if (home && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}

export function promptText(ctx: Pick<ReplContext, 'theme' | 'cwd' | 'home' | 'planMode'>): string {
  let user = 'user';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (containers): a generic name is fine for a prompt.
  }
  const host = hostname().split('.')[0] ?? 'localhost';
  const t = ctx.theme;
  const mode = ctx.planMode === true ? `${t.yellow('[plan]')} ` : '';
  return `${mode}${t.green(`${user}@${host}`)}:${t.cyan(tildePath(ctx.cwd, ctx.home))}> `;
}

/** Front-end facts the next request tells the model: a new working directory. */
export function turnNotes(ctx: Pick<ReplContext, 'cwd' | 'announcedCwd'>): string[] {
  return ctx.cwd !== ctx.announcedCwd ? [`The user changed the working directory to ${ctx.cwd}; your commands now run there.`] : [];
}
