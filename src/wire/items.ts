// Typed Responses API items (the wire), narrowed to what agentx sends and reads: a leaf module
// every layer may import (model, store, tools, engine). Our own unions rather than the SDK's
// types, so that only model/client.ts depends on the SDK.
import { isRecord } from '../lib/guards.ts';

// ── Tool definitions offered to the model ────────────────────────────────────────────────
export interface FunctionToolDefinition {
  type: 'function';
  name: string;
  description: string;
  strict: boolean;
  parameters: Record<string, unknown>;
}

export interface CustomToolDefinition {
  type: 'custom';
  name: string;
  description: string;
  format?: { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };
}

/** Which tools of a hosted MCP server need the person's approval (the API's shapes). */
export type McpApprovalPolicy = 'always' | 'never' | { always?: { tool_names: string[] }; never?: { tool_names: string[] } };

/** A remote MCP server the API calls itself (`headers` hold secrets: never written to disk). */
export interface HostedMcpToolDefinition {
  type: 'mcp';
  server_label: string;
  server_url: string;
  headers?: Record<string, string>;
  require_approval: McpApprovalPolicy;
  allowed_tools?: string[];
}

export type ToolDefinition =
  | { type: 'shell'; environment: { type: 'local' } }
  | { type: 'apply_patch' }
  | FunctionToolDefinition
  | CustomToolDefinition
  // Hosted tools: the server runs them; their items are shown, never run or journaled here.
  | { type: 'web_search' }
  | { type: 'image_generation' }
  | HostedMcpToolDefinition;

// ── Tool calls the model makes (output items) ─────────────────────────────────────────────
export interface ShellAction {
  commands: string[];
  timeout_ms?: number | null;
  max_output_length?: number | null;
}

export interface ShellCallItem {
  type: 'shell_call';
  id?: string;
  call_id: string;
  action: ShellAction;
}

export interface FunctionCallItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
}

export interface CustomToolCallItem {
  type: 'custom_tool_call';
  id?: string;
  call_id: string;
  name: string;
  input: string;
}

export type ApplyPatchOperation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string }
  | { type: 'delete_file'; path: string };

export interface ApplyPatchCallItem {
  type: 'apply_patch_call';
  id?: string;
  call_id: string;
  operation: ApplyPatchOperation;
}

/**
 * A hosted MCP server asks whether it may run a tool. On the wire the request's `id` is what the
 * answer names; the model client copies it to `call_id`, so the journal treats the question like
 * a call (answered exactly once, the answer kept across a crash).
 */
export interface McpApprovalRequestItem {
  type: 'mcp_approval_request';
  id?: string;
  call_id: string;
  server_label: string;
  name: string;
  arguments: string;
}

export type ToolCallItem = ShellCallItem | FunctionCallItem | CustomToolCallItem | ApplyPatchCallItem | McpApprovalRequestItem;
export type ToolCallType = ToolCallItem['type'];

// ── Items of hosted tools (run by the server; shown, never journaled) ───────────────────────
export interface WebSearchCallItem {
  type: 'web_search_call';
  id: string;
  status: string;
  /** search (query), open_page (url) or find_in_page (pattern, url); absent while it starts. */
  action?: { type: string; query?: string; queries?: string[]; url?: string | null; pattern?: string };
}

export interface McpCallItem {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output?: string | null;
  error?: string | null;
  status?: string;
}

export interface McpListToolsItem {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: { name: string }[];
  error?: string | null;
}

export interface ImageGenerationCallItem {
  type: 'image_generation_call';
  id: string;
  status: string;
  /** The image, base64 (only in memory: saved as a file, never stored in the state). */
  result: string | null;
}

export type HostedItem = WebSearchCallItem | McpCallItem | McpListToolsItem | ImageGenerationCallItem;

