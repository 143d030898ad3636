// The exec tools: exec_command starts a session and answers with what it printed within the
// yield time, and its exit code or its session id; write_stdin types into a session (or polls
// it) and answers the same way. The process manager (manager.ts) owns the sessions; this module
// turns calls into manager operations and replies into text in Codex's shape.
import { isAbsolute, resolve } from 'node:path';
import { nodeCrypto } from '../../lib/builtins.ts';
import { capOutput } from '../output.ts';
import { cwdProblem } from '../supervisor.ts';
import type { RunScope } from '../permissions/escalation.ts';
import type { ParseResult, Tool, ToolContext, ToolResult } from '../tool.ts';
import { acceptsExec, EXEC_COMMAND, execDefinitions, parseExecCall, shownChars, WRITE_STDIN, type ExecCommandCall, type WriteStdinCall } from './calls.ts';
import { outputForModel } from './binary-output.ts';
import { BYTES_PER_TOKEN, clampYield, EXEC_DEFAULT_YIELD_MS, outputCapBytes, writeYield } from './limits.ts';
import type { ExecManager } from './manager.ts';
import type { ExecSession } from './session.ts';

/** How a model command is to be started: the same sandbox, environment and filter as the shell tool's (tools/sandboxed.ts). */
export type SessionLaunch = { ok: true; argv: string[]; env: NodeJS.ProcessEnv; readOnly?: boolean } | { ok: false; error: string };

export interface ExecToolOptions {
  manager: ExecManager;
  /** `scope`: how the engine decided it runs (absent: as configured). */
  launch: (command: string, cwd: string, scope?: RunScope) => Promise<SessionLaunch>;
  /** The key out of what the model is sent (tools/sandboxed.ts redactSecrets). */
  redact: (text: string) => string;
  /**
   * Plan mode: the process manager is shared by every engine of the process, so a session started
   * before plan mode (with write access, or none of the sandbox) is still there. Typing into it
   * could change anything: only sessions started in the read-only sandbox may be typed into.
   */
  planMode?: boolean;
}

type ExecCall = ExecCommandCall | WriteStdinCall;

/**
 * The answer to "require_escalated" when no decision was made for the call (a session without the
 * engine's permissions, e.g. a unit test): it runs in the sandbox only. With the engine, the mode,
 * the rules and the person decide before the call starts (engine/permissions.ts) and ctx.scope says how.
 */
export function escalationAnswer(call: ExecCommandCall, scope: RunScope | undefined): string | undefined {
  if (call.escalation === undefined || scope !== undefined) return undefined;
  return 'escalation is not available here: exec_command runs in the sandbox. Run it again without "sandbox_permissions" (it may work sandboxed).';
}

function reply(text: string, summary: string[], interrupted = false, ok = true): ToolResult {
  return { reply: { ok, text }, summary, interrupted };
}

/**
 * A refused call: the model gets `error: …`, and the front-ends a finished command with the
 * reason as its stderr (a --json `tool_output`), as for every other tool's answer.
 */
function errorReply(call: ExecCall, ctx: ToolContext, message: string): ToolResult {
  ctx.progress({
    type: 'command_done',
    callId: call.callId,
    command: call.title,
    exitCode: null,
    timedOut: false,
    interrupted: false,
    durationMs: 0,
    truncatedBytes: 0,
    stdout: '',
    stderr: `error: ${message}`,
  });
  return reply(`error: ${message}`, [`error: ${message}`], false, false);
}

interface Answer {
  session: ExecSession;
  startedAt: number;
  maxOutputTokens: number | undefined;
  interrupted: boolean;
}

