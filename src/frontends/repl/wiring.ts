// Configuration → engine for the REPL: the turn dependencies (rebuilt after /setup), a client
// wrapper that prices each response as it completes, and the no-API-key setup offer.
import type { CliOptions } from '../../cli/args.ts';
import { resolveConfig, NO_KEY_MESSAGE, type Config } from '../../config/config.ts';
import { interactiveSetup } from '../../config/setup.ts';
import { INTERACTIVE_POLICY } from '../../agent/recovery.ts';
import type { TurnDeps } from '../../agent/turn.ts';
import type { ModelClient, ModelEvent, ModelRequest } from '../../model/types.ts';
import { configPath } from '../../paths.ts';
import { createTurnDeps } from '../runtime.ts';
import { say, type ReplContext } from './context.ts';
import type { TurnRunner } from './turns.ts';
import type { CostTracker } from './usage-view.ts';

function pricedClient(client: ModelClient, costs: CostTracker): ModelClient {
  return {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      for await (const ev of client.stream(request, signal)) {
        if (ev.type === 'completed') costs.onResponse(request.model, ev.response.usage);
        yield ev;
      }
    },
  };
}

export async function buildDeps(
  ctx: Pick<ReplContext, 'cli' | 'env' | 'session' | 'costs' | 'out' | 'theme'> & { cwd: () => string },
  config: Config & { apiKey: string },
  runner: () => TurnRunner,
): Promise<TurnDeps> {
  const deps = await createTurnDeps({
    config, cli: ctx.cli, env: ctx.env, session: ctx.session,
    emit: (ev) => runner().emit(ev),
    policy: INTERACTIVE_POLICY,
    cwd: ctx.cwd,
    confirm: ctx.cli.confirm ? (commands) => runner().confirm(commands) : undefined,
    onDebugLog: (p) => say(ctx, ctx.theme.dim(`debug log: ${p}`)),
    onDebugWarning: (m) => say(ctx, ctx.theme.yellow(`⚠ ${m}`)),
  });
  deps.client = pricedClient(deps.client, ctx.costs);
  return deps;
}

/** The configuration with a key, offering setup first when there is none (SPEC §2). */
export async function configWithKey(cli: CliOptions, env: NodeJS.ProcessEnv, out: NodeJS.WriteStream): Promise<(Config & { apiKey: string }) | string> {
  let config = resolveConfig(cli, env);
  if (!config.apiKey) {
    out.write('No API key is configured yet. Let\'s set one up (Enter keeps a value).\n');
    try {
      await interactiveSetup(configPath(env), process.stdin, out);
    } catch (err) {
      // Ctrl-C or a bad value: no key, reported by the caller like any missing key.
      out.write(`\nsetup cancelled: ${(err as Error).message}\n`);
    }
    config = resolveConfig(cli, env);
  }
  const apiKey = config.apiKey;
  return apiKey ? { ...config, apiKey } : NO_KEY_MESSAGE;
}
