// One user turn: request → tool calls → execute (journaled) → continue, until the model answers.
// Front-ends give it I/O (model client, command runner, session handle) and read its events.
import { isAbsolute, resolve } from 'node:path';
import { ModelError, classifyFailure } from '../model/errors.ts';
import { buildRequest, userMessageWithContext, type RequestShape } from '../model/request.ts';
import { addUsage, ZERO_USAGE, type CompletedResponse, type FunctionCallItem, type ModelClient, type ShellCallItem, type TurnUsage } from '../model/types.ts';
import {
  markToolCall, recordFailure, recordToolCalls, recordTurn,
  type SessionState, type ToolJournalEntry,
} from '../session/state.ts';
import type { ShellRunOptions, ShellRunResult } from '../tools/shell.ts';
import type { CommandResultInfo, EmitEvent } from './events.ts';
import { newChainInput } from './new-chain.ts';
import { retryDelay, type RetryPolicy } from './recovery.ts';
import { buildNotRunOutput, buildOutputItem, isShellOrFunctionCall, parseToolCall, summarizeResults, unfinishedCallOutput, type ParsedCall } from './tool-calls.ts';

/** The session as the engine sees it: read the state, apply a pure transition (persisted by the front-end). */
export interface SessionHandle {
  readonly state: SessionState;
  update(transition: (s: SessionState) => SessionState): void;
}

export interface TurnDeps {
  client: ModelClient;
  shape: RequestShape;
  session: SessionHandle;
  runCommand(opts: ShellRunOptions): Promise<ShellRunResult>;
  cwd(): string;
  emit: EmitEvent;
  /** --confirm: asked before each call's commands run; false sends the model a refusal. */
  confirm?: (commands: string[]) => Promise<boolean>;
  policy: RetryPolicy;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): Date;
  random(): number;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
}

export interface TurnResult {
  responseId: string;
  text: string;
  usage: TurnUsage;
}

/** The request failed after the automatic recovery; the state holds failed_response + pending_transaction. */
export class TurnFailed extends Error {
  constructor(readonly failure: ModelError) {
    super(failure.message);
    this.name = 'TurnFailed';
  }
}

/** The user interrupted the turn (Ctrl-C); what ran is journaled. */
export class TurnInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'TurnInterrupted';
  }
}

interface Attempt {
  input: unknown[];
  previousResponseId: string | null;
}

/**
 * Input items that must precede a new user message: outputs for tool calls of the chain head
 * that were answered locally (e.g. interrupted) but never sent.
 */
export function leftoverOutputs(state: SessionState): unknown[] {
  // A call that may have partly run must not be repeated without the user's say.
  return state.pending_tool_calls.map((c) => c.status === 'completed' && c.output !== undefined
    ? c.output
    : unfinishedCallOutput(c, c.status === 'started'));
}

export async function runTurn(deps: TurnDeps, userText: string, context: string[], signal: AbortSignal): Promise<TurnResult> {
  const state = deps.session.state;
  const input = [...leftoverOutputs(state), userMessageWithContext(context, userText)];
  return continueTurn(deps, { input, previousResponseId: state.response_id }, userText, signal);
}

/** Runs the request/tool loop from a prepared first request (a new message, a retry, or pending outputs). */
export async function continueTurn(deps: TurnDeps, first: Attempt, userText: string, signal: AbortSignal): Promise<TurnResult> {
  try {
    return await turnLoop(deps, first, userText, signal);
  } catch (err) {
    // Renderers need to know the turn ended without an answer (e.g. to stop a retry countdown).
    if (err instanceof TurnInterrupted) deps.emit({ type: 'turn_interrupted' });
    else if (err instanceof TurnFailed) deps.emit({ type: 'turn_failed', message: err.message });
    throw err;
  }
}