/** The reply text: chunk id, wall time, how the process stands, the output (cut to the cap). */
function answerText(a: Answer, redact: (t: string) => string): { text: string; status: string } {
  const read = a.session.read();
  const exit = a.session.exit;
  let status: string;
  if (!exit) status = `Process running with session ID ${a.session.id}`;
  else if (exit.stopped) status = 'Process was stopped by agentx or the user';
  else if (exit.code !== null) status = `Process exited with code ${exit.code}`;
  else status = `Process was killed by ${exit.signal ?? 'a signal'}`;
  // Judged and escaped after the cap: at most the reply's size is scanned, not the 1 MiB a session keeps.
  const capped = capOutput(redact(read.text), outputCapBytes(a.maxOutputTokens));
  const shown = outputForModel(capped.text, read.totalBytes - read.cutBytes);
  const lines = [
    `Chunk ID: ${nodeCrypto().randomBytes(3).toString('hex')}`,
    `Wall time: ${((performance.now() - a.startedAt) / 1000).toFixed(4)} seconds`,
    status,
    `Original token count: ${Math.ceil(read.totalBytes / BYTES_PER_TOKEN)}`,
  ];
  if (read.cutBytes > 0)
    lines.push(`Note: ${read.cutBytes} bytes from the middle of the output were dropped (a session keeps the first and last 512 KiB between reads).`);
  if (a.interrupted && !exit) lines.push(`Note: the user interrupted the turn; the session keeps running (write_stdin "\\u0003" interrupts it).`);
  lines.push('Output:', shown);
  return { text: lines.join('\n'), status };
}

function resolveDir(ctx: ToolContext, workdir: string | undefined): string {
  if (workdir === undefined) return ctx.cwd;
  return isAbsolute(workdir) ? workdir : resolve(ctx.cwd, workdir);
}

/** Live output of one session to the turn's progress while the call waits. */
function showLive(manager: ExecManager, session: ExecSession, ctx: ToolContext, redact: (t: string) => string): () => void {
  return manager.subscribe((ev) => {
    if (ev.type === 'exec_output' && ev.sessionId === session.id)
      ctx.progress({ type: 'command_output', callId: '', chunk: redact(ev.chunk), stream: 'stdout' });
  });
}

async function waitAndAnswer(
  o: ExecToolOptions,
  call: ExecCall,
  session: ExecSession,
  ctx: ToolContext,
  yieldMs: number,
  startedAt: number,
): Promise<ToolResult> {
  const live = showLive(o.manager, session, ctx, o.redact);
  try {
    await session.wait(yieldMs, ctx.signal);
  } finally {
    live();
  }
  // Ctrl-C ends the turn, never the session: a server the model started keeps serving.
  const interrupted = ctx.signal.aborted;
  const { text, status } = answerText({ session, startedAt, maxOutputTokens: call.maxOutputTokens, interrupted }, o.redact);
  const exit = session.exit;
  if (exit) o.manager.forget(session.id);
  ctx.progress({
    type: 'command_done',
    callId: call.callId,
    command: session.command,
    exitCode: exit?.code ?? null,
    timedOut: false,
    interrupted: false,
    durationMs: Math.round(performance.now() - startedAt),
    truncatedBytes: 0,
    stdout: '',
    stderr: '',
    ...(exit ? {} : { backgroundSession: session.id }),
  });
  return reply(text, [`${call.title} → ${status}`], interrupted);
}

async function runExec(o: ExecToolOptions, call: ExecCommandCall, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.retry) {
    return errorReply(
      call,
      ctx,
      'agentx stopped while this command was being started; if it started, it ended with agentx (sessions never outlive agentx) and it is not started again. Run it again if it is still needed.',
    );
  }
  const refusal = escalationAnswer(call, ctx.scope);
  if (refusal !== undefined) return errorReply(call, ctx, refusal);
  const cwd = resolveDir(ctx, call.workdir);
  const problem = cwdProblem(cwd);
  if (problem !== undefined) return errorReply(call, ctx, problem);
  const startedAt = performance.now();
  const launch = await o.launch(call.cmd, cwd, ctx.scope);
  if (!launch.ok) return errorReply(call, ctx, launch.error);
  const started = await o.manager.start({ command: call.cmd, argv: launch.argv, cwd, env: launch.env, tty: call.tty, readOnly: launch.readOnly === true });
  if (!started.ok) return errorReply(call, ctx, started.error);
  ctx.progress({ type: 'command_start', callId: call.callId, command: call.cmd });
  return waitAndAnswer(o, call, started.session, ctx, clampYield(call.yieldTimeMs, EXEC_DEFAULT_YIELD_MS), startedAt);
}

