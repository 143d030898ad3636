// The interactive REPL (SPEC §5): lock the directory's session, load and resume it, settle what
// a previous run left (pending tool calls, a failed request), then read → dispatch → turn.
import { resolve } from 'node:path';
import type { CliOptions } from '../../cli/args.ts';
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE } from '../../cli/errors.ts';
import { resolveConfig } from '../../config/config.ts';
import { configPath, historyPath, homeDir } from '../../paths.ts';
import { snapshotIdsInUse } from '../../store/state.ts';
import { sanitizeLine, sanitizeLines } from '../../ui/sanitize.ts';
import { prepareTerminalOutputLater, terminalOutputPrepared } from '../../ui/terminal-output.ts';
import { preloadModelClient } from '../../model/client.ts';
import { pickTheme } from '../../ui/theme.ts';
import { VERSION } from '../../version.ts';
import { dispatch, SLASH_COMMANDS, type CommandHooks } from './commands.ts';
import { completer } from './composer/complete.ts';
import type { PasteStore } from './composer/paste.ts';
import { formatStatusLine } from '../../ui/status-line.ts';
import { promptText, say, statusFields, tildePath, turnNotes, type ReplContext } from './context.ts';
import { loadHistory, saveHistory } from './history.ts';
import { readLine } from './line-input.ts';
import { recoverFailedRequest, resolvePendingCalls } from './recovery.ts';
import { lastMessageLabel, resumeCommand } from './resume-command.ts';
import { TerminalInput } from './terminal.ts';
import { TurnRunner, type TurnOutcome } from './turns.ts';
import { loadReplSession, lockSession, openConversationLog, openSessionStore, replStatePath, unsavedBanner, useSessionSeal } from '../session-startup.ts';
import { CostTracker } from './usage-view.ts';
import { startMcpSession } from '../mcp-session.ts';
import type { HostedInput } from '../runtime.ts';
import { pruneSnapshots, startBackgroundUpkeep, startSnapshotSession } from '../workspace-session.ts';
import { finishLeftRollback } from './rollback.ts';
import { configWithKey, replCommands, replEngineDeps, runSetupDialogue } from './wiring.ts';
import { Engine } from '../../engine/engine.ts';
import { createPermissions, planModeConfig, sessionStartHooks } from '../runtime.ts';
import { reportEndedSessions } from './ps-command.ts';
import { startHooks } from '../hooks/session.ts';
import type { SessionHooks } from '../../engine/hooks.ts';
import { offerApproval } from './plan-command.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import { execManager } from '../../tools/exec/manager.ts';
import { ProjectFiles } from './composer/project-files.ts';
import { AfterPrompt } from './after-prompt.ts';
import { attachMentioned } from './attachments.ts';
import { isColorTheme } from '../../ui/theme.ts';

export async function runRepl(cli: CliOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const out = process.stdout;
  const dir = resolve(cli.cwd ?? process.cwd());
  // The start-up order (session-startup.ts): the seal key, then the lock, then the state.
  useSessionSeal(env);
  // A directory that cannot be written is no reason to refuse: the session runs in memory.
  const lock = lockSession(dir);
  if (lock.kind === 'error') {
    process.stderr.write(`agentx: cannot lock the session in ${dir}: ${lock.message}\n`);
    return EXIT_USAGE;
  }
  if (lock.kind === 'busy') {
    process.stderr.write(
      `agentx: another agentx (pid ${lock.pid}) is already running in ${dir}; one interactive session per directory (one-shots like agentx "…" still work).\n`,
    );
    return EXIT_USAGE;
  }
  const release = lock.kind === 'locked' ? lock.release : () => undefined;
  try {
    return await session(cli, env, dir, out, release, lock.kind === 'unsaved' ? lock.reason : undefined);
  } finally {
    release();
  }
}