/** A `url_citation` annotation of the answer's text. */
export interface UrlCitation {
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

// ── Items we send (input items) ──────────────────────────────────────────────────────────
export interface InputText {
  type: 'input_text';
  text: string;
}

/** An image as sent: a data URL (built just before sending, never stored). */
export interface InputImage {
  type: 'input_image';
  image_url: string;
  detail: 'auto' | 'low' | 'high';
}

/**
 * An image as stored (state file, journal): where it is and what it was. The model client turns
 * it into an InputImage just before a request is sent (model/local-images.ts), so the state
 * holds a path and a hash, never the bytes.
 */
export interface LocalImagePart {
  type: 'local_image';
  path: string;
  sha256: string;
  bytes: number;
  mime: string;
}

export type MessagePart = InputText | InputImage | LocalImagePart;

export interface MessageItem {
  type: 'message';
  role: 'user' | 'developer';
  content: MessagePart[];
}

export interface ShellOutputChunk {
  stdout: string;
  stderr: string;
  outcome: { type: 'timeout' } | { type: 'exit'; exit_code: number };
}

export interface ShellCallOutputItem {
  type: 'shell_call_output';
  call_id: string;
  output: ShellOutputChunk[];
  max_output_length?: number;
}

/**
 * A function's output: text, or content parts (an MCP tool's text and images). Images are kept
 * as `local_image` parts like a message's and become `input_image` only when sent.
 */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | FunctionOutputPart[];
}
export type FunctionOutputPart = InputText | InputImage | LocalImagePart;

/** A function output as text alone (images named), where content parts cannot go. */
export function functionOutputText(output: string | readonly FunctionOutputPart[]): string {
  if (typeof output === 'string') return output;
  return output.map((p) => (p.type === 'input_text' ? p.text : p.type === 'local_image' ? `[image ${p.mime}, ${p.bytes} bytes]` : '[image]')).join('\n');
}
export interface CustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string;
}
export interface ApplyPatchCallOutputItem {
  type: 'apply_patch_call_output';
  call_id: string;
  status: 'completed' | 'failed';
  output: string;
}

/** The answer to an McpApprovalRequestItem (it names the request, not a call_id). */
export interface McpApprovalResponseItem {
  type: 'mcp_approval_response';
  approval_request_id: string;
  approve: boolean;
  reason?: string;
}

export type ToolOutputItem = ShellCallOutputItem | FunctionCallOutputItem | CustomToolCallOutputItem | ApplyPatchCallOutputItem | McpApprovalResponseItem;

/** Server-side compaction summary (opaque); sent back as-is to seed a compacted chain. */
export interface CompactionItem {
  type: 'compaction';
  id?: string;
  encrypted_content: string;
}

export type InputItem = MessageItem | ToolOutputItem | CompactionItem;

// ── Guards for data that comes back from disk or the wire ─────────────────────────────────

function isText(v: unknown): v is InputText {
  return isRecord(v) && v.type === 'input_text' && typeof v.text === 'string';
}

export function isLocalImagePart(v: unknown): v is LocalImagePart {
  return (
    isRecord(v) &&
    v.type === 'local_image' &&
    typeof v.path === 'string' &&
    typeof v.sha256 === 'string' &&
    typeof v.bytes === 'number' &&
    typeof v.mime === 'string'
  );
}

function isMessagePart(v: unknown): v is MessagePart {
  if (isText(v) || isLocalImagePart(v)) return true;
  return isRecord(v) && v.type === 'input_image' && typeof v.image_url === 'string' && (v.detail === 'auto' || v.detail === 'low' || v.detail === 'high');
}

function isShellChunk(v: unknown): v is ShellOutputChunk {
  if (!isRecord(v) || typeof v.stdout !== 'string' || typeof v.stderr !== 'string' || !isRecord(v.outcome)) return false;
  return v.outcome.type === 'timeout' || (v.outcome.type === 'exit' && typeof v.outcome.exit_code === 'number');
}