async function turnLoop(deps: TurnDeps, first: Attempt, userText: string, signal: AbortSignal): Promise<TurnResult> {
  const started = deps.now().getTime();
  let attempt = first;
  let turnUsage: TurnUsage = ZERO_USAGE;
  const toolSummaries: string[] = [];
  for (;;) {
    const response = await requestWithRecovery(deps, attempt, userText, signal);
    turnUsage = addUsage(turnUsage, response.usage);
    if (response.status === 'incomplete') deps.emit({ type: 'response_incomplete', responseId: response.id });
    if (response.toolCalls.length === 0) {
      deps.session.update((s) => recordTurn(s, {
        responseId: response.id, userMessage: userText, assistantMessage: response.text,
        usage: response.usage, toolSummaries, now: deps.now(),
      }));
      deps.emit({ type: 'usage', usage: turnUsage });
      deps.emit({ type: 'turn_done', responseId: response.id, text: response.text, usage: turnUsage, durationMs: deps.now().getTime() - started });
      return { responseId: response.id, text: response.text, usage: turnUsage };
    }
    deps.session.update((s) => recordToolCalls(s, {
      responseId: response.id, calls: response.toolCalls.filter(isShellOrFunctionCall).map(journalEntry), usage: response.usage,
      userMessage: userText, assistantText: response.text,
    }));
    const outputs = await executeCalls(deps, signal, toolSummaries);
    attempt = { input: outputs, previousResponseId: response.id };
  }
}

function journalEntry(call: ShellCallItem | FunctionCallItem): ToolJournalEntry {
  return call.type === 'shell_call'
    ? { call_id: call.call_id, type: 'shell_call', action: call.action, status: 'pending' }
    : { call_id: call.call_id, type: 'function_call', name: call.name, arguments: call.arguments, status: 'pending' };
}

function toToolCallItem(entry: ToolJournalEntry): ShellCallItem | FunctionCallItem {
  return entry.type === 'shell_call'
    ? { type: 'shell_call', call_id: entry.call_id, action: entry.action ?? { commands: [] } }
    : { type: 'function_call', call_id: entry.call_id, name: entry.name ?? '', arguments: entry.arguments ?? '' };
}

/**
 * Runs every journaled call of the chain head that is not completed, in order, and returns the
 * outputs of all of them. `completed` calls are never re-run: their recorded output is reused.
 */
export async function executeCalls(deps: TurnDeps, signal: AbortSignal, summaries: string[] = []): Promise<unknown[]> {
  const outputs: unknown[] = [];
  let interrupted = false;
  for (const entry of deps.session.state.pending_tool_calls) {
    const call = parseToolCall(toToolCallItem(entry));
    if (entry.status === 'completed' && entry.output !== undefined) {
      deps.emit({ type: 'tool_reused', callId: call.callId, commands: call.commands });
      outputs.push(entry.output);
      continue;
    }
    deps.emit({ type: 'tool_call', callId: call.callId, kind: call.kind, commands: call.commands });
    let output: unknown;
    if (interrupted || signal.aborted) {
      output = buildNotRunOutput(call, 'not run: the user interrupted the turn');
    } else if (call.error) {
      deps.emit({ type: 'tool_error', callId: call.callId, message: call.error });
      output = buildNotRunOutput(call, call.error);
    } else if (deps.confirm && !(await deps.confirm(call.commands))) {
      output = buildNotRunOutput(call, 'the user declined to run this command');
    } else {
      deps.session.update((s) => markToolCall(s, call.callId, 'started'));
      const results = await runCallCommands(deps, call, signal);
      summaries.push(...summarizeResults(results));
      interrupted = results.some((r) => r.interrupted);
      output = buildOutputItem(call, results);
    }
    deps.session.update((s) => markToolCall(s, call.callId, 'completed', output));
    outputs.push(output);
  }
  if (interrupted || signal.aborted) throw new TurnInterrupted();
  return outputs;
}

