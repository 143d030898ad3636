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

export type ToolCallItem = ShellCallItem | FunctionCallItem;

export interface ModelRequest {
  model: string;
  instructions: string;
  input: unknown[];
  previous_response_id?: string;
  store: true;
  stream: true;
  tools: unknown[];
  reasoning?: { effort?: string; summary: 'auto' };
  /** Server-side compaction (engine/compaction.ts decides whether the server takes it). */
  context_management?: ContextManagement[];
}

export interface ContextManagement {
  type: 'compaction';
  compact_threshold?: number;
}

/** An opaque compaction item: the server's summary of everything before it in the chain. */
export interface CompactionItem {
  type: 'compaction';
  id?: string;
  encrypted_content: string;
}

/** POST /responses/compact: compacts a stored chain and/or input items. */
export interface CompactRequest {
  model: string;
  instructions?: string;
  input?: unknown[];
  previous_response_id?: string;
}

export interface CompactedOutput {
  id: string;
  /** The person's kept messages and one compaction item: the whole list is the input of a new chain. */
  output: unknown[];
  usage: TurnUsage;
}

export interface CompletedResponse {
  id: string;
  status: string;             // completed | incomplete
  text: string;               // concatenated output_text of message items
  toolCalls: ToolCallItem[];
  usage: TurnUsage;
  /** Compaction items the server emitted in this response (server-side compaction happened). */
  compactions?: CompactionItem[];
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
  /** POST /responses/compact; absent on clients that cannot (wrappers must pass it through). Throws ModelError. */
  compact?(request: CompactRequest, signal: AbortSignal): Promise<CompactedOutput>;
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
