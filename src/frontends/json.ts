// --json: one JSON object per line on stdout (schema in README, "JSON output").
import type { AgentEvent } from '../agent/events.ts';

export type JsonLine = Record<string, unknown> & { type: string };

/** Maps an engine event to its JSONL form, or null for events not part of the contract. */
export function toJsonLine(ev: AgentEvent): JsonLine | null {
  switch (ev.type) {
    case 'text_delta': return { type: 'text_delta', delta: ev.delta };
    case 'reasoning_delta': return { type: 'reasoning_delta', delta: ev.delta };
    case 'tool_call': return { type: 'tool_call', call_id: ev.callId, kind: ev.kind, commands: ev.commands };
    case 'command_done': return {
      type: 'tool_output', call_id: ev.callId, command: ev.command, exit_code: ev.exitCode, timed_out: ev.timedOut,
      interrupted: ev.interrupted, duration_ms: ev.durationMs, truncated_bytes: ev.truncatedBytes, stdout: ev.stdout, stderr: ev.stderr,
    };
    case 'tool_error': return { type: 'tool_error', call_id: ev.callId, message: ev.message };
    case 'retry': return { type: 'retry', attempt: ev.attempt, max_attempts: ev.maxAttempts, delay_ms: ev.delayMs, reason: ev.reason };
    case 'chain_restarted': return { type: 'chain_restarted', reason: ev.reason };
    case 'response_cut': return { type: 'response_cut', reason: ev.reason };
    case 'response_incomplete': return { type: 'response_incomplete', response_id: ev.responseId };
    case 'usage': return {
      type: 'usage', input_tokens: ev.usage.inputTokens, cached_tokens: ev.usage.cachedTokens,
      output_tokens: ev.usage.outputTokens, reasoning_tokens: ev.usage.reasoningTokens,
    };
    case 'turn_done': return { type: 'final', response_id: ev.responseId, text: ev.text, duration_ms: ev.durationMs };
    default: return null;
  }
}

export function jsonLine(obj: JsonLine): string {
  return `${JSON.stringify(obj)}\n`;
}
