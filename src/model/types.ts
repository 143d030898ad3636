// Our view of the Responses API wire, independent of the SDK so that only client.ts imports it.
export interface TurnUsage {
  inputTokens: number;      // includes cached
  cachedTokens: number;
  outputTokens: number;     // includes reasoning
  reasoningTokens: number;
}

export interface ShellCallItem {
  type: 'shell_call';
  id?: string;
  call_id: string;
  action: { commands: string[]; timeout_ms?: number | null; max_output_length?: number | null };
}

export interface FunctionCallItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
}

/** A built-in apply_patch call: one file operation; `diff` is a headerless V4A diff. */
export interface ApplyPatchCallItem {
  type: 'apply_patch_call';
  id?: string;
  call_id: string;
  status?: 'in_progress' | 'completed';
  operation: { type: 'create_file' | 'update_file'; path: string; diff: string } | { type: 'delete_file'; path: string };
}

/** A call of a custom (freeform) tool, such as apply_patch in its custom form. */
export interface CustomToolCallItem {
  type: 'custom_tool_call';
  id?: string;
  call_id: string;
  name: string;
  input: string;
}

export type ToolCallItem = ShellCallItem | FunctionCallItem | ApplyPatchCallItem | CustomToolCallItem;

export interface ModelRequest {
  model: string;
  instructions: string;
  input: unknown[];
  previous_response_id?: string;
  store: true;
  stream: true;
  tools: unknown[];
  reasoning?: { effort?: string; summary: 'auto' };
}

export interface CompletedResponse {
  id: string;
  status: string;             // completed | incomplete
  text: string;               // concatenated output_text of message items
  toolCalls: ToolCallItem[];
  usage: TurnUsage;
}

export type ModelEvent =
  | { type: 'created'; responseId: string }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'reasoning_done' }
  | { type: 'completed'; response: CompletedResponse };

export interface ModelClient {
  /** Streams one response. Throws ModelError (see errors.ts) on any failure, including a cut stream. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/**
 * A token or turn count as it may arrive (wire, state file): anything but a finite non-negative number
 * (a string, null, NaN from a broken server or file) counts as 0, so it never reaches totals.
 */
export function nonNegativeCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

export const ZERO_USAGE: TurnUsage = { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 };

export function addUsage(a: TurnUsage, b: TurnUsage): TurnUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}
