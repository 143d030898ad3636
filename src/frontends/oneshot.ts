// One-shot mode (SPEC §1, §3.4): branch from .agentx_checkpoint, own an isolated state file,
// answer on stdout, exit 0/1/2/130. Never prompts, never reads the interactive state.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliOptions } from '../cli/args.ts';
import { ConfigError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UsageError } from '../cli/errors.ts';
import { NO_KEY_MESSAGE, resolveConfig } from '../config/config.ts';
import type { AgentEvent } from '../agent/events.ts';
import { ONESHOT_POLICY } from '../agent/recovery.ts';
import { runTurn, TurnFailed, TurnInterrupted, type SessionHandle } from '../agent/turn.ts';
import { emptyState, type SessionState } from '../session/state.ts';
import { loadCheckpointWithNotices, oneshotStatePath, saveState } from '../session/store.ts';
import { commandsInline } from '../ui/command-view.ts';
import { sanitizeLine } from '../ui/sanitize.ts';
import { prepareTerminalOutput, terminalRenderOptions } from '../ui/terminal-output.ts';
import { PLAIN_THEME, pickTheme } from '../ui/theme.ts';
import { Renderer } from '../ui/render.ts';
import { jsonLine, toJsonLine } from './json.ts';
import { createTurnDeps } from './runtime.ts';
import { readStdin } from './stdin.ts';

const STDIN_GRACE_MS = 200;

export async function composeMessage(cli: CliOptions, stdin: NodeJS.ReadStream): Promise<string> {
  const arg = cli.message.join(' ').trim();
  let piped = '';
  if (cli.readStdin || !stdin.isTTY) {
    piped = (await readStdin(stdin, cli.readStdin || arg === '' ? null : STDIN_GRACE_MS)).trim();
  }
  const message = [arg, piped].filter((s) => s.length > 0).join('\n\n');
  if (message === '') throw new UsageError('empty message: give it as an argument or on stdin');
  return message;
}

function declineInOneshot(quiet: boolean): (commands: string[]) => Promise<boolean> {
  return (commands) => {
    if (!quiet) process.stderr.write(`agentx: --confirm in a one-shot: not running ${commandsInline(commands, PLAIN_THEME)} (nobody can confirm here; use the interactive session)\n`);
    return Promise.resolve(false);
  };
}

export async function runOneshot(cli: CliOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const cwd = resolve(cli.cwd ?? process.cwd());
  // Configuration first: a missing key is reported before stdin is drained.
  const config = resolveConfig(cli, env);
  if (!config.apiKey) throw new ConfigError(NO_KEY_MESSAGE);
  const apiKey = config.apiKey;
  const message = await composeMessage(cli, process.stdin);

  // An unusable checkpoint means this one-shot starts a fresh chain instead of branching from
  // the interactive session: say so (on stderr), or the lost context would go unexplained.
  const { checkpoint, notices } = loadCheckpointWithNotices(cwd);
  if (!cli.quiet) for (const notice of notices) process.stderr.write(`agentx: ${notice}\n`);
  const statePath = oneshotStatePath(cwd, process.pid, new Date());
  // The message is in the isolated file from the start: a one-shot killed before the first
  // response (no tool call or failure recorded yet) still leaves what was asked, for diagnosis.
  let state: SessionState = { ...emptyState(), response_id: checkpoint?.response_id ?? null, last_user_message: message };
  const session: SessionHandle = {
    get state() { return state; },
    update(transition) {
      state = transition(state);
      persist();
    },
  };
  // A directory the one-shot cannot write to (a read-only checkout) must not stop the answer:
  // warn once and keep the isolated state in memory.
  let persistFailed = false;
  function persist(): void {
    if (persistFailed) return;
    try {
      saveState(statePath, state, { durable: false });
    } catch (err) {
      persistFailed = true;
      if (!cli.quiet) process.stderr.write(`agentx: cannot write ${statePath} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); keeping this one-shot's state in memory\n`);
    }
  }
  persist();

  const theme = pickTheme(cli.color, process.stderr, env);
  await prepareTerminalOutput(cli, process.stdout, env);
  const renderer = new Renderer(process.stdout, process.stderr, theme, {
    quiet: cli.quiet, showUsage: cli.showUsage, showTimers: cli.showTimers, showReasoning: cli.showReasoning,
    showShellCalls: cli.showShellCalls, streamText: process.stdout.isTTY === true, maxCommandLines: 12, ...terminalRenderOptions(process.stdout.isTTY ? process.stdout : process.stderr),
  });
  const emit = cli.json
    ? (ev: AgentEvent): void => {
      const line = toJsonLine(ev);
      if (line) process.stdout.write(jsonLine(line));
    }
    : (ev: AgentEvent): void => renderer.handle(ev);
  if (cli.json) {
    process.stdout.write(jsonLine({ type: 'session', mode: 'oneshot', cwd, model: config.model, previous_response_id: state.response_id, state_file: statePath }));
  }

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const fail = (message: string, kind: string, code: number): number => {
    if (cli.json) process.stdout.write(jsonLine({ type: 'error', kind, message, exit_code: code }));
    process.stderr.write(`agentx: ${sanitizeLine(message)}\n`);
    if (!cli.quiet && !cli.json) process.stderr.write(`agentx: state kept in ${statePath}\n`);
    return code;
  };
  try {
    const deps = await createTurnDeps({
      config: { ...config, apiKey }, cli, env, session, emit, policy: ONESHOT_POLICY, cwd: () => cwd,
      // A one-shot never prompts (SPEC §1): with --confirm nobody can say yes, so every command is
      // declined (the model is told) rather than run unasked.
      confirm: cli.confirm ? declineInOneshot(cli.quiet) : undefined,
      onDebugLog: (p) => { if (!cli.quiet) process.stderr.write(`agentx: debug log ${p}\n`); },
    });
    await runTurn(deps, message, [], controller.signal);
    rmSync(statePath, { force: true });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof TurnInterrupted || controller.signal.aborted) return fail('interrupted', 'interrupted', EXIT_INTERRUPTED);
    if (err instanceof TurnFailed) return fail(`request failed: ${err.message}`, err.failure.kind, EXIT_FAILED);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
