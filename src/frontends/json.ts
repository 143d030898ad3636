// --json: one JSON object per line on stdout — a documented, stable contract (README, "JSON
// output"). Every line comes from here: the engine's events through toJsonLine (a pure function
// of the event), plus the session line at start and the error line at the end.
import type { AgentEvent } from '../engine/events.ts';
import type { FileChange } from '../tools/tool.ts';

export type JsonLine =
  | { type: 'session'; mode: 'oneshot'; cwd: string; model: string; previous_response_id: string | null; state_file: string }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'tool_call'; call_id: string; kind: string; tool: string; title: string; commands: string[] }
  | {
    type: 'tool_output'; call_id: string; command: string; exit_code: number | null; timed_out: boolean;
    interrupted: boolean; duration_ms: number; truncated_bytes: number; stdout: string; stderr: string;
  }
  | { type: 'files_changed'; call_id: string; tool: string; ok: boolean; message: string; files: JsonFileChange[] }
  | {
    type: 'mcp_call'; call_id: string; server: string; tool: string; status: string; is_error: boolean;
    duration_ms: number; output_bytes: number; truncated_bytes: number;
  }
  | { type: 'tool_error'; call_id: string; message: string }
  | { type: 'tool_reused'; call_id: string; title: string }
  | { type: 'retry'; attempt: number; max_attempts: number; delay_ms: number; reason: string }
  | { type: 'chain_restarted'; reason: string }
  | { type: 'response_cut'; reason: string }
  | { type: 'response_incomplete'; response_id: string }
  | { type: 'save_failed'; message: string; blocking: boolean }
  | { type: 'context_compacted'; mechanism: string; tokens_before: number; tokens_after: number }
  | { type: 'context_notice'; message: string }
  | {
    type: 'usage'; input_tokens: number; cached_tokens: number; output_tokens: number; reasoning_tokens: number;
    context_used_tokens: number; context_window_tokens: number; context_left: number; context_window_source: string;
  }
  | { type: 'final'; response_id: string; text: string; duration_ms: number }
  | { type: 'error'; kind: string; message: string; exit_code: number };

export interface JsonFileChange { path: string; moved_to: string | null; operation: FileChange['operation']; added: number; removed: number }


/** Maps an engine event to its JSONL form, or null for events not part of the contract. */
export function toJsonLine(ev: AgentEvent): JsonLine | null {
  switch (ev.type) {
    case 'text_delta': return { type: 'text_delta', delta: ev.delta };
    case 'reasoning_delta': return { type: 'reasoning_delta', delta: ev.delta };
    case 'tool_call': return { type: 'tool_call', call_id: ev.callId, kind: ev.kind, tool: ev.tool, title: ev.title, commands: ev.commands };
    case 'command_done': return {
      type: 'tool_output', call_id: ev.callId, command: ev.command, exit_code: ev.exitCode, timed_out: ev.timedOut,
      interrupted: ev.interrupted, duration_ms: ev.durationMs, truncated_bytes: ev.truncatedBytes, stdout: ev.stdout, stderr: ev.stderr,
    };
    case 'files_changed': return {
      type: 'files_changed', call_id: ev.callId, tool: ev.tool, ok: ev.ok, message: ev.message,
      files: ev.changes.map((c) => ({ path: c.path, moved_to: c.movedTo ?? null, operation: c.operation, added: c.added, removed: c.removed })),
    };
    case 'mcp_call_done': return {
      type: 'mcp_call', call_id: ev.callId, server: ev.server, tool: ev.tool, status: ev.status, is_error: ev.status !== 'ok',
      duration_ms: ev.durationMs, output_bytes: ev.outputBytes, truncated_bytes: ev.truncatedBytes,
    };
    case 'tool_error': return { type: 'tool_error', call_id: ev.callId, message: ev.message };
    case 'tool_reused': return { type: 'tool_reused', call_id: ev.callId, title: ev.title };
    case 'retry': return { type: 'retry', attempt: ev.attempt, max_attempts: ev.maxAttempts, delay_ms: ev.delayMs, reason: ev.reason };
    case 'chain_restarted': return { type: 'chain_restarted', reason: ev.reason };
    case 'response_cut': return { type: 'response_cut', reason: ev.reason };
    case 'response_incomplete': return { type: 'response_incomplete', response_id: ev.responseId };
    case 'save_failed': return { type: 'save_failed', message: ev.message, blocking: ev.blocking };
    case 'context_compacted': return { type: 'context_compacted', mechanism: ev.mechanism, tokens_before: ev.tokensBefore, tokens_after: ev.tokensAfter };
    case 'context_notice': return { type: 'context_notice', message: ev.message };
    case 'usage': return {
      type: 'usage', input_tokens: ev.usage.inputTokens, cached_tokens: ev.usage.cachedTokens,
      output_tokens: ev.usage.outputTokens, reasoning_tokens: ev.usage.reasoningTokens,
      context_used_tokens: ev.context.usedTokens, context_window_tokens: ev.context.windowTokens,
      // Rounded: a fraction with 16 digits says nothing more and makes the line harder to read.
      context_left: Math.round(ev.context.leftFraction * 1000) / 1000, context_window_source: ev.context.windowSource,
    };
    case 'turn_done': return { type: 'final', response_id: ev.responseId, text: ev.text, duration_ms: ev.durationMs };
    case 'request_start':
    case 'reasoning_done':
    case 'command_start':
    case 'command_output':
    case 'turn_interrupted':
    case 'turn_failed':
      return null;
  }
}


export function sessionLine(p: { cwd: string; model: string; previousResponseId: string | null; stateFile: string }): JsonLine {
  return { type: 'session', mode: 'oneshot', cwd: p.cwd, model: p.model, previous_response_id: p.previousResponseId, state_file: p.stateFile };
}

export function errorLine(kind: string, message: string, exitCode: number): JsonLine {
  return { type: 'error', kind, message, exit_code: exitCode };
}

export function jsonLine(obj: JsonLine): string {
  return `${JSON.stringify(obj)}\n`;
}