async function session(
  cli: CliOptions,
  env: NodeJS.ProcessEnv,
  dir: string,
  out: NodeJS.WriteStream,
  releaseLock: () => void,
  unsaved?: string,
): Promise<number> {
  const theme = pickTheme(cli.color, out, env);
  const now = new Date();
  if (unsaved !== undefined) say({ out }, theme.yellow(`⚠ ${unsavedBanner(dir, unsaved)}`));
  const loaded = loadReplSession(dir, now);
  for (const notice of loaded.notices) say({ out }, theme.yellow(`⚠ ${sanitizeLines(notice)}`));
  const config = await configWithKey(cli, env, out);
  if (typeof config === 'string') {
    process.stderr.write(`agentx: ${config}\n`);
    return EXIT_USAGE;
  }
  for (const warning of config.warnings ?? []) say({ out }, theme.yellow(`⚠ ${sanitizeLine(warning)}`));

  // What the first prompt does not need starts once it is drawn (after-prompt.ts).
  const afterPrompt = new AfterPrompt();
  prepareTerminalOutputLater(cli, out, env);
  afterPrompt.add(() => void terminalOutputPrepared());
  afterPrompt.add(preloadModelClient);
  const term = new TerminalInput(process.stdin, out);
  const historyFile = historyPath(env);
  // One conversation log for the session: the store and the engine (however often it is
  // reconfigured) share it, so a repaired log is said once, here, among the REPL's warnings.
  const log = openConversationLog(env, dir, (m) => say({ out }, theme.yellow(`⚠ ${sanitizeLines(m)}`)));
  const sessionStore = openSessionStore({
    dir,
    path: replStatePath(dir),
    log,
    initial: loaded.state,
    persistence: loaded.writable && unsaved === undefined ? 'durable' : 'memory',
    publishesCheckpoint: true,
    warn: (m) => say({ out }, theme.yellow(`⚠ ${sanitizeLines(m)}`)),
    excluded: (notice) => say({ out }, theme.dim(sanitizeLines(notice))),
  });
  const costs = new CostTracker();
  // Remote MCP servers join once the MCP config is read (connectMcp); their approval requests are
  // questions on the engine's channel, answered by the runner.
  const hosted: HostedInput = { remoteMcp: [] };
  // Opened on first use or after the prompt is drawn (startBackgroundUpkeep below), not before it.
  const snapshots =
    startSnapshotSession({
      dir,
      env,
      homeDir: homeDir(env),
      settings: config.snapshots,
      say: (line) => say({ out }, theme.dim(sanitizeLines(line))),
      lazy: true,
    }) ?? undefined;
  // Built once for the session: the mode (/approvals) and the rules survive reconfiguration (/plan, /setup).
  const { permissions, loaded: loadedRules } = createPermissions({
    config,
    env,
    workspaceRoot: dir,
    defaultMode: 'on-request',
    notice: (line) => say({ out }, theme.yellow(`⚠ ${sanitizeLines(line)}`)),
  });
  const commands = replCommands({ env, session: sessionStore, out, theme }, config);
  // Everything but the engine first: the runner renders the engine's events and answers its
  // questions, so it exists before the engine, which is then built once and reconfigured.
  const base = {
    cli,
    env,
    out,
    theme,
    session: sessionStore,
    log,
    costs,
    hosted,
    snapshots,
    permissions,
    loadedRules,
    term,
    config,
    home: homeDir(env),
    cwd: dir,
    previousCwd: undefined as string | undefined,
    announcedCwd: dir,
    history: loadHistory(historyFile),
    images: [],
    commands,
  };
  const runner = new TurnRunner(base);
  const wiring = { ...base, runner, cwd: () => base.cwd };
  const ctx: ReplContext = Object.assign(base, {
    engine: new Engine(await replEngineDeps(wiring, config, commands)),
    lastOutput: runner.lastOutput,
  });
  /**
   * New collaborators for the current mode (same engine, same session): plan mode runs commands
   * read-only and offers no edit tool; MCP tools join once their servers are connected.
   * `keepModel`: a /model choice survives the switch.
   */
  const reconfigure = async (keepModel: boolean): Promise<void> => {
    const model = ctx.engine.shape.model;
    const config = ctx.planMode === true ? planModeConfig(ctx.config) : ctx.config;
    const commands = ctx.planMode === true ? replCommands(ctx, config) : ctx.commands;
    ctx.engine.reconfigure(await replEngineDeps(wiring, config, commands, ctx.mcp, ctx.planMode === true));
    if (keepModel) ctx.engine.setModel({ ...ctx.engine.shape, model });
  };
  if (cli.plan === true) {
    ctx.planMode = true;
    await reconfigure(true);
  }
  const hooks: CommandHooks = {
    async setPlanMode(on) {
      ctx.planMode = on;
      await reconfigure(true);
    },
    async setup() {
      term.stop();
      try {
        await runSetupDialogue(configPath(env), out, env);
      } catch (err) {
        say(ctx, theme.red(`\nsetup cancelled: ${sanitizeLine(errorMessage(err))}`));
        return;
      } finally {
        term.start();
      }
      const next = resolveConfig(cli, env);
      if (!next.apiKey) {
        say(ctx, theme.red('still no API key configured'));
        return;
      }
      ctx.config = { ...next, apiKey: next.apiKey };
      ctx.commands = replCommands(ctx, ctx.config);
      await reconfigure(false);
      say(ctx, theme.green(`✓ using model ${ctx.config.model} at ${ctx.config.baseUrl}`));
    },
    compact: () => runner.compact(ctx.engine),
    async resume(arg) {
      if (await resumeCommand(ctx, arg)) await settleLeftovers(ctx, runner);
    },
  };

  // Every transition is already on disk, so a signal can end the process right away; running
  // commands die with it (their supervisors watch agentx).
  const onTerminate = (): void => {
    runner.interrupt();
    term.stop();
    saveHistory(historyFile, ctx.history);
    releaseLock();
    process.exit(EXIT_INTERRUPTED);
  };
  // kill -INT stops what runs, like Ctrl-C; with nothing running it ends agentx.
  const onSignal = (): void => {
    if (!term.interruptNow()) onTerminate();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onTerminate);
  process.on('SIGHUP', onTerminate);
  term.start();
  try {
    greet(ctx, loaded.existed);
    if (snapshots)
      afterPrompt.add(
        () =>
          void startBackgroundUpkeep(
            snapshots,
            () => snapshotIdsInUse(ctx.session.state),
            (line) => say(ctx, theme.dim(sanitizeLines(line))),
          ),
      );
    ctx.hooks = await startReplHooks(ctx);
    ctx.engine.setHooks(ctx.hooks);
    await connectMcp(ctx);
    // MCP tools join the registry: the engine is reconfigured with them (same engine, same session).
    if (ctx.mcp || ctx.hosted.remoteMcp.length > 0) await reconfigure(true);
    // What SessionStart hooks print waits in the engine for the first message.
    await sessionStartHooks(ctx.engine, loaded.existed ? 'resume' : 'startup');
    await finishLeftRollback(ctx);
    reportEndedSessions(ctx);
    // Calls left by a dead session may be MCP calls: the menu must know their tools (and their
    // retry warning), so it waits for the servers (each bounded by its start timeout).
    // `agentx resume [--last]`: the picker (or the newest) first, then whatever it left unfinished.
    if (cli.command === 'resume') await resumeCommand(ctx, cli.resumeLast === true ? '--last' : '');
    if (ctx.mcp && ctx.session.state.pending_tool_calls.length > 0) await ctx.mcp.ready;
    await settleLeftovers(ctx, runner);
    await loop(ctx, runner, hooks, historyFile, afterPrompt);
    return EXIT_OK;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onTerminate);
    process.off('SIGHUP', onTerminate);
    term.stop();
    saveHistory(historyFile, ctx.history);
    await ctx.mcp?.close();
  }
}

