// Our view of the Responses API conversation, independent of the SDK so that only client.ts
// imports it. Item shapes live in wire.ts.
import type { TurnUsage } from '../usage/tokens.ts';
import type { HostedItem, InputItem, ToolCallItem, ToolDefinition, UrlCitation } from '../wire/items.ts';

export type { TurnUsage } from '../usage/tokens.ts';

export interface ModelRequest {
  model: string;
  instructions: string;
  input: InputItem[];
  previous_response_id?: string;
  store: true;
  stream: true;
  tools: ToolDefinition[];
  reasoning?: { effort?: string; summary: 'auto' };
}

export interface CompletedResponse {
  id: string;
  status: string;             // completed | incomplete
  text: string;               // concatenated output_text of message items
  toolCalls: ToolCallItem[];
  usage: TurnUsage;
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
}
