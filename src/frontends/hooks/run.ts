// Running hooks: each matching hook is a command run with a JSON document on stdin (the field
// names of Claude Code's and Codex's hooks where they agree), in the same sandbox as the model's
// commands unless the person's own file says otherwise, with the same secret-free environment,
// killed with its process group at its timeout. Exit 0 = go on (stdout is context for
// UserPromptSubmit and SessionStart), exit 2 = block (stderr is the reason), anything else = a
// one-line report and go on. Nothing a hook prints reaches the terminal unsanitized.
import type { ChildProcess } from 'node:child_process';
import type { HookEvent, HookOutcome, SessionHooks } from '../../engine/hooks.ts';
import { nodeChildProcess } from '../../lib/builtins.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import { preview } from '../../lib/text.ts';
import { commandEnvironment, redactSecrets } from '../../sandbox/env.ts';
import { blankInheritedDescriptors } from '../../tools/inherited-fds.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import type { HookCommand } from './config.ts';

/** What one hook may print that is kept (the rest is dropped): context stays small. */
const MAX_HOOK_OUTPUT_BYTES = 16 * 1024;
/** Exit code that blocks (Claude Code's and Codex's convention). */
export const BLOCK_EXIT_CODE = 2;

export type Wrapper = ((argv: string[], cwd: string) => string[]) | null | { refused: string };

export interface HookRunSetup {
  env: NodeJS.ProcessEnv;
  secrets: readonly string[];
  sessionId: string;
  cwd(): string;
  /** The command sandbox (tools/sandboxed.ts childWrapper), asked per run: the mode may have changed. */
  wrapper(): Promise<Wrapper>;
  /** One line for the person (already sanitized): a hook failed, timed out or could not start. */
  report(line: string): void;
}

export interface HookResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: string;
}

/** The JSON document a hook reads on stdin. */
export function hookPayload(event: HookEvent, sessionId: string, cwd: string): Record<string, unknown> {
  const base = { session_id: sessionId, cwd, hook_event_name: event.event };
  switch (event.event) {
    case 'SessionStart':
      return { ...base, source: event.source };
    case 'UserPromptSubmit':
      return { ...base, prompt: event.prompt };
    case 'PreToolUse':
      return { ...base, tool_name: event.toolName, tool_input: event.toolInput, tool_use_id: event.callId };
    case 'PostToolUse':
      return { ...base, tool_name: event.toolName, tool_input: event.toolInput, tool_response: event.toolResponse, tool_use_id: event.callId };
    case 'Stop':
      return { ...base, stop_hook_active: false, last_assistant_message: event.lastAssistantMessage };
    case 'Notification':
      return { ...base, message: event.message };
  }
}

function collect(child: ChildProcess, which: 'stdout' | 'stderr', into: { text: string; bytes: number }): void {
  child[which]?.setEncoding('utf8').on('data', (d: string) => {
    if (into.bytes >= MAX_HOOK_OUTPUT_BYTES) return;
    into.text += d;
    into.bytes += Buffer.byteLength(d);
  });
}

/** Runs one hook command: JSON in, its exit and output out; killed (whole group) at the timeout or on abort. */
export function runHookCommand(
  argv: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input: string; timeoutMs: number; signal?: AbortSignal },
): Promise<HookResult> {
  return new Promise((resolve) => {
    const out = { text: '', bytes: 0 };
    const err = { text: '', bytes: 0 };
    let timedOut = false;
    let child: ChildProcess;
    try {
      child = nodeChildProcess().spawn(argv[0] ?? '/bin/sh', argv.slice(1), {
        cwd: opts.cwd,
        env: opts.env,
        stdio: blankInheritedDescriptors(['pipe', 'pipe', 'pipe']),
        detached: true,
      });
    } catch (e) {
      resolve({ exitCode: null, stdout: '', stderr: '', timedOut: false, error: errorMessage(e) });
      return;
    }
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const onAbort = (): void => killGroup();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    collect(child, 'stdout', out);
    collect(child, 'stderr', err);
    // A hook that does not read its stdin closes the pipe: that is not its failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
    let spawnError: string | undefined;
    child.on('error', (e) => {
      spawnError = errorMessage(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, stdout: out.text, stderr: err.text, timedOut, error: spawnError });
    });
  });
}

function firstLine(text: string): string {
  return sanitizeLine(preview(text.trim().split('\n')[0] ?? ''));
}

export function createSessionHooks(hooks: readonly HookCommand[], setup: HookRunSetup): SessionHooks {
  const forEvent = (event: HookEvent): HookCommand[] =>
    hooks.filter((h) => h.event === event.event && (event.event !== 'PreToolUse' && event.event !== 'PostToolUse' ? true : h.matches(event.toolName)));

  async function argvFor(hook: HookCommand, cwd: string): Promise<string[] | string> {
    const argv = ['/bin/sh', '-c', hook.command];
    if (!hook.sandboxed) return argv;
    const wrapper = await setup.wrapper();
    if (wrapper === null) return argv;
    if (typeof wrapper !== 'function') return wrapper.refused;
    return wrapper(argv, cwd);
  }

  return {
    has: (name) => hooks.some((h) => h.event === name),
    async run(event, signal) {
      const outcome: HookOutcome = { context: [] };
      const cwd = setup.cwd();
      const input = JSON.stringify(hookPayload(event, setup.sessionId, cwd));
      for (const hook of forEvent(event)) {
        const label = `${event.event} hook ${sanitizeLine(preview(hook.command))}`;
        let argv: string[] | string;
        try {
          argv = await argvFor(hook, cwd);
        } catch (err) {
          // run() never throws: a sandbox that cannot be set up is a hook that did not run.
          argv = errorMessage(err);
        }
        if (typeof argv === 'string') {
          setup.report(`${label} not run: ${sanitizeLine(argv)}`);
          continue;
        }
        const r = await runHookCommand(argv, { cwd, env: commandEnvironment(setup.env, setup.secrets), input, timeoutMs: hook.timeoutMs, signal });
        const stdout = redactSecrets(r.stdout, setup.secrets);
        const stderr = redactSecrets(r.stderr, setup.secrets);
        if (r.timedOut) {
          setup.report(`${label} timed out after ${Math.round(hook.timeoutMs / 1000)} s and was stopped; going on`);
        } else if (r.error !== undefined && r.exitCode === null) {
          setup.report(`${label} could not start: ${sanitizeLine(r.error)}`);
        } else if (r.exitCode === BLOCK_EXIT_CODE) {
          const reason = stderr.trim() === '' ? `blocked by ${event.event} hook ${preview(hook.command)}` : stderr.trim();
          outcome.blocked ??= reason;
          // Only calls and prompts can be blocked; for other events it is a failure to report.
          if (event.event !== 'PreToolUse' && event.event !== 'UserPromptSubmit') setup.report(`${label} exited 2: ${firstLine(stderr)}`);
        } else if (r.exitCode !== 0) {
          setup.report(`${label} failed (exit ${r.exitCode ?? 'killed'})${stderr.trim() === '' ? '' : `: ${firstLine(stderr)}`}`);
        } else if ((event.event === 'UserPromptSubmit' || event.event === 'SessionStart') && stdout.trim() !== '') {
          outcome.context.push(stdout.trim());
        }
        if (outcome.blocked !== undefined && (event.event === 'PreToolUse' || event.event === 'UserPromptSubmit')) break;
      }
      return outcome;
    },
  };
}