/** The person's hooks, and the project's after the person approved that exact file. */
function startReplHooks(ctx: ReplContext): Promise<SessionHooks | undefined> {
  const t = ctx.theme;
  return startHooks({
    env: ctx.env,
    projectDir: ctx.session.dir,
    commands: ctx.commands,
    secrets: [ctx.config.apiKey],
    cwd: () => ctx.cwd,
    notice: (line) => say(ctx, t.yellow(`⚠ ${sanitizeLines(line)}`)),
    approve: async (file) => {
      say(ctx, t.yellow(`${sanitizeLine(file.path)} wants to run these commands as hooks (programs on this machine):`));
      for (const h of file.hooks) say(ctx, `  ${t.cyan(h.event)}${h.matcher === undefined ? '' : ` (${sanitizeLine(h.matcher)})`}: ${sanitizeLine(h.command)}`);
      ctx.out.write(`${t.yellow('?')} run them, now and whenever this file is unchanged? [y]es / [n]o: `);
      const answer = await ctx.term.askKey(['y', 'n']);
      ctx.out.write(`${answer}\n`);
      return answer === 'y';
    },
  });
}

/** MCP servers start in the background (the prompt does not wait); their tools join the registry. */
async function connectMcp(ctx: ReplContext): Promise<void> {
  const t = ctx.theme;
  const started = await startMcpSession({
    projectDir: ctx.session.dir,
    env: ctx.env,
    apiKey: ctx.config.apiKey,
    caFile: ctx.config.caFile,
    wait: false,
    commands: ctx.commands,
    notice: (line) => say(ctx, t.yellow(`⚠ ${sanitizeLines(line)}`)),
    approve: async (pending) => {
      say(ctx, t.yellow(`${pending.file} wants to start MCP servers (programs on this machine):`));
      // Every text here comes sanitized from mcp-session.ts (shownApproval): the project chose it.
      for (const s of pending.servers) {
        say(ctx, `  ${t.cyan(s.name)} (${s.transport}): ${s.description}`);
        for (const line of s.details) say(ctx, `      ${line}`);
      }
      ctx.out.write(`${t.yellow('?')} start them, now and whenever this file is unchanged? [y]es / [n]o: `);
      const answer = await ctx.term.askKey(['y', 'n']);
      ctx.out.write(`${answer}\n`);
      return answer === 'y';
    },
  });
  ctx.mcp = started.manager;
  ctx.hosted.remoteMcp = started.remote;
}

