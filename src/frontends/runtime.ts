// Wiring shared by the one-shot and the REPL: config + flags → the turn engine's dependencies.
import type { CliOptions } from '../cli/args.ts';
import type { Config } from '../config/config.ts';
import type { EmitEvent } from '../agent/events.ts';
import { withBaseDelay, type RetryPolicy } from '../agent/recovery.ts';
import type { SessionHandle, TurnDeps } from '../agent/turn.ts';
import { createOpenAIClient } from '../model/client.ts';
import { createDebugLog } from '../model/debug-log.ts';
import { scrubSecrets } from '../model/scrub.ts';
import { buildInstructions, shellTools } from '../model/request.ts';
import { homeDir, logDir } from '../paths.ts';
import { createCommandRunner, type RerunAnswer, type RerunQuestion } from '../tools/sandboxed.ts';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '../tools/shell.ts';
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
  /** The session's directory, writable in workspace-write; r.cwd() at creation when absent. */
  sessionDir?: string;
  /** Once-per-session sandbox warnings (bwrap missing…); stderr when absent. */
  onNotice?: (message: string) => void;
  /** The REPL's "run once more without the sandbox? y/N/always" (tools/sandboxed.ts). */
  askToRerun?: (question: RerunQuestion) => Promise<RerunAnswer>;
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
  // Commands never see the key and run sandboxed as configured (tools/sandboxed.ts, docs/SANDBOX.md).
  const commands = createCommandRunner({
    setting: r.config.sandbox, sessionDir: r.sessionDir ?? r.cwd(), env: r.env, configFile: r.config.configFile,
    secrets: [r.config.apiKey], platform: process.platform, askToRerun: r.askToRerun,
    notice: r.onNotice ?? ((message) => { process.stderr.write(`agentx: ${message}\n`); }),
  });
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
    runCommand: (opts) => commands.run(opts),
    cwd: r.cwd,
    emit: r.emit,
    confirm: r.confirm,
    policy: withBaseDelay(r.policy, envNumber(r.env, 'AGENTX_RETRY_BASE_MS')),
    sleep,
    now: () => new Date(),
    random: Math.random,
    defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    defaultMaxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
  };
}
