// Configuration → the engine's collaborators for the REPL (the engine is built once from them,
// and reconfigured with new ones after /setup, /plan and MCP tools joining), a client wrapper
// that prices each response as it completes, and the no-API-key setup offer.
import type { CliOptions } from '../../cli/args.ts';
import { resolveConfig, NO_KEY_MESSAGE, type Config } from '../../config/config.ts';
import { INTERACTIVE_POLICY } from '../../engine/recovery.ts';
import type { TurnDeps } from '../../engine/turn.ts';
import type { ModelClient } from '../../model/types.ts';
import { observeUsage } from '../../model/usage-observer.ts';
import { configPath } from '../../paths.ts';
import type { McpManager } from '../../tools/mcp/manager.ts';
import { createCommands, createTurnDeps, type CommandRunner } from '../runtime.ts';
import { say, type ReplContext } from './context.ts';
import type { TurnRunner } from './turns.ts';
import type { CostTracker } from './usage-view.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import { sanitizeLine, sanitizeLines } from '../../ui/sanitize.ts';

/** Prices each response as it completes, compactions (POST /responses/compact) included. */
export function pricedClient(client: ModelClient, costs: Pick<CostTracker, 'onResponse'>): ModelClient {
  return observeUsage(client, (model, usage) => costs.onResponse(model, usage));
}

/**
 * The session's command runner: sandbox notices as REPL lines. A refused command is offered a
 * re-run by the engine's question (shell-tool.ts), not here: the same decision path as an
 * escalation request (plan mode refuses it there).
 */
export function replCommands(ctx: Pick<ReplContext, 'env' | 'session' | 'out' | 'theme'>, config: Config & { apiKey: string }): CommandRunner {
  return createCommands({
    config,
    env: ctx.env,
    workspaceRoot: ctx.session.dir,
    onNotice: (m) => say(ctx, ctx.theme.yellow(`⚠ ${sanitizeLines(m)}`)),
  });
}

/**
 * The engine's collaborators for a configuration: `new Engine(…)` once at start, then
 * `engine.reconfigure(…)` when the configuration, the mode or the tools change. Events go to the
 * runner, questions to its menus (the runner exists before the engine: nothing binds late).
 */
export function replEngineDeps(
  ctx: Pick<ReplContext, 'cli' | 'env' | 'session' | 'log' | 'costs' | 'out' | 'theme' | 'hosted' | 'snapshots' | 'permissions'> & {
    cwd: () => string;
    runner: TurnRunner;
  },
  config: Config & { apiKey: string },
  commands: CommandRunner,
  mcp?: McpManager,
  planMode = false,
): Promise<TurnDeps> {
  const runner = ctx.runner;
  return createTurnDeps({
    config,
    cli: ctx.cli,
    env: ctx.env,
    session: ctx.session,
    log: ctx.log,
    commands,
    mcp,
    hosted: ctx.hosted,
    planMode,
    emit: runner.emit,
    policy: INTERACTIVE_POLICY,
    cwd: ctx.cwd,
    workspaceRoot: ctx.session.dir,
    // The mode (/approvals) is read at each call: calls that are not commands (patches) are
    // confirmed under untrusted, on the same channel as every other question.
    permissions: ctx.permissions,
    answer: runner.answerQuestion,
    wrapClient: (client) => pricedClient(client, ctx.costs),
    workspace: ctx.snapshots?.files,
    onDebugLog: (p) => say(ctx, ctx.theme.dim(`debug log: ${sanitizeLine(p)}`)),
    onDebugWarning: (m) => say(ctx, ctx.theme.yellow(`⚠ ${sanitizeLines(m)}`)),
    onNotice: (m) => say(ctx, ctx.theme.yellow(`⚠ ${sanitizeLines(m)}`)),
  });
}

/** The setup dialogue, loaded only when used (a rarely taken path should not cost every start). */
export async function runSetupDialogue(path: string, out: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { interactiveSetup } = await import('../../config/setup.ts');
  await interactiveSetup(path, process.stdin, out, env);
}

/** The configuration with a key, offering setup first when there is none (SPEC §2). */
export async function configWithKey(cli: CliOptions, env: NodeJS.ProcessEnv, out: NodeJS.WriteStream): Promise<(Config & { apiKey: string }) | string> {
  let config = resolveConfig(cli, env);
  if (!config.apiKey) {
    out.write("No API key is configured yet. Let's set one up (Enter keeps a value).\n");
    try {
      await runSetupDialogue(configPath(env), out, env);
    } catch (err) {
      // Ctrl-C or a bad value: no key, reported by the caller like any missing key.
      out.write(`\nsetup cancelled: ${errorMessage(err)}\n`);
    }
    config = resolveConfig(cli, env);
  }
  const apiKey = config.apiKey;
  return apiKey ? { ...config, apiKey } : NO_KEY_MESSAGE;
}