function greet(ctx: ReplContext, existed: boolean): void {
  const t = ctx.theme;
  // What commands may do, said at once: the sandbox, its network and the approval mode (/approvals).
  // Under --plan, what plan mode runs with (the status line's too), not the session's configured mode.
  const sandboxMode = ctx.planMode === true ? 'read-only (plan mode)' : ctx.config.sandbox.mode;
  const access = `sandbox ${sandboxMode}, network ${ctx.config.sandbox.network ? 'on' : 'off'}, approval ${ctx.permissions.mode}`;
  say(ctx, t.dim(`agentx ${VERSION} · ${ctx.engine.shape.model} · ${tildePath(ctx.cwd, ctx.home)} · ${access} · /help for commands, Ctrl-D to quit`));
  const s = ctx.session.state;
  if (existed && (s.usage.turns > 0 || s.response_id !== null)) {
    say(ctx, t.green(`Resuming session: ${s.usage.turns} turn${s.usage.turns === 1 ? '' : 's'}, ${lastMessageLabel(s.last_user_message)}`));
  }
}

async function afterTurn(ctx: ReplContext, runner: TurnRunner, outcome: TurnOutcome | undefined): Promise<void> {
  if (outcome?.kind !== 'failed') return;
  const status = outcome.failure.failure.details.status;
  if (status === 401 || status === 403) {
    say(ctx, ctx.theme.dim('Fix the key or access with /setup; your message is kept (↑ recalls it).'));
    return;
  }
  await recoverFailedRequest(ctx, runner, true);
}

/** What a previous run left behind: tool calls of an unfinished turn, then a failed request. */
async function settleLeftovers(ctx: ReplContext, runner: TurnRunner): Promise<void> {
  const outcome = await resolvePendingCalls(ctx, runner);
  if (outcome) return afterTurn(ctx, runner, outcome);
  if (ctx.session.state.pending_transaction !== null) await recoverFailedRequest(ctx, runner, false);
}