/** What the model is told about a session id that is not (or no longer) there. */
export function unknownSessionAnswer(id: number, running: readonly number[]): string {
  const list = running.length === 0 ? 'No exec session is running now.' : `Running sessions: ${running.join(', ')}.`;
  return `no exec session ${id} is running: it has exited (its exit was reported), was stopped, or ended when agentx exited (sessions never outlive agentx and are never restarted). ${list} Start the command again with exec_command if it is still needed.`;
}

/** A session of an agentx process that has ended (a crash, kill -9, an exit): it ended with it. */
export function endedEarlierAnswer(id: number, command: string, running: readonly number[]): string {
  const list = running.length === 0 ? 'No exec session is running now.' : `Running sessions: ${running.join(', ')}.`;
  return `exec session ${id} (${JSON.stringify(command.slice(0, 200))}) no longer exists: it ended when the agentx process that started it ended (a crash, a kill or an exit; sessions never outlive agentx), and agentx never restarts it. ${list} Start the command again with exec_command if it is still needed.`;
}

/** Plan mode and a session that could change files: reading it is fine, typing into it is not. */
export function planModeWriteAnswer(id: number): string {
  return `nothing was typed into exec session ${id}: it was started before plan mode, outside the read-only sandbox, and plan mode changes nothing. You may read its output (write_stdin with empty chars); start a new session with exec_command for anything else, or make it part of the plan.`;
}

async function runWrite(o: ExecToolOptions, call: WriteStdinCall, ctx: ToolContext): Promise<ToolResult> {
  const session = o.manager.get(call.sessionId);
  if (!session) {
    const earlier = o.manager.endedEarlierCommand(call.sessionId);
    const running = o.manager.list().map((s) => s.id);
    return errorReply(call, ctx, earlier === undefined ? unknownSessionAnswer(call.sessionId, running) : endedEarlierAnswer(call.sessionId, earlier, running));
  }
  // Ended since the last read: its last output and how it ended, once (then it is forgotten).
  if (session.exit) return waitAndAnswer(o, call, session, ctx, 0, performance.now());
  if (o.planMode === true && call.chars !== '' && !session.readOnly) return errorReply(call, ctx, planModeWriteAnswer(session.id));
  const startedAt = performance.now();
  ctx.progress({ type: 'command_start', callId: call.callId, command: `[session ${session.id}] ${shownChars(call.chars)}` });
  if (call.chars !== '') session.process?.write(call.chars);
  return waitAndAnswer(o, call, session, ctx, writeYield(call.yieldTimeMs, call.chars), startedAt);
}

function execToolFor(name: string, o: ExecToolOptions, definitionIndex: number): Tool<ExecCall> {
  return {
    name,
    writes: true,
    definitions: () => [execDefinitions()[definitionIndex]].filter((d) => d !== undefined),
    accepts: (item) => acceptsExec(item) && item.type === 'function_call' && item.name === name,
    parse: (item): ParseResult<ExecCall> => parseExecCall(item),
    run: (call, ctx) => (call.kind === 'exec' ? runExec(o, call, ctx) : runWrite(o, call, ctx)),
  };
}

/** exec_command and write_stdin, sharing one process manager. */
export function createExecTools(o: ExecToolOptions): Tool[] {
  return [execToolFor(EXEC_COMMAND, o, 0), execToolFor(WRITE_STDIN, o, 1)] as Tool[];
}
