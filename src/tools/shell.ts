// Runs one model-issued command line (SPEC §4 "Execution"): user's shell, own process group,
// timeout, capped output, Ctrl-C stops the group, and nothing outlives agentx (see supervisor.ts).
import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { sleep } from '../lib/sleep.ts';
import { OutputCollector } from './output.ts';
import { DEFAULT_KILL_GRACE_MS, killProcessGroup } from './process-group.ts';
import { cwdProblem, SANDBOX_START_FD, spawnSupervised, type SandboxLaunch } from './supervisor.ts';

export const DEFAULT_TIMEOUT_MS = 120_000;
/** Per stream. ~16k tokens of worst-case text: enough for a build log's head and its failing tail. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
/** Exit code reported when the command could not be started at all (as shells do for "not found"). */
export const SPAWN_FAILURE_EXIT_CODE = 127;

/**
 * After the command exits, how long to wait for its pipes to close. Background jobs it left
 * behind may hold them open forever; they are being killed anyway, so don't wait on them.
 */
const DRAIN_MS = 200;
/**
 * In bwrap, the process agentx waits on is bwrap itself, which exits (on a stop, or when the
 * command ends) a moment before the sandbox's processes are torn down. Nothing in a sandbox can
 * hold the pipes for long: its init dies with the command or with bwrap, or at the latest with the
 * group's SIGKILL after the grace. So wait for the pipes to close: a command then counts as
 * stopped only once nothing of it runs.
 */
function sandboxDrainMs(graceMs: number): number {
  return graceMs + 2 * DRAIN_MS;
}

/** setTimeout overflows above this and would fire immediately. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ShellRunOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  env?: NodeJS.ProcessEnv;
  /** SIGTERM → SIGKILL grace when stopping the group; DEFAULT_KILL_GRACE_MS if absent. */
  killGraceMs?: number;
  /** Run inside bubblewrap (src/sandbox/); absent: unsandboxed. tools/sandboxed.ts decides. */
  sandbox?: SandboxLaunch;
}

export interface ShellRunResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  durationMs: number;
  truncatedBytes: number;
}

type StreamName = 'stdout' | 'stderr';

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function failedToStart(startedAt: number, message: string): ShellRunResult {
  return {
    stdout: '',
    stderr: `agentx: cannot run command: ${message}\n`,
    exitCode: SPAWN_FAILURE_EXIT_CODE,
    signal: null,
    timedOut: false,
    interrupted: false,
    durationMs: elapsed(startedAt),
    truncatedBytes: 0,
  };
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * Runs `opts.command` and resolves when it has exited and its output is collected. Never
 * rejects: a failing command is a result, and a command that cannot start resolves with exit
 * code 127 and the reason on stderr.
 */
export function runShellCommand(opts: ShellRunOptions): Promise<ShellRunResult> {
  const startedAt = performance.now();
  if (opts.signal?.aborted) return Promise.resolve(neverRan(startedAt));
  const problem = cwdProblem(opts.cwd);
  if (problem !== undefined) return Promise.resolve(failedToStart(startedAt, problem));
  const graceMs = opts.killGraceMs !== undefined && opts.killGraceMs >= 0 ? opts.killGraceMs : DEFAULT_KILL_GRACE_MS;
  return launchUntilStarted(opts, { startedAt, graceMs });
}

/**
 * How often a sandbox that failed before the command started is set up again. Such a failure is
 * a race with a file being replaced (supervisor.ts), gone a moment later; starting again cannot
 * run the command twice, because the command provably never started.
 */
const SANDBOX_SETUP_ATTEMPTS = 6;
export const SANDBOX_SETUP_RETRY_MS = 15;
/** Output shown live is held back until the start marker; this much at most (the result keeps all). */
const MAX_HELD_BYTES = 64 * 1024;

async function launchUntilStarted(opts: ShellRunOptions, timing: { startedAt: number; graceMs: number }): Promise<ShellRunResult> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= SANDBOX_SETUP_ATTEMPTS;
    let child: ChildProcess;
    try {
      child = spawnSupervised({ command: opts.command, cwd: opts.cwd, env: opts.env ?? process.env, graceMs: timing.graceMs, sandbox: opts.sandbox });
    } catch (err) {
      return failedToStart(timing.startedAt, err instanceof Error ? err.message : String(err));
    }
    const { result, started } = await new Promise<Supervised>((resolve) => {
      superviseChild(child, opts, { ...timing, holdUnstartedOutput: !last }, resolve);
    });
    // Interrupted before the command started: it never ran, whatever bwrap said meanwhile.
    if (!started && opts.signal?.aborted) return neverRan(timing.startedAt);
    const setupFailed = opts.sandbox !== undefined && !started && !result.interrupted && !result.timedOut && result.exitCode !== 0;
    if (!setupFailed || last) return result;
    await sleep(SANDBOX_SETUP_RETRY_MS * attempt, opts.signal);
    if (opts.signal?.aborted) return neverRan(timing.startedAt);
  }
}

function neverRan(startedAt: number): ShellRunResult {
  return { stdout: '', stderr: '', exitCode: null, signal: null, timedOut: false, interrupted: true, durationMs: elapsed(startedAt), truncatedBytes: 0 };
}

interface Supervised {
  result: ShellRunResult;
  /** Sandboxed: whether the start marker arrived (the command itself ran). Unsandboxed: true. */
  started: boolean;
}

