// Builds request bodies from their parts: instructions (assembled by engine/instructions.ts,
// given as input), the tools the registry offers, and input items. Pure: no file system here.
import type { ConversationItem, ToolDefinition } from '../wire/items.ts';
import type { ModelRequest } from './types.ts';

export interface InstructionFile {
  path: string;
  text: string;
}

/**
 * Models known to accept `reasoning` (OpenAI reasoning families): they get a reasoning summary
 * asked for even with no effort configured. Any other model gets `reasoning` only when the person
 * configured an effort (a gpt-oss model on a gateway); a server that refuses it is handled by
 * model/reasoning-fallback.ts (one retry without it, said once).
 */
export function supportsReasoning(model: string): boolean {
  return /^(o\d|gpt-5|codex)/i.test(model);
}

export interface RequestShape {
  model: string;
  instructions: string;
  tools: ToolDefinition[];
  reasoningEffort: string | undefined;
}

/** How a request is kept by the server: stored (chainable) or not, and the prompt cache key. */
export interface Storage {
  store: boolean;
  promptCacheKey?: string;
}

export const STORED: Storage = { store: true };

export function buildRequest(shape: RequestShape, input: ConversationItem[], previousResponseId: string | null, storage: Storage = STORED): ModelRequest {
  const req: ModelRequest = {
    model: shape.model,
    instructions: shape.instructions,
    input,
    store: storage.store,
    stream: true,
    tools: shape.tools,
  };
  if (previousResponseId) req.previous_response_id = previousResponseId;
  if (storage.promptCacheKey !== undefined) req.prompt_cache_key = storage.promptCacheKey;
  if (supportsReasoning(shape.model) || shape.reasoningEffort !== undefined) {
    req.reasoning = shape.reasoningEffort ? { effort: shape.reasoningEffort, summary: 'auto' } : { summary: 'auto' };
    // Nothing is kept on the server: the reasoning comes back encrypted so the next request can carry it.
    if (!storage.store) req.include = ['reasoning.encrypted_content'];
  }
  return req;
}

/** The request with server-side compaction asked for at `compactThreshold` input tokens. */
export function withContextManagement(req: ModelRequest, compactThreshold: number): ModelRequest {
  return { ...req, context_management: [{ type: 'compaction', compact_threshold: compactThreshold }] };
}
