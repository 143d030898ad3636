// Typed Responses API items (the wire), narrowed to what agentx sends and reads: a leaf module
// every layer may import (model, store, tools, engine). Our own unions rather than the SDK's
// types, so that only model/client.ts depends on the SDK.

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

export type ToolDefinition =
  | { type: 'shell'; environment: { type: 'local' } }
  | { type: 'apply_patch' }
  | FunctionToolDefinition
  | CustomToolDefinition;

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

export type ToolCallItem = ShellCallItem | FunctionCallItem | CustomToolCallItem | ApplyPatchCallItem;
export type ToolCallType = ToolCallItem['type'];
export const TOOL_CALL_TYPES: readonly ToolCallType[] = ['shell_call', 'function_call', 'custom_tool_call', 'apply_patch_call'];

// ── Items we send (input items) ──────────────────────────────────────────────────────────
export interface InputText { type: 'input_text'; text: string }

export interface MessageItem {
  type: 'message';
  role: 'user' | 'developer';
  content: InputText[];
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

export interface FunctionCallOutputItem { type: 'function_call_output'; call_id: string; output: string }
export interface CustomToolCallOutputItem { type: 'custom_tool_call_output'; call_id: string; output: string }
export interface ApplyPatchCallOutputItem {
  type: 'apply_patch_call_output';
  call_id: string;
  status: 'completed' | 'failed';
  output: string;
}

export type ToolOutputItem = ShellCallOutputItem | FunctionCallOutputItem | CustomToolCallOutputItem | ApplyPatchCallOutputItem;
export const TOOL_OUTPUT_TYPES: readonly ToolOutputItem['type'][] = ['shell_call_output', 'function_call_output', 'custom_tool_call_output', 'apply_patch_call_output'];

/** Server-side compaction summary (opaque); sent back as-is to seed a compacted chain. */
export interface CompactionItem { type: 'compaction'; id?: string; encrypted_content: string }

export type InputItem = MessageItem | ToolOutputItem | CompactionItem;

// ── Guards for data that comes back from disk or the wire ─────────────────────────────────
type Loose = Record<string, unknown>;

function isLoose(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isText(v: unknown): v is InputText {
  return isLoose(v) && v.type === 'input_text' && typeof v.text === 'string';
}

function isShellChunk(v: unknown): v is ShellOutputChunk {
  if (!isLoose(v) || typeof v.stdout !== 'string' || typeof v.stderr !== 'string' || !isLoose(v.outcome)) return false;
  return v.outcome.type === 'timeout' || (v.outcome.type === 'exit' && typeof v.outcome.exit_code === 'number');
}

export function isToolOutputItem(v: unknown): v is ToolOutputItem {
  if (!isLoose(v) || typeof v.call_id !== 'string') return false;
  switch (v.type) {
    case 'shell_call_output': return Array.isArray(v.output) && v.output.every(isShellChunk);
    case 'function_call_output':
    case 'custom_tool_call_output': return typeof v.output === 'string';
    case 'apply_patch_call_output': return (v.status === 'completed' || v.status === 'failed') && typeof v.output === 'string';
    default: return false;
  }
}

export function isCompactionItem(v: unknown): v is CompactionItem {
  return isLoose(v) && v.type === 'compaction' && typeof v.encrypted_content === 'string' && (v.id === undefined || typeof v.id === 'string');
}

export function isInputItem(v: unknown): v is InputItem {
  if (!isLoose(v)) return false;
  if (v.type === 'message') return (v.role === 'user' || v.role === 'developer') && Array.isArray(v.content) && v.content.every(isText);
  if (v.type === 'compaction') return isCompactionItem(v);
  return isToolOutputItem(v);
}

function isOperation(v: unknown): v is ApplyPatchOperation {
  if (!isLoose(v) || typeof v.path !== 'string') return false;
  if (v.type === 'delete_file') return true;
  return (v.type === 'create_file' || v.type === 'update_file') && typeof v.diff === 'string';
}

/** A tool call item as the model (or a state file) gives it; anything else is not a call. */
export function isToolCallItem(v: unknown): v is ToolCallItem {
  if (!isLoose(v) || typeof v.call_id !== 'string') return false;
  switch (v.type) {
    case 'shell_call': return isLoose(v.action);
    case 'function_call': return typeof v.name === 'string' && typeof v.arguments === 'string';
    case 'custom_tool_call': return typeof v.name === 'string' && typeof v.input === 'string';
    case 'apply_patch_call': return isOperation(v.operation);
    default: return false;
  }
}

/** A user message whose first parts carry context (notes, local shell runs) before the text itself. */
export function userMessage(context: readonly string[], text: string): MessageItem {
  const parts = [...context, text].filter((p) => p.length > 0).map((p): InputText => ({ type: 'input_text', text: p }));
  return { type: 'message', role: 'user', content: parts };
}
