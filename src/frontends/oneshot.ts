// One-shot mode (SPEC §1, §3.4): branch from .agentx_checkpoint, own an isolated state file,
// answer on stdout, exit 0/1/2/130. Never prompts, never reads the interactive state.
import { resolve } from 'node:path';
import type { CliOptions } from '../cli/args.ts';
import { ConfigError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UsageError } from '../cli/errors.ts';
import { NO_KEY_MESSAGE, resolveConfig } from '../config/config.ts';
import { Engine } from '../engine/engine.ts';
import type { AgentEvent } from '../engine/events.ts';
import { ONESHOT_POLICY, withRetryLimits } from '../engine/recovery.ts';
import { emptyState } from '../store/state.ts';
import { stateFromCheckpoint } from '../store/checkpoint.ts';
import { sanitizeLine, sanitizeLines, showControls } from '../ui/sanitize.ts';
import { prepareTerminalOutput, terminalRenderOptions } from '../ui/terminal-output.ts';
import { pickTheme } from '../ui/theme.ts';
import { Renderer } from '../ui/render.ts';
import { supportsHyperlinks } from '../ui/hyperlink.ts';
import { errorLine, execEventLine, jsonLine, sessionLine, toJsonLine } from './json.ts';
import { execManager } from '../tools/exec/manager.ts';
import { redactSecrets } from '../sandbox/env.ts';
import { markCodeCacheWorthy } from './code-cache.ts';
import { startMcpSession } from './mcp-session.ts';
import { createCommands, createPermissions, createTurnDeps, planModeConfig, sessionStartHooks } from './runtime.ts';
import { argumentsPreview } from '../tools/hosted/remote-mcp.ts';
import type { AnswerQuestion } from '../engine/questions.ts';
import { startHooks } from './hooks/session.ts';
import { finishInterruptedRestore, startSnapshotSession } from './workspace-session.ts';
import { homeDir } from '../paths.ts';
import { finishOneshot, loadOneshotStart, openConversationLog, openSessionStore, useSessionSeal } from './session-startup.ts';
import { messageFromInput } from './stdin.ts';
import { resolveLimits, type Limits } from '../config/limits.ts';

/** One line for the person on stderr: free text (notices, errors, paths) passes the sanitizer. */
function stderrLine(text: string): void {
  process.stderr.write(`agentx: ${sanitizeLines(text)}\n`);
}

/** The message from the command line and/or stdin (rules: stdin.ts, README "Standard input"). */
export async function composeMessage(
  cli: CliOptions,
  stdin: NodeJS.ReadStream,
  limits: Limits = resolveLimits({}),
): Promise<{ message: string; lateData: () => boolean }> {
  const composed = await messageFromInput({
    argument: cli.message.join(' '),
    dash: cli.readStdin,
    stdin,
    graceMs: limits.stdinGraceMs,
    maxBytes: limits.maxStdinBytes,
    note: (m) => {
      if (!cli.quiet) stderrLine(m);
    },
  });
  if ('error' in composed) throw new UsageError(composed.error);
  return composed;
}

/**
 * A one-shot never prompts (SPEC §1): every question on the engine's channel is answered no by
 * policy, said in one line on stderr (how to allow it next time), and the model is told why — a
 * command the mode would ask about (untrusted, or on-request with an escalation), a call
 * `untrusted` confirms (a patch), a remote MCP server's approval request.
 */
function answerInOneshot(flag: string, notice: (line: string) => void): AnswerQuestion {
  return (question) => {
    if (question.kind === 'remote_mcp') {
      const q = question.remote;
      notice(
        `remote MCP server ${q.server} asked to run ${q.tool} ${argumentsPreview(q.arguments, 80)}: denied (a one-shot cannot ask; "require_approval": "never" in the MCP config lets it run unasked)`,
      );
      return Promise.resolve({
        answer: { kind: 'no' },
        decidedBy: 'policy',
        reason: 'denied: agentx is running non-interactively, so nobody could approve this call',
      });
    }
    if (question.kind === 'confirm') {
      notice(`${flag} in a one-shot: not running ${showControls(question.title)} (nobody can confirm here; use the interactive session)`);
      return Promise.resolve({ answer: { kind: 'no' }, decidedBy: 'policy', reason: 'nobody can confirm it in a one-shot' });
    }
    notice(`${flag} in a one-shot: not running ${showControls(question.commands.join(' && '))} (nobody can approve it here; use the interactive session)`);
    return Promise.resolve({ answer: { kind: 'no' }, decidedBy: 'policy', reason: 'declined: agentx runs non-interactively, so nobody could approve it' });
  };
}

