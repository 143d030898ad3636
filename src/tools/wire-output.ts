// The one mapping from what agentx has to say about a call to the input item that answers it.
// Every call form has its own output type (shell_call → shell_call_output, apply_patch_call →
// apply_patch_call_output with a status, function_call / custom_tool_call → text, a remote MCP
// approval request → mcp_approval_response); this file is the only one that knows which. Tools
// return a `ToolReply` (what happened), the turn loop maps it here for the call item it answers,
// and the "not run" answers (unknown tool, refusal, interruption, a call agentx stopped during)
// come from here too (Codex has one `into_response` for the same reason).
import type { FunctionOutputPart, ShellOutputChunk, ToolCallItem, ToolOutputItem } from '../wire/items.ts';

/** The call being answered: its form and id (callRefOf reads them off a call item). */
export interface CallRef {
  type: ToolCallItem['type'];
  call_id: string;
  /** shell_call: how many commands it asked for, each of which needs an answer (1 when unknown). */
  commandCount?: number;
}

export interface ToolReply {
  /** false: the call failed or was not run (apply_patch_call says so in its status). */
  ok: boolean;
  /** What the model reads, for every form that carries text. */
  text: string;
  /** shell_call: one answer per command that ran; without it each command gets `text` as stderr. */
  commands?: ShellOutputChunk[];
  /** shell_call: the output limit the call asked for, echoed back. */
  maxOutputLength?: number;
  /** function_call: content parts (an MCP tool's text and images) instead of `text`. */
  parts?: FunctionOutputPart[];
}

/** The answer for one command that did not run: exit 1 with the reason on stderr. */
function notRunCommand(reason: string): ShellOutputChunk {
  return { stdout: '', stderr: reason, outcome: { type: 'exit', exit_code: 1 } };
}

/** The input item answering `call` with `reply`. */
export function toolOutputItem(call: CallRef, reply: ToolReply): ToolOutputItem {
  switch (call.type) {
    case 'shell_call': {
      const count = Math.max(1, call.commandCount ?? 1);
      const output = reply.commands ?? Array.from({ length: count }, () => notRunCommand(reply.text));
      return { type: 'shell_call_output', call_id: call.call_id, output, ...(reply.maxOutputLength ? { max_output_length: reply.maxOutputLength } : {}) };
    }
    case 'function_call':
      return { type: 'function_call_output', call_id: call.call_id, output: reply.parts ?? reply.text };
    case 'custom_tool_call':
      return { type: 'custom_tool_call_output', call_id: call.call_id, output: reply.text };
    case 'apply_patch_call':
      return { type: 'apply_patch_call_output', call_id: call.call_id, status: reply.ok ? 'completed' : 'failed', output: reply.text };
    // Answering a remote MCP server's question: not ok is a refusal (with its reason, when there
    // is one), and the server must not run the call.
    case 'mcp_approval_request':
      return {
        type: 'mcp_approval_response',
        approval_request_id: call.call_id,
        approve: reply.ok,
        ...(!reply.ok && reply.text !== '' ? { reason: reply.text } : {}),
      };
  }
}

/**
 * The reply for a call that was not run (unknown tool, bad arguments, refusal, interruption).
 * Forms without a status field (function, custom) say it in the text: "error: …".
 */
export function notRunReply(call: CallRef, reason: string): ToolReply {
  const statusless = call.type === 'function_call' || call.type === 'custom_tool_call';
  return { ok: false, text: statusless ? `error: ${reason}` : reason };
}

/** The form and id of a call item (a shell call: how many commands it asked for). */
export function callRefOf(item: ToolCallItem): CallRef {
  const commandCount = item.type === 'shell_call' && Array.isArray(item.action.commands) ? item.action.commands.length : undefined;
  return { type: item.type, call_id: item.call_id, ...(commandCount !== undefined ? { commandCount } : {}) };
}

/** The input item answering the call item with what its tool replied (the turn loop sends and journals this). */
export function outputForCall(item: ToolCallItem, reply: ToolReply): ToolOutputItem {
  return toolOutputItem(callRefOf(item), reply);
}

/** An output that tells the model the call was not run (error, refusal, interruption). */
export function notRunOutput(item: ToolCallItem, reason: string): ToolOutputItem {
  const call = callRefOf(item);
  return toolOutputItem(call, notRunReply(call, reason));
}
