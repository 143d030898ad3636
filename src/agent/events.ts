// The one event union every front-end (terminal renderer, --json, tests) reads.
import type { TurnUsage } from '../model/types.ts';

export interface CommandResultInfo {
  callId: string;
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
  durationMs: number;
  truncatedBytes: number;
  stdout: string;
  stderr: string;
}

export type AgentEvent =
  | { type: 'request_start'; previousResponseId: string | null; attempt: number }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'reasoning_done' }
  | { type: 'response_cut'; partialText: string; reason: string }
  /** The server ended the response early (max_output_tokens, content filter); it still counts. */
  | { type: 'response_incomplete'; responseId: string }
  | { type: 'tool_call'; callId: string; kind: 'shell_call' | 'function_call'; commands: string[] }
  | { type: 'command_start'; callId: string; command: string }
  | { type: 'command_output'; callId: string; chunk: string; stream: 'stdout' | 'stderr' }
  | ({ type: 'command_done' } & CommandResultInfo)
  | { type: 'tool_error'; callId: string; message: string }
  | { type: 'tool_reused'; callId: string; commands: string[] }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  | { type: 'chain_restarted'; reason: string }
  | { type: 'usage'; usage: TurnUsage }
  | { type: 'turn_done'; responseId: string; text: string; usage: TurnUsage; durationMs: number }
  | { type: 'turn_interrupted' }
  | { type: 'turn_failed'; message: string };

export type EmitEvent = (event: AgentEvent) => void;