export function isToolOutputItem(v: unknown): v is ToolOutputItem {
  if (isRecord(v) && v.type === 'mcp_approval_response') {
    return typeof v.approval_request_id === 'string' && typeof v.approve === 'boolean' && (v.reason === undefined || typeof v.reason === 'string');
  }
  if (!isRecord(v) || typeof v.call_id !== 'string') return false;
  switch (v.type) {
    case 'shell_call_output':
      return Array.isArray(v.output) && v.output.every(isShellChunk);
    case 'function_call_output':
      return typeof v.output === 'string' || (Array.isArray(v.output) && v.output.every(isMessagePart));
    case 'custom_tool_call_output':
      return typeof v.output === 'string';
    case 'apply_patch_call_output':
      return (v.status === 'completed' || v.status === 'failed') && typeof v.output === 'string';
    default:
      return false;
  }
}

export function isCompactionItem(v: unknown): v is CompactionItem {
  return isRecord(v) && v.type === 'compaction' && typeof v.encrypted_content === 'string' && (v.id === undefined || typeof v.id === 'string');
}

export function isInputItem(v: unknown): v is InputItem {
  if (!isRecord(v)) return false;
  if (v.type === 'message') return (v.role === 'user' || v.role === 'developer') && Array.isArray(v.content) && v.content.every(isMessagePart);
  if (v.type === 'compaction') return isCompactionItem(v);
  return isToolOutputItem(v);
}

function isOperation(v: unknown): v is ApplyPatchOperation {
  if (!isRecord(v) || typeof v.path !== 'string') return false;
  if (v.type === 'delete_file') return true;
  return (v.type === 'create_file' || v.type === 'update_file') && typeof v.diff === 'string';
}

/** A tool call item as the model (or a state file) gives it; anything else is not a call. */
export function isToolCallItem(v: unknown): v is ToolCallItem {
  if (!isRecord(v) || typeof v.call_id !== 'string') return false;
  switch (v.type) {
    case 'shell_call':
      return isRecord(v.action);
    case 'function_call':
      return typeof v.name === 'string' && typeof v.arguments === 'string';
    case 'custom_tool_call':
      return typeof v.name === 'string' && typeof v.input === 'string';
    case 'apply_patch_call':
      return isOperation(v.operation);
    case 'mcp_approval_request':
      return typeof v.server_label === 'string' && typeof v.name === 'string' && typeof v.arguments === 'string';
    default:
      return false;
  }
}

function optionalString(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}

/** A hosted tool's item as the server sends it (fields we show are checked; the rest is ignored). */
export function isHostedItem(v: unknown): v is HostedItem {
  if (!isRecord(v) || typeof v.id !== 'string') return false;
  switch (v.type) {
    case 'web_search_call':
      return typeof v.status === 'string' && (v.action === undefined || isRecord(v.action));
    case 'mcp_call':
      return (
        typeof v.server_label === 'string' &&
        typeof v.name === 'string' &&
        typeof v.arguments === 'string' &&
        optionalString(v.output) &&
        optionalString(v.error)
      );
    case 'mcp_list_tools':
      return (
        typeof v.server_label === 'string' &&
        Array.isArray(v.tools) &&
        v.tools.every((t) => isRecord(t) && typeof t.name === 'string') &&
        optionalString(v.error)
      );
    case 'image_generation_call':
      return typeof v.status === 'string' && (v.result === null || typeof v.result === 'string');
    default:
      return false;
  }
}

/** An `mcp_approval_request` output item as our call item (its id becomes the call_id), or undefined. */
export function approvalRequestCall(v: unknown): McpApprovalRequestItem | undefined {
  if (!isRecord(v) || v.type !== 'mcp_approval_request' || typeof v.id !== 'string') return undefined;
  if (typeof v.server_label !== 'string' || typeof v.name !== 'string' || typeof v.arguments !== 'string') return undefined;
  return { type: 'mcp_approval_request', id: v.id, call_id: v.id, server_label: v.server_label, name: v.name, arguments: v.arguments };
}

export function isUrlCitation(v: unknown): v is UrlCitation {
  return (
    isRecord(v) &&
    v.type === 'url_citation' &&
    typeof v.url === 'string' &&
    typeof v.title === 'string' &&
    typeof v.start_index === 'number' &&
    typeof v.end_index === 'number'
  );
}

/**
 * A user message whose first parts carry context (notes, local shell runs) before the text
 * itself, followed by any attached images.
 */
