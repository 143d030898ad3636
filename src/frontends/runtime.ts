// Wiring shared by the one-shot and the REPL: config + flags → the turn engine's dependencies.
import type { CliOptions } from '../cli/args.ts';
import type { Config } from '../config/config.ts';
import type { EmitEvent } from '../agent/events.ts';
import { withBaseDelay, type RetryPolicy } from '../agent/recovery.ts';
import type { SessionHandle, TurnDeps } from '../agent/turn.ts';
import { createOpenAIClient } from '../model/client.ts';
import { createDebugLog } from '../model/debug-log.ts';
import { envWithoutSecrets, scrubSecrets } from '../model/scrub.ts';
import { buildInstructions, shellTools } from '../model/request.ts';
import { homeDir, logDir } from '../paths.ts';
import { DEFAULT_TIMEOUT_MS, runShellCommand } from '../tools/shell.ts';
import { effectiveOutputCap, resolveLimits } from '../config/limits.ts';
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

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
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
  confirm?: TurnDeps['confirm'];
  onDebugLog?: (path: string) => void;
  /** Said once when the --debug log cannot be written; requests go on regardless. */
  onDebugWarning?: (message: string) => void;
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
  // Commands never see the key (see scrub.ts); computed once, the environment does not change.
  const commandEnv = envWithoutSecrets(r.env, [r.config.apiKey]);
  return {
    client: scrubSecrets(client, [r.config.apiKey]),
    shape: {
      model: r.config.model,
      // The shell named to the model is the one commands really run under (supervisor.ts decides).
      instructions: buildInstructions(r.cwd(), homeDir(r.env), resolveUserShell(r.env.SHELL)),
      tools: shellTools(r.config.shellTool),
      reasoningEffort: r.config.reasoningEffort,
    },
    session: r.session,
    // The model's max_output_length may lower the cap, never raise it past the configured ceiling.
    runCommand: (opts) => runShellCommand({ ...opts, env: opts.env ?? commandEnv, maxOutputBytes: effectiveOutputCap(opts.maxOutputBytes, limits.maxOutputBytes) }),
    cwd: r.cwd,
    emit: r.emit,
    confirm: r.confirm,
    policy: withBaseDelay(r.policy, envNumber(r.env, 'AGENTX_RETRY_BASE_MS')),
    sleep,
    now: () => new Date(),
    random: Math.random,
    defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    defaultMaxOutputBytes: limits.maxOutputBytes,
  };
}
