// Our view of the Responses API conversation, independent of the SDK so that only client.ts
// imports it. Item shapes live in wire/items.ts.
import type { TurnUsage } from '../usage/tokens.ts';
import type { CompactionItem, ConversationItem, HostedItem, InputItem, ToolCallItem, ToolDefinition, UrlCitation } from '../wire/items.ts';

export type { CompactionItem } from '../wire/items.ts';

export type { TurnUsage } from '../usage/tokens.ts';

export interface ModelRequest {
  model: string;
  instructions: string;
  /** This step's items, or (a replay) the whole conversation since the last compaction. */
  input: ConversationItem[];
  previous_response_id?: string;
  /** false on servers that store nothing: then every request carries the conversation (engine/conversation.ts). */
  store: boolean;
  stream: true;
  /** `reasoning.encrypted_content` when nothing is stored, so reasoning items can be replayed. */
  include?: string[];
  /** One key per project on every request, chained or replayed, so the server's prompt cache is hit. */
  prompt_cache_key?: string;
  tools: ToolDefinition[];
  reasoning?: { effort?: string; summary: 'auto' };
  /** Server-side compaction (engine/compaction.ts decides whether the server takes it). */
  context_management?: ContextManagement[];
}

export interface ContextManagement {
  type: 'compaction';
  compact_threshold?: number;
}

/** POST /responses/compact: compacts a stored chain (what agentx asks of it). */
export interface CompactRequest {
  model: string;
  instructions: string;
  previous_response_id: string;
}

export interface CompactedOutput {
  id: string;
  /** The person's kept messages and one compaction item: the whole list is the input of a new chain. */
  output: InputItem[];
  usage: TurnUsage;
}

export interface CompletedResponse {
  id: string;
  status: string; // completed | incomplete
  text: string; // concatenated output_text of message items
  toolCalls: ToolCallItem[];
  /** The output in the input form a replay sends back (wire/items.ts replayableOutput). */
  items: ConversationItem[];
  usage: TurnUsage;
  /** Compaction items the server emitted in this response (server-side compaction happened). */
  compactions?: CompactionItem[];
  /** Items of hosted tools (web search, remote MCP, image generation), in output order. */
  hosted?: HostedItem[];
  /** `url_citation` annotations of the text, in order (duplicates included). */
  citations?: UrlCitation[];
}

export type ModelEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'reasoning_done' }
  /** A hosted tool's item as it starts (`added`) and when it is done, for live progress. */
  | { type: 'hosted_item'; phase: 'added' | 'done'; item: HostedItem }
  | { type: 'completed'; response: CompletedResponse };

export interface ModelClient {
  /** Streams one response. Throws ModelError (see errors.ts) on any failure, including a cut stream. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /** POST /responses/compact; absent on clients that cannot (wrappers must pass it through). Throws ModelError. */
  compact?(request: CompactRequest, signal: AbortSignal): Promise<CompactedOutput>;
}
