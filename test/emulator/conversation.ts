// Server-side conversation state: the parsed request, stored responses (the chain behind
// previous_response_id), the every-call-answered-exactly-once check, and token accounting.
import type { ResponseUsage } from 'openai/resources/responses/responses';
import { asRecords, asString, byteLength, invalidRequest, isRecord } from './wire.ts';
import type { ApiError, WireResponse } from './wire.ts';

export type ToolKind = 'function_call' | 'shell_call' | 'apply_patch_call' | 'custom_tool_call';

export interface ParsedRequest {
  model: string;
  instructions: string | null;
  /** The request's input as items (a string input becomes one user message). */
  input: Record<string, unknown>[];
  tools: unknown[];
  toolChoice: unknown;
  previousResponseId: string | null;
  store: boolean;
  stream: boolean;
  reasoning: Record<string, unknown> | null;
  includeEncryptedReasoning: boolean;
  parallelToolCalls: boolean;
  maxOutputTokens: number | null;
  metadata: Record<string, unknown>;
  /** `context_management` entries as sent (checked in responses.ts); null when absent. */
  contextManagement: Record<string, unknown>[] | null;
  /** `prompt_cache_key`: the prefix cache only serves prompts seen before under the same key. */
  promptCacheKey: string | null;
}

export function parseRequest(body: Record<string, unknown>): ParsedRequest {
  const rawInput = body.input;
  const input = typeof rawInput === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: rawInput }] }] : asRecords(rawInput);
  const include = Array.isArray(body.include) ? body.include : [];
  return {
    model: asString(body.model) ?? 'unknown-model',
    instructions: asString(body.instructions) ?? null,
    input,
    tools: Array.isArray(body.tools) ? body.tools : [],
    toolChoice: body.tool_choice ?? 'auto',
    previousResponseId: asString(body.previous_response_id) ?? null,
    store: body.store !== false,
    stream: body.stream === true,
    reasoning: isRecord(body.reasoning) ? body.reasoning : null,
    includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
    parallelToolCalls: body.parallel_tool_calls !== false,
    maxOutputTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
    metadata: isRecord(body.metadata) ? body.metadata : {},
    contextManagement: Array.isArray(body.context_management) ? asRecords(body.context_management) : null,
    promptCacheKey: asString(body.prompt_cache_key) ?? null,
  };
}

export interface StoredResponse {
  id: string;
  /** The whole conversation up to and including this response's output. */
  items: unknown[];
  /** Tool calls of this response that a continuation must answer, by call_id. */
  pending: Map<string, ToolKind>;
  /** Its MCP approval requests (a continuation may answer each, at most once; unlike calls, it need not). */
  approvals?: Set<string>;
  response: WireResponse;
}

const CALL_KINDS: Record<string, ToolKind> = {
  function_call: 'function_call',
  shell_call: 'shell_call',
  apply_patch_call: 'apply_patch_call',
  custom_tool_call: 'custom_tool_call',
};
const OUTPUT_KINDS: Record<string, ToolKind> = {
  function_call_output: 'function_call',
  shell_call_output: 'shell_call',
  apply_patch_call_output: 'apply_patch_call',
  custom_tool_call_output: 'custom_tool_call',
};
const KIND_WORDS: Record<ToolKind, string> = {
  function_call: 'function call',
  shell_call: 'shell call',
  apply_patch_call: 'apply patch call',
  custom_tool_call: 'custom tool call',
};

export function callKind(item: Record<string, unknown>): ToolKind | undefined {
  return CALL_KINDS[String(item.type)];
}

export function outputKind(item: Record<string, unknown>): ToolKind | undefined {
  return OUTPUT_KINDS[String(item.type)];
}

export function pendingCalls(output: readonly unknown[]): Map<string, ToolKind> {
  const pending = new Map<string, ToolKind>();
  for (const item of output.filter(isRecord)) {
    const kind = callKind(item);
    const callId = asString(item.call_id);
    if (kind && callId) pending.set(callId, kind);
  }
  return pending;
}

/**
 * Every tool call (of the previous response, or replayed earlier in this input) needs exactly one
 * output of the matching type in this input; outputs must answer a known call.
 */
export function checkToolOutputs(input: Record<string, unknown>[], previous: Map<string, ToolKind>): ApiError | null {
  const open = new Map(previous);
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    const call = callKind(item);
    const callId = asString(item.call_id);
    if (call && callId) {
      open.set(callId, call);
      continue;
    }
    const out = outputKind(item);
    if (!out) continue;
    const param = `input[${index}]`;
    const id = callId ?? '';
    if (answered.has(id)) return invalidRequest(`Duplicate tool output for call_id ${id}.`, param);
    const expected = open.get(id);
    if (!expected) {
      return invalidRequest(`No tool call found for ${KIND_WORDS[out]} output with call_id ${id}.`, param);
    }
    if (expected !== out) {
      return invalidRequest(`Tool output type '${String(item.type)}' does not match the ${KIND_WORDS[expected]} with call_id ${id}.`, param);
    }
    answered.add(id);
    open.delete(id);
  }
  for (const [callId, kind] of open) {
    return invalidRequest(`No tool output found for ${KIND_WORDS[kind]} ${callId}.`, 'input');
  }
  return null;
}