/** Follows the automatic retries of the current request, so a failure can say how long agentx kept trying. */
function retryTally(): { see: (ev: AgentEvent) => void; summary: () => string } {
  let attempts = 0;
  let waitedMs = 0;
  return {
    see: (ev) => {
      if (ev.type === 'request_start') {
        if (ev.attempt === 1) waitedMs = 0;
        attempts = ev.attempt;
      }
      if (ev.type === 'retry') waitedMs += ev.delayMs;
    },
    summary: () =>
      attempts < 2 ? '' : ` (gave up after ${attempts} attempts, ${(waitedMs / 1000).toFixed(1)} s of waiting; AGENTX_MAX_RETRIES, AGENTX_RETRY_MAX_MS)`,
  };
}

export async function runOneshot(cli: CliOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const cwd = resolve(cli.cwd ?? process.cwd());
  // Before the checkpoint is read: it carries a seal (the start-up order: session-startup.ts).
  useSessionSeal(env);
  // Configuration first: a missing key is reported before stdin is drained.
  const resolved = resolveConfig(cli, env);
  if (!cli.quiet) for (const warning of resolved.warnings ?? []) stderrLine(`warning: ${warning}`);
  // --plan: read-only commands, no edit tool, no MCP servers (they could change anything).
  const config = cli.plan === true ? planModeConfig(resolved) : resolved;
  if (!config.apiKey) throw new ConfigError(NO_KEY_MESSAGE);
  const apiKey = config.apiKey;
  // The rules files before anything runs: a deny rule that cannot be read stops agentx here.
  const { permissions } = createPermissions({
    config,
    env,
    workspaceRoot: cwd,
    defaultMode: 'never',
    notice: (line) => {
      if (!cli.quiet) stderrLine(line);
    },
  });
  const approvalFlag = cli.confirm ? '--confirm' : `--approval ${permissions.mode}`;
  const limits = resolveLimits(env);
  const { message, lateData } = await composeMessage(cli, process.stdin, limits);

  // Pruned leftovers and an unusable checkpoint are said on stderr (loadOneshotStart).
  const { statePath, checkpoint, notices } = loadOneshotStart(cwd, new Date(), process.pid, cli.fresh);
  if (!cli.quiet) for (const notice of notices) stderrLine(notice);
  const sayUnlessQuiet = (m: string): void => {
    if (!cli.quiet) stderrLine(m);
  };
  const theme = pickTheme(cli.color, process.stderr, env);
  await prepareTerminalOutput(cli, process.stdout, env);
  const renderer = new Renderer(process.stdout, process.stderr, theme, {
    quiet: cli.quiet,
    showUsage: cli.showUsage,
    showTimers: cli.showTimers,
    showReasoning: cli.showReasoning,
    showShellCalls: cli.showShellCalls,
    streamText: process.stdout.isTTY === true,
    maxCommandLines: 12,
    ...terminalRenderOptions(process.stdout.isTTY ? process.stdout : process.stderr, env, process.stderr),
    hyperlinks: supportsHyperlinks(process.stdout, env),
  });
  const retries = retryTally();
  const show = cli.json
    ? (ev: AgentEvent): void => {
        const line = toJsonLine(ev);
        if (line) process.stdout.write(jsonLine(line));
      }
    : (ev: AgentEvent): void => renderer.handle(ev);
  const emit = (ev: AgentEvent): void => {
    retries.see(ev);
    show(ev);
  };
  // Right after a compaction the checkpoint holds its seed instead of a response: the branch starts from it.
  const initial = stateFromCheckpoint(checkpoint, { ...emptyState(), last_user_message: message });
  if (cli.json) {
    // Exec sessions the model starts report their start, output and end as they happen.
    execManager().subscribe((ev) => process.stdout.write(jsonLine(execEventLine(ev, (t) => redactSecrets(t, [config.apiKey ?? ''])))));
    process.stdout.write(jsonLine(sessionLine({ cwd, model: config.model, previousResponseId: initial.response_id, stateFile: statePath })));
  }
  // One conversation log for the one-shot, shared by its store and its engine. A repaired log is
  // a context notice, like the engine's others: a `context_notice` line with --json, else stderr.
  const log = openConversationLog(env, cwd, (line) => emit({ type: 'context_notice', message: line }));
  // The message is in the isolated file from the start: a one-shot killed before the first
  // response (no tool call or failure recorded yet) still leaves what was asked, for diagnosis.
  const session = openSessionStore({
    dir: cwd,
    path: statePath,
    log,
    persistence: 'fast',
    publishesCheckpoint: false,
    initial,
    warn: sayUnlessQuiet,
    excluded: sayUnlessQuiet,
  });
  // A directory the one-shot cannot write to (a read-only checkout) must not stop the answer:
  // warn once and keep the isolated state in memory.
  const problem = session.saveOrGoMemory();
  if (problem !== undefined && !cli.quiet) stderrLine(`${problem}; keeping this one-shot's state in memory`);

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const fail = (message: string, kind: string, code: number): number => {
    if (cli.json) process.stdout.write(jsonLine(errorLine(kind, message, code)));
    const where = !cli.quiet && !cli.json ? `state kept in ${statePath}` : '';
    // A lost conversation is one line (what happened, how often, where the state is); other failures keep the path on a line of its own.
    if (kind === 'chain_broken') {
      process.stderr.write(`agentx: ${sanitizeLine(message)}${where ? `; ${where}` : ''}\n`);
      return code;
    }
    process.stderr.write(`agentx: ${sanitizeLine(message)}\n`);
    if (where) stderrLine(where);
    return code;
  };
  const notice = (line: string): void => {
    if (!cli.quiet) stderrLine(line);
  };
  const commands = createCommands({
    config: { ...config, apiKey },
    env,
    workspaceRoot: cwd,
    onNotice: (m) => {
      if (!cli.quiet) stderrLine(m);
    },
  });
  const { manager: mcp, remote } =
    cli.plan === true
      ? { manager: undefined, remote: [] }
      : await startMcpSession({ projectDir: cwd, env, apiKey, caFile: config.caFile, wait: true, notice, commands });
  try {
    // Snapshots serve rollback and /diff, which a one-shot does not have: its state file is
    // removed when it succeeds. Only --json uses them, for the `workspace_changed` event (the
    // paths the turn changed); there the store opens when a tool first writes. A restore that a
    // killed session left half done is finished first either way.
    const snapshots = {
      dir: cwd,
      env,
      homeDir: homeDir(env),
      settings: config.snapshots,
      say: (line: string) => {
        if (!cli.quiet) stderrLine(line);
      },
    };
    await finishInterruptedRestore(snapshots);
    const deps = await createTurnDeps({
      mcp,
      commands,
      planMode: cli.plan === true,
      // Nobody can answer a remote MCP approval request here: the channel's policy denies it, said on stderr.
      hosted: { remoteMcp: remote },
      config: { ...config, apiKey },
      cli,
      env,
      session,
      log,
      emit,
      policy: withRetryLimits(ONESHOT_POLICY, limits),
      cwd: () => cwd,
      workspaceRoot: cwd,
      // A one-shot never prompts (SPEC §1): what the mode would ask is declined (the model is told)
      // rather than run unasked — commands, patches under untrusted, remote MCP approvals alike.
      permissions,
      answer: answerInOneshot(approvalFlag, notice),
      workspace: cli.json ? startSnapshotSession({ ...snapshots, lazy: true })?.files : undefined,
      hooks: await startHooks({ env, projectDir: cwd, commands, secrets: [apiKey], cwd: () => cwd, notice }),
      onDebugLog: (p) => {
        if (!cli.quiet) stderrLine(`debug log ${p}`);
      },
      onDebugWarning: (m) => stderrLine(m),
      onNotice: notice,
    });
    const engine = new Engine(deps);
    await sessionStartHooks(engine, 'startup', controller.signal);
    const outcome = await engine.message(message, [], controller.signal);
    if (outcome.kind === 'done') {
      markCodeCacheWorthy();
      finishOneshot(statePath);
      return EXIT_OK;
    }
    if (outcome.kind === 'interrupted' || controller.signal.aborted) return fail('interrupted', 'interrupted', EXIT_INTERRUPTED);
    if (outcome.kind === 'blocked') return fail(`not sent: a UserPromptSubmit hook blocked the message: ${outcome.reason}`, 'blocked', EXIT_FAILED);
    const hint =
      outcome.failure.failure.kind === 'context_overflow'
        ? ' — shorten the message (or its tool output), or continue in the interactive session, which offers trim, new chain and rollback'
        : '';
    return fail(`request failed: ${outcome.failure.message}${retries.summary()}${hint}`, outcome.failure.failure.kind, EXIT_FAILED);
  } finally {
    // The one-shot's sessions end with it: stopped here (TERM, then KILL after the grace) rather
    // than only killed on 'exit', so --json reports each one's exec_session_exit before agentx ends.
    await execManager().stopAll();
    await mcp?.close();
    // Silent loss is the one thing not allowed: an ignored pipe that delivered after all is said.
    if (lateData()) process.stderr.write('agentx: data arrived on stdin after the grace period and was not sent; use `agentx - "…"` to wait for it\n');
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
