// Rebuilding a conversation on a new chain when the server no longer has the old one
// (SPEC §3.6): the bounded local transcript and pending shell transcript become context.
import type { SessionState } from '../store/state.ts';
import { functionOutputText, userMessage, type InputItem, type ToolOutputItem } from '../wire/items.ts';
import type { ContextWindow } from './context.ts';

/** The local record sent to a new chain, at most (less when the context window is smaller). */
export const MAX_CONTEXT_CHARS = 48 * 1024;

export function formatCliTranscript(entries: SessionState['pending_cli_transcript']): string {
  if (entries.length === 0) return '';
  const blocks = entries.map((e) => `$ ${e.command}   (in ${e.cwd}, exit ${e.exit_code ?? 'signal'})\n${e.output}${e.truncated ? '\n[output truncated]' : ''}`);
  return `The user ran these commands locally since the last message:\n${blocks.join('\n\n')}`;
}

/** Share of the context window the local record may take on a new chain (4 characters a token). */
const NEW_CHAIN_WINDOW_SHARE = 0.3;

/** How much of the local record a new chain gets: 48 KiB, less when the window is small. */
export function newChainBudgetChars(window: ContextWindow): number {
  return Math.min(MAX_CONTEXT_CHARS, Math.floor(window.tokens * NEW_CHAIN_WINDOW_SHARE) * 4);
}

function transcriptText(state: SessionState, maxChars: number): string {
  const lines = state.transcript.map((t) => `${t.role === 'user' ? 'User' : t.role === 'assistant' ? 'Assistant' : 'Tool'}: ${t.text}`);
  let text = lines.join('\n\n');
  if (text.length > maxChars) text = text.slice(text.length - maxChars);
  return text;
}

/** Tool outputs cannot be sent without their calls on a new chain: describe them as text instead. */
export function outputAsText(item: ToolOutputItem): string {
  switch (item.type) {
    case 'shell_call_output': {
      const text = item.output
        .map((p) => `${p.outcome.type === 'timeout' ? '[timed out]' : `[exit ${p.outcome.exit_code}]`}\n${p.stdout}${p.stderr ? `\n[stderr] ${p.stderr}` : ''}`)
        .join('\n');
      return `Result of shell call ${item.call_id}:\n${text}`;
    }
    case 'apply_patch_call_output':
      return `Result of patch ${item.call_id} (${item.status}):\n${item.output}`;
    // The approval request is on the lost chain: say what was decided instead.
    case 'mcp_approval_response':
      return `The user ${item.approve ? 'approved' : 'denied'} MCP approval request ${item.approval_request_id}${item.reason ? ` (${item.reason})` : ''}.`;
    case 'function_call_output':
      return `Result of tool call ${item.call_id}:\n${functionOutputText(item.output)}`;
    default:
      return `Result of tool call ${item.call_id}:\n${item.output}`;
  }
}

/**
 * Input for a new chain: tool outputs cannot be sent without their calls (those stay on the old
 * chain), so they are described as text; every other item passes unchanged, in order.
 */
export function splitToolOutputs(input: readonly InputItem[]): { items: InputItem[]; toolTexts: string[] } {
  const items: InputItem[] = [];
  const toolTexts: string[] = [];
  for (const item of input) {
    if (item.type === 'message' || item.type === 'compaction') items.push(item);
    else toolTexts.push(outputAsText(item));
  }
  return { items, toolTexts };
}

/** A request moved to a new chain seeded with the local record (at most `maxChars` of it). */
export function newChainInput(state: SessionState, input: InputItem[], maxChars = MAX_CONTEXT_CHARS): InputItem[] {
  const context: string[] = [];
  const history = transcriptText(state, maxChars);
  if (history) {
    context.push(`The server no longer holds our earlier conversation; here is the local record of it (most recent last):\n\n${history}`);
  }
  const { items, toolTexts } = splitToolOutputs(input);
  if (toolTexts.length > 0) context.push(toolTexts.join('\n\n'));
  if (context.length === 0) return items;
  return [userMessage(context, ''), ...items];
}