export function pendingApprovals(output: readonly unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const item of output.filter(isRecord)) if (item.type === 'mcp_approval_request' && typeof item.id === 'string') ids.add(item.id);
  return ids;
}

/** Each mcp_approval_response must answer an approval request of the previous response, once. */
export function checkApprovalResponses(input: Record<string, unknown>[], previous: ReadonlySet<string>): ApiError | null {
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    if (item.type !== 'mcp_approval_response') continue;
    const id = asString(item.approval_request_id) ?? '';
    const param = `input[${index}].approval_request_id`;
    if (!previous.has(id)) return invalidRequest(`No MCP approval request found with id ${id}.`, param);
    if (answered.has(id)) return invalidRequest(`Duplicate MCP approval response for ${id}.`, param);
    answered.add(id);
  }
  return null;
}

/**
 * Stored responses by id, plus the prompt prefix cache: the recent prompts of each
 * `prompt_cache_key` (requests without one share a bucket of their own). Like the service's
 * cache, a prefix is served only to a request under the key it was seen with.
 */
export class ResponseStore {
  private readonly responses = new Map<string, StoredResponse>();
  private readonly recentPrompts = new Map<string, string[]>();

  get(id: string): StoredResponse | undefined {
    return this.responses.get(id);
  }

  put(stored: StoredResponse): void {
    this.responses.set(stored.id, stored);
  }

  delete(id: string): boolean {
    return this.responses.delete(id);
  }

  clear(): void {
    this.responses.clear();
    this.recentPrompts.clear();
  }

  /** Forgets the stored responses only: a chain lost (expiry, another replica) leaves the prompt cache warm. */
  forgetResponses(): void {
    this.responses.clear();
  }

  /** Longest prefix (bytes) shared with an earlier prompt under the same key, then remembers this one. */
  sharedPrefix(prompt: string, key: string | null): number {
    const bucket = key ?? '';
    const recent = this.recentPrompts.get(bucket) ?? [];
    let best = 0;
    for (const earlier of recent) best = Math.max(best, commonPrefix(earlier, prompt));
    recent.push(prompt);
    if (recent.length > 64) recent.shift();
    this.recentPrompts.set(bucket, recent);
    return best;
  }
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return byteLength(a.slice(0, i));
}

function serialize(items: unknown[]): string {
  return items.map((item) => JSON.stringify(item)).join('\n');
}

export interface InputAccounting {
  inputTokens: number;
  cachedTokens: number;
}

/** What every request renders before its context: instructions and tools (see context.ts for the counting). */
export function requestHead(req: Pick<ParsedRequest, 'instructions' | 'tools'>): string {
  return `${req.instructions ?? ''}\n${JSON.stringify(req.tools)}\n`;
}

/** Tokens of a head plus context items, at ceil(bytes / 4). */
export function tokensOf(head: string, items: readonly unknown[]): number {
  return Math.ceil(byteLength(`${head}${serialize([...items])}`) / 4);
}

/**
 * input_tokens ≈ bytes/4 of instructions + tools + the whole conversation; cached = the prefix of
 * this prompt seen in an earlier request under the same `prompt_cache_key` — whether the
 * conversation came chained (`previous_response_id`) or was sent whole (a store:false replay): the
 * prompt is the same text either way. (The service caches from 1,024 tokens in 128-token steps;
 * the emulator counts any shared prefix, so small test prompts show it too.)
 */
export function accountInput(req: ParsedRequest, chain: { items: unknown[] } | undefined, store: ResponseStore): InputAccounting {
  const head = requestHead(req);
  const chainText = chain ? serialize(chain.items) : '';
  const prompt = `${head}${chainText}\n${serialize(req.input)}`;
  const inputTokens = Math.ceil(byteLength(prompt) / 4);
  const cachedBytes = store.sharedPrefix(`${head}${serialize([...(chain?.items ?? []), ...req.input])}`, req.promptCacheKey);
  return { inputTokens, cachedTokens: Math.min(inputTokens, Math.floor(cachedBytes / 4)) };
}

export function usageFor(input: InputAccounting, outputBytes: number, reasoningBytes: number): ResponseUsage {
  const reasoningTokens = reasoningBytes > 0 ? Math.ceil(reasoningBytes / 4) + 24 : 0;
  const outputTokens = Math.ceil(outputBytes / 4) + reasoningTokens;
  return {
    input_tokens: input.inputTokens,
    input_tokens_details: { cached_tokens: input.cachedTokens, cache_write_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input.inputTokens + outputTokens,
  };
}