export function userMessage(context: readonly string[], text: string, images: readonly LocalImagePart[] = []): MessageItem {
  const parts: MessagePart[] = [...context, text].filter((p) => p.length > 0).map((p): InputText => ({ type: 'input_text', text: p }));
  return { type: 'message', role: 'user', content: [...parts, ...images] };
}

/** A developer message of one text (notes for the model: the environment context, hook output). */
export function developerMessage(text: string): MessageItem {
  return { type: 'message', role: 'developer', content: [{ type: 'input_text', text }] };
}

// ── The conversation as agentx's log keeps it and a replay resends it ──────────────────────
/** The model's text, in the input form a replay sends back. */
export interface OutputText {
  type: 'output_text';
  text: string;
}
export interface AssistantMessageItem {
  type: 'message';
  role: 'assistant';
  content: OutputText[];
}
/** A reasoning item, replayable only with its encrypted content (the server keeps nothing else we can send). */
export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content: string;
}
/** A tool call as a replay sends it: without the server's item id (the server that had it may have forgotten it). */
export type ReplayedCallItem =
  | Omit<ShellCallItem, 'id'>
  | Omit<FunctionCallItem, 'id'>
  | Omit<CustomToolCallItem, 'id'>
  | (Omit<ApplyPatchCallItem, 'id'> & { status: 'completed' });

/** Anything of the conversation since the last compaction: what was sent and what came back, in input form. */
export type ConversationItem = InputItem | AssistantMessageItem | ReasoningItem | ReplayedCallItem;

function outputTexts(content: unknown): OutputText[] {
  if (!Array.isArray(content)) return [];
  const parts: OutputText[] = [];
  for (const part of content)
    if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') parts.push({ type: 'output_text', text: part.text });
  return parts;
}

function summaryTexts(summary: unknown): ReasoningItem['summary'] {
  if (!Array.isArray(summary)) return [];
  return summary
    .filter((p): p is { type: 'summary_text'; text: string } => isRecord(p) && p.type === 'summary_text' && typeof p.text === 'string')
    .map((p) => ({ type: 'summary_text', text: p.text }));
}

/**
 * A response's output items in the form a later request can send them back (a replay): the
 * model's messages, its reasoning when the server gave the encrypted content, its tool calls
 * and compaction items. Hosted tools' items and MCP approval requests live only on the server
 * that made them and are left out (their text already reached the person).
 */
export function replayableOutput(output: readonly unknown[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    if (item.type === 'message' && item.role === 'assistant') {
      const content = outputTexts(item.content);
      if (content.length > 0) items.push({ type: 'message', role: 'assistant', content });
    } else if (item.type === 'reasoning' && typeof item.id === 'string' && typeof item.encrypted_content === 'string') {
      items.push({ type: 'reasoning', id: item.id, summary: summaryTexts(item.summary), encrypted_content: item.encrypted_content });
    } else if (isCompactionItem(item)) {
      items.push({ type: 'compaction', encrypted_content: item.encrypted_content });
    } else if (isToolCallItem(item) && item.type !== 'mcp_approval_request') {
      const { id: _id, ...call } = item;
      items.push(call.type === 'apply_patch_call' ? { ...call, status: 'completed' } : call);
    }
  }
  return items;
}

/** Whether an item belongs in a replay (approval answers name requests the replay leaves out). */
export function isReplayable(item: ConversationItem): boolean {
  return item.type !== 'mcp_approval_response';
}

/** A conversation item read back from the log; anything else is not one. */
export function isConversationItem(v: unknown): v is ConversationItem {
  if (!isRecord(v)) return false;
  if (v.type === 'message' && v.role === 'assistant')
    return Array.isArray(v.content) && v.content.every((p) => isRecord(p) && p.type === 'output_text' && typeof p.text === 'string');
  if (v.type === 'reasoning') return typeof v.id === 'string' && typeof v.encrypted_content === 'string' && Array.isArray(v.summary);
  if (v.type === 'apply_patch_call') return isToolCallItem(v) && v.status === 'completed';
  return isInputItem(v) || (isToolCallItem(v) && v.type !== 'mcp_approval_request');
}