async function runCallCommands(deps: TurnDeps, call: ParsedCall, signal: AbortSignal): Promise<CommandResultInfo[]> {
  const results: CommandResultInfo[] = [];
  const cwd = call.workdir ? (isAbsolute(call.workdir) ? call.workdir : resolve(deps.cwd(), call.workdir)) : deps.cwd();
  for (const command of call.commands) {
    deps.emit({ type: 'command_start', callId: call.callId, command });
    const r = await deps.runCommand({
      command, cwd, signal,
      timeoutMs: call.timeoutMs ?? deps.defaultTimeoutMs,
      maxOutputBytes: call.maxOutput ?? deps.defaultMaxOutputBytes,
      onOutput: (chunk, stream) => deps.emit({ type: 'command_output', callId: call.callId, chunk, stream }),
    });
    const info: CommandResultInfo = {
      callId: call.callId, command, exitCode: r.exitCode, timedOut: r.timedOut, interrupted: r.interrupted,
      durationMs: r.durationMs, truncatedBytes: r.truncatedBytes, stdout: r.stdout, stderr: r.stderr,
    };
    deps.emit({ type: 'command_done', ...info });
    results.push(info);
    if (r.interrupted) break;
  }
  return results;
}

async function streamOnce(deps: TurnDeps, attempt: Attempt, signal: AbortSignal): Promise<CompletedResponse> {
  const request = buildRequest(deps.shape, attempt.input, attempt.previousResponseId);
  let streamed = false;
  for await (const ev of deps.client.stream(request, signal)) {
    if (ev.type === 'text_delta') {
      streamed = true;
      deps.emit({ type: 'text_delta', delta: ev.delta });
    } else if (ev.type === 'reasoning_delta') deps.emit({ type: 'reasoning_delta', delta: ev.delta });
    else if (ev.type === 'reasoning_done') deps.emit({ type: 'reasoning_done' });
    else if (ev.type === 'completed') {
      // A server that sends no text deltas (some proxies and compatible servers only fill in the
      // completed response) still gets its answer shown: renderers and --json read the deltas.
      if (!streamed && ev.response.text !== '') deps.emit({ type: 'text_delta', delta: ev.response.text });
      return ev.response;
    }
  }
  throw new ModelError('the stream ended before the response completed', 'retryable');
}

/** One request with the automatic part of the recovery policy: bounded retries and new chain. */
async function requestWithRecovery(deps: TurnDeps, first: Attempt, userText: string, signal: AbortSignal): Promise<CompletedResponse> {
  let attempt = first;
  let tries = 1;
  let chainRestarted = false;
  for (;;) {
    deps.emit({ type: 'request_start', previousResponseId: attempt.previousResponseId, attempt: tries });
    try {
      return await streamOnce(deps, attempt, signal);
    } catch (err) {
      const failure = signal.aborted ? new ModelError('request cancelled', 'aborted') : classifyFailure(err);
      if (failure.details.partialText) deps.emit({ type: 'response_cut', partialText: failure.details.partialText, reason: failure.message });
      if (failure.kind === 'aborted') throw new TurnInterrupted();
      if (failure.kind === 'chain_broken' && attempt.previousResponseId !== null && !chainRestarted) {
        chainRestarted = true;
        deps.emit({ type: 'chain_restarted', reason: failure.message });
        attempt = { input: newChainInput(deps.session.state, attempt.input), previousResponseId: null };
        continue;
      }
      const delay = retryDelay(deps.policy, tries, failure, () => deps.random());
      if (delay === null) {
        deps.session.update((s) => recordFailure(s, {
          error: failure.message, status: failure.details.status, input: attempt.input,
          previousResponseId: attempt.previousResponseId, userMessage: userText, now: deps.now(),
        }));
        throw new TurnFailed(failure);
      }
      deps.emit({ type: 'retry', attempt: tries, maxAttempts: deps.policy.maxAttempts, delayMs: delay, reason: failure.message });
      await deps.sleep(delay, signal);
      if (signal.aborted) throw new TurnInterrupted();
      tries++;
    }
  }
}