async function loop(ctx: ReplContext, runner: TurnRunner, hooks: CommandHooks, historyFile: string, afterPrompt: AfterPrompt): Promise<void> {
  let exitArmed = false;
  // Pasted blocks of this session, by placeholder (history keeps the placeholder).
  const pastes: PasteStore = new Map();
  const complete = completer(SLASH_COMMANDS, () => ctx.cwd, ctx.home);
  const projectFiles = new ProjectFiles();
  // Read once the prompt is drawn, in the background: the first `@` finds the list (or its first part) ready.
  afterPrompt.add(() => projectFiles.prefetch(ctx.cwd));
  for (;;) {
    const reading = readLine(ctx.term, ctx.out, {
      prompt: promptText(ctx),
      history: ctx.history,
      pastes,
      theme: ctx.theme,
      complete,
      status: (columns) => formatStatusLine(statusFields(ctx), columns, ctx.theme),
      watchStatus: (redraw) =>
        execManager().subscribe((ev) => {
          if (ev.type !== 'exec_output') redraw();
        }),
      listFiles: (onReady) => projectFiles.get(ctx.cwd, onReady),
      lastOutput: () => ctx.lastOutput?.show(ctx.theme, ctx.out.columns > 0 ? ctx.out.columns : 80, isColorTheme(ctx.theme)),
      onHistory: (h) => {
        const problem = saveHistory(historyFile, h);
        if (problem) say(ctx, ctx.theme.yellow(`⚠ ${sanitizeLines(problem)}`));
      },
    });
    afterPrompt.promptDrawn();
    const line = await reading;
    if (line.kind === 'eof') return;
    if (line.kind === 'interrupt') {
      if (!line.hadText && exitArmed) return;
      exitArmed = !line.hadText;
      if (exitArmed) say(ctx, ctx.theme.dim('(press Ctrl-C again to exit)'));
      continue;
    }
    exitArmed = false;
    const action = await dispatch(ctx, hooks, line.text);
    if (action.kind === 'exit') return;
    // In plan mode an answered turn is followed by the approval menu; approving starts the work.
    for (let text = action.kind === 'message' ? action.text : undefined; text !== undefined; ) {
      const outcome = await sendMessage(ctx, runner, text);
      text = ctx.planMode === true && outcome.kind === 'done' ? await offerApproval(ctx, hooks) : undefined;
    }
  }
}

/** One message for the model: a turn with the notes and images waiting for it. */
async function sendMessage(ctx: ReplContext, runner: TurnRunner, text: string): Promise<TurnOutcome> {
  // `@path` attaches the file (attachments.ts); each is said in one line.
  const attached = attachMentioned(text, ctx.cwd, ctx.home);
  for (const a of attached) say(ctx, a.ok ? ctx.theme.dim(`📎 ${sanitizeLine(a.line)}`) : ctx.theme.yellow(`⚠ ${sanitizeLine(a.line)}`));
  const notes = [...turnNotes(ctx), ...attached.flatMap((a) => (a.note === undefined ? [] : [a.note]))];
  const images = ctx.images;
  const oldest = ctx.session.state.history[0]?.response_id;
  // /init: this turn's patches wait for the person's yes, with their diff shown (other calls run as the mode says).
  const options = { reviewPatches: ctx.reviewPatchesOnce === true };
  ctx.reviewPatchesOnce = false;
  const outcome = await runner.run((signal) => ctx.engine.message(text, notes, signal, images, options));
  // Sent (or kept in the failed request for Retry); an interrupted message keeps them for the next try.
  if (outcome.kind !== 'interrupted') ctx.images = [];
  await afterTurn(ctx, runner, outcome);
  // History keeps its newest entries only: snapshots of a dropped checkpoint are garbage now.
  const dropped = oldest !== undefined && !ctx.session.state.history.some((h) => h.response_id === oldest);
  if (dropped && ctx.snapshots) void pruneSnapshots(ctx.snapshots, snapshotIdsInUse(ctx.session.state), (l) => say(ctx, ctx.theme.dim(sanitizeLines(l))));
  return outcome;
}
