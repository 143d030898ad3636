// Rebuilding a conversation on a new chain when the server no longer has the old one
// (SPEC §3.6): the bounded local transcript and pending shell transcript become context.
import type { SessionState } from '../session/state.ts';
import { userMessageWithContext } from '../model/request.ts';

const MAX_CONTEXT_CHARS = 48 * 1024;

export function formatCliTranscript(entries: SessionState['pending_cli_transcript']): string {
  if (entries.length === 0) return '';
  const blocks = entries.map((e) => `$ ${e.command}   (in ${e.cwd}, exit ${e.exit_code ?? 'signal'})\n${e.output}${e.truncated ? '\n[output truncated]' : ''}`);
  return `The user ran these commands locally since the last message:\n${blocks.join('\n\n')}`;
}

function transcriptText(state: SessionState): string {
  const lines = state.transcript.map((t) => `${t.role === 'user' ? 'User' : t.role === 'assistant' ? 'Assistant' : 'Tool'}: ${t.text}`);
  let text = lines.join('\n\n');
  if (text.length > MAX_CONTEXT_CHARS) text = text.slice(text.length - MAX_CONTEXT_CHARS);
  return text;
}

interface LooseItem { type?: string; role?: string; call_id?: string; output?: unknown; content?: { text?: string }[] }

/** Tool outputs cannot be sent without their calls on a new chain: describe them as text instead. */
function outputAsText(item: LooseItem): string {
  if (item.type === 'function_call_output') return `Result of tool call ${item.call_id ?? ''}:\n${typeof item.output === 'string' ? item.output : JSON.stringify(item.output)}`;
  const parts = Array.isArray(item.output) ? item.output as { stdout?: string; stderr?: string; outcome?: { type?: string; exit_code?: number } }[] : [];
  const text = parts.map((p) => `${p.outcome?.type === 'timeout' ? '[timed out]' : `[exit ${p.outcome?.exit_code ?? '?'}]`}\n${p.stdout ?? ''}${p.stderr ? `\n[stderr] ${p.stderr}` : ''}`).join('\n');
  return `Result of shell call ${item.call_id ?? ''}:\n${text}`;
}

export function newChainInput(state: SessionState, input: unknown[]): unknown[] {
  const context: string[] = [];
  const history = transcriptText(state);
  if (history) {
    context.push(`The server no longer holds our earlier conversation; here is the local record of it (most recent last):\n\n${history}`);
  }
  const out: unknown[] = [];
  const toolTexts: string[] = [];
  for (const raw of input) {
    const item = raw as LooseItem;
    if (item.type === 'shell_call_output' || item.type === 'function_call_output') toolTexts.push(outputAsText(item));
    else out.push(raw);
  }
  if (toolTexts.length > 0) context.push(toolTexts.join('\n\n'));
  if (context.length === 0) return out;
  return [userMessageWithContext(context, ''), ...out];
}
