// Turning model tool calls into commands, and command results into the output items the API
// expects. Pure: no process spawning here.
import { SHELL_FUNCTION_NAME } from '../model/request.ts';
import type { FunctionCallItem, ShellCallItem, ToolCallItem } from '../model/types.ts';
import type { ToolJournalEntry } from '../session/state.ts';
import type { CommandResultInfo } from './events.ts';

export interface ParsedCall {
  callId: string;
  kind: 'shell_call' | 'function_call';
  commands: string[];
  timeoutMs: number | undefined;
  maxOutput: number | undefined;
  workdir: string | undefined;
  /** Set when the call cannot be run; it is answered with this error instead. */
  error?: string;
}

function asPositiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** The calls this engine runs itself (apply_patch calls are for the tool registry, issue 13). */
export function isShellOrFunctionCall(call: ToolCallItem): call is ShellCallItem | FunctionCallItem {
  return call.type === 'shell_call' || call.type === 'function_call';
}

export function parseToolCall(call: ShellCallItem | FunctionCallItem): ParsedCall {
  if (call.type === 'shell_call') {
    const commands = Array.isArray(call.action?.commands) ? call.action.commands.filter((c): c is string => typeof c === 'string') : [];
    return {
      callId: call.call_id, kind: 'shell_call', commands,
      timeoutMs: asPositiveInt(call.action?.timeout_ms), maxOutput: asPositiveInt(call.action?.max_output_length), workdir: undefined,
      error: commands.length === 0 ? 'the shell call has no commands' : undefined,
    };
  }
  const base: ParsedCall = { callId: call.call_id, kind: 'function_call', commands: [], timeoutMs: undefined, maxOutput: undefined, workdir: undefined };
  if (call.name !== SHELL_FUNCTION_NAME) return { ...base, error: `unknown tool "${call.name}": the only tool is "${SHELL_FUNCTION_NAME}"` };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (err) {
    return { ...base, error: `invalid JSON arguments for "${call.name}": ${(err as Error).message}` };
  }
  const a = (args ?? {}) as { commands?: unknown; timeout_ms?: unknown; workdir?: unknown };
  if (!Array.isArray(a.commands) || a.commands.length === 0 || !a.commands.every((c) => typeof c === 'string')) {
    return { ...base, error: '"commands" must be a non-empty array of strings' };
  }
  return {
    ...base, commands: a.commands, timeoutMs: asPositiveInt(a.timeout_ms),
    workdir: typeof a.workdir === 'string' && a.workdir.length > 0 ? a.workdir : undefined,
  };
}

export function describeResult(r: CommandResultInfo): string {
  if (r.interrupted) return 'interrupted by the user';
  if (r.timedOut) return 'timed out';
  return `exit ${r.exitCode ?? 'signal'}`;
}

/** The output item for a call whose commands ran (all, or until one was interrupted). */
export function buildOutputItem(call: ParsedCall, results: CommandResultInfo[]): Record<string, unknown> {
  if (call.kind === 'shell_call') {
    return {
      type: 'shell_call_output',
      call_id: call.callId,
      output: results.map((r) => ({
        stdout: r.stdout,
        stderr: r.interrupted ? `${r.stderr}${r.stderr && !r.stderr.endsWith('\n') ? '\n' : ''}[interrupted by the user]` : r.stderr,
        outcome: r.timedOut ? { type: 'timeout' } : { type: 'exit', exit_code: r.exitCode ?? (r.interrupted ? 130 : 1) },
      })),
      ...(call.maxOutput ? { max_output_length: call.maxOutput } : {}),
    };
  }
  const text = results.map((r) => {
    const lines = [`$ ${r.command}`, `[${describeResult(r)}, ${r.durationMs} ms]`];
    if (r.stdout) lines.push(r.stdout.replace(/\n$/, ''));
    if (r.stderr) lines.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
    return lines.join('\n');
  }).join('\n\n');
  return { type: 'function_call_output', call_id: call.callId, output: text };
}

/** An output that tells the model the call was not run (error, refusal, interruption). */
export function buildNotRunOutput(call: { callId: string; kind: 'shell_call' | 'function_call'; commands: string[] }, reason: string): Record<string, unknown> {
  if (call.kind === 'shell_call') {
    const commands = call.commands.length > 0 ? call.commands : [''];
    return {
      type: 'shell_call_output',
      call_id: call.callId,
      output: commands.map(() => ({ stdout: '', stderr: reason, outcome: { type: 'exit', exit_code: 1 } })),
    };
  }
  return { type: 'function_call_output', call_id: call.callId, output: `error: ${reason}` };
}

const UNFINISHED = {
  started: 'interrupted: agentx stopped while this command was running, so it may have run partly; its output is lost',
  pending: 'not run: agentx stopped before this command started',
};
const ASK_FIRST = ' Do not run it again without asking the user first.';

/**
 * The output for a journaled call that never completed (agentx stopped): a `started` call is
 * described as possibly partly run, so the model does not assume it did nothing.
 */
export function unfinishedCallOutput(entry: ToolJournalEntry, askFirst: boolean): Record<string, unknown> {
  const reason = (entry.status === 'started' ? UNFINISHED.started : UNFINISHED.pending) + (askFirst ? `.${ASK_FIRST}` : '.');
  return buildNotRunOutput({ callId: entry.call_id, kind: entry.type, commands: entry.action?.commands ?? [] }, reason);
}

/** Short line for the local transcript (new-chain context). */
export function summarizeResults(results: CommandResultInfo[]): string[] {
  return results.map((r) => {
    const out = (r.stdout + (r.stderr ? `\n${r.stderr}` : '')).trim().slice(0, 400);
    return `$ ${r.command} → ${describeResult(r)}${out ? `\n${out}` : ''}`;
  });
}