function superviseChild(
  child: ChildProcess,
  opts: ShellRunOptions,
  timing: { startedAt: number; graceMs: number; holdUnstartedOutput: boolean },
  resolve: (r: Supervised) => void,
): void {
  // Infinity too falls back: memory must stay bounded whatever the caller asks.
  const maxBytes = Number.isFinite(opts.maxOutputBytes) && opts.maxOutputBytes >= 0 ? opts.maxOutputBytes : DEFAULT_MAX_OUTPUT_BYTES;
  const collectors = { stdout: new OutputCollector(maxBytes), stderr: new OutputCollector(maxBytes) };
  const pid = child.pid;
  const lifeline = child.stdio[3];
  // The lifeline must not keep agentx running; if agentx exits, closing it is the point.
  if (lifeline instanceof Socket) lifeline.unref();
  lifeline?.on('error', () => undefined);

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let timedOut = false;
  let interrupted = false;
  let openStreams = 0;
  let settled = false;
  let stopping: Promise<void> | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  // Sandboxed, nothing is the command's until the start marker arrives (supervisor.ts): what
  // comes before is bwrap's own setup error, shown only if there is no further attempt.
  let started = opts.sandbox === undefined;
  const held: { text: string; name: StreamName }[] = [];
  let heldBytes = 0;

  // One stop per command: TERM, grace, KILL. The lifeline is closed only afterwards, so the
  // watcher stays on guard (it ignores TERM) until the group is really gone. Its presence also
  // keeps the group id from being reused, so the delayed SIGKILL cannot hit a stranger's group.
  const stopGroup = (): void => {
    if (stopping || pid === undefined) return;
    stopping = killProcessGroup(pid, timing.graceMs).finally(() => lifeline?.destroy());
  };

  const timer = setTimeout(
    () => {
      if (exit) return;
      timedOut = true;
      stopGroup();
    },
    Math.min(positiveOr(opts.timeoutMs, DEFAULT_TIMEOUT_MS), MAX_TIMER_MS),
  );

  const onAbort = (): void => {
    if (exit) return;
    interrupted = true;
    stopGroup();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  // An abort that came while this attempt was being started fires no event: act on it now.
  if (opts.signal?.aborted) onAbort();

  const settle = (result: ShellRunResult): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    clearTimeout(drainTimer);
    opts.signal?.removeEventListener('abort', onAbort);
    if (!started && !timing.holdUnstartedOutput) flushHeld();
    resolve({ result, started });
  };

  const maybeFinish = (): void => {
    if (!exit || openStreams > 0) return;
    const out = collectors.stdout.result();
    const err = collectors.stderr.result();
    settle({
      stdout: out.text,
      stderr: err.text,
      // A command we killed did not choose its exit status; report none.
      exitCode: timedOut || interrupted ? null : exit.code,
      signal: exit.signal,
      timedOut,
      interrupted,
      durationMs: elapsed(timing.startedAt),
      truncatedBytes: out.cutBytes + err.cutBytes,
    });
  };

  const emit = (text: string, name: StreamName): void => {
    if (text === '' || !opts.onOutput) return;
    if (!started) {
      // Before the marker only bwrap speaks (a line or two); a bound anyway.
      if (heldBytes < MAX_HELD_BYTES) {
        held.push({ text, name });
        heldBytes += text.length;
      }
      return;
    }
    show(text, name);
  };
  const flushHeld = (): void => {
    for (const { text, name } of held.splice(0)) show(text, name);
  };
  const show = (text: string, name: StreamName): void => {
    try {
      opts.onOutput?.(text, name);
    } catch {
      // A display failure must not lose the command's result or crash agentx from a stream event.
    }
  };

  const watchStream = (stream: Readable | null, name: StreamName): void => {
    if (!stream) return;
    openStreams++;
    // Per-stream decoder: a multi-byte character split across chunks is emitted whole.
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      collectors[name].push(chunk);
      emit(decoder.write(chunk), name);
    });
    stream.on('error', () => undefined);
    stream.once('close', () => {
      emit(decoder.end(), name);
      openStreams--;
      maybeFinish();
    });
  };
  watchStream(child.stdout, 'stdout');
  watchStream(child.stderr, 'stderr');
  const marker = opts.sandbox ? child.stdio[SANDBOX_START_FD] : undefined;
  if (marker) {
    // Counted like an output stream: the marker pipe ends only when the sandbox has let go of it,
    // so "did the command start?" is settled before the result is.
    openStreams++;
    marker.on('data', () => {
      if (started) return;
      started = true;
      flushHeld();
    });
    marker.on('error', () => undefined);
    marker.once('close', () => {
      openStreams--;
      maybeFinish();
    });
  }

  child.once('exit', (code, signal) => {
    exit = { code, signal };
    clearTimeout(timer);
    // The command is done; whatever it left running in its group goes too.
    stopGroup();
    drainTimer = setTimeout(
      () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        marker?.destroy();
      },
      opts.sandbox ? sandboxDrainMs(timing.graceMs) : DRAIN_MS,
    );
    maybeFinish();
  });

  child.once('error', (err) => {
    if (exit) return;
    if (pid !== undefined) stopGroup();
    else lifeline?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
    marker?.destroy();
    settle(failedToStart(timing.startedAt, err.message));
  });
}
