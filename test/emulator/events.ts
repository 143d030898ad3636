// Builds the output items of a response and the stream events that announce them, in the order
// the service sends them. Pure: the SSE writer adds sequence numbers and delays.
import { randomBytes } from 'node:crypto';
import type {
  ResponseApplyPatchToolCall,
  ResponseCustomToolCall,
  ResponseFunctionShellToolCall,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { byteLength, newId } from './wire.ts';
import type { WireEvent } from './wire.ts';
import type { PlannedItem } from './brain.ts';
import type { CompactionWireItem } from './memory.ts';
import { citationAnnotations, hostedBytes, hostedEvents, type Citation } from './hosted.ts';

/** An event plus how long to wait before sending it (slow streams). */
export interface TimedEvent {
  event: WireEvent;
  delayMs: number;
}

export interface BuiltOutput {
  events: TimedEvent[];
  output: ResponseOutputItem[];
  /** Bytes of generated text, arguments and commands (output tokens ≈ bytes/4). */
  outputBytes: number;
  reasoningBytes: number;
}

/** Splits text into at most `count` pieces without breaking a code point. */
export function splitText(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(Math.floor(count), chars.length));
  const size = Math.ceil(chars.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

function textPart(text: string, annotations: ResponseOutputText['annotations'] = []): ResponseOutputText {
  return { type: 'output_text', text, annotations, logprobs: [] };
}

function messageEvents(
  index: number,
  text: string,
  chunks: number,
  delayMs: number,
  emit: (e: WireEvent, d?: number) => void,
  citations: readonly Citation[] = [],
): ResponseOutputMessage {
  const id = newId('msg_');
  emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
  const base = { item_id: id, output_index: index, content_index: 0 };
  emit({ type: 'response.content_part.added', ...base, part: textPart('') });
  for (const delta of splitText(text, chunks)) emit({ type: 'response.output_text.delta', ...base, delta, logprobs: [] }, delayMs);
  const annotations = citationAnnotations(text, citations);
  annotations.forEach((annotation, i) => emit({ type: 'response.output_text.annotation.added', ...base, annotation_index: i, annotation }));
  emit({ type: 'response.output_text.done', ...base, text, logprobs: [] });
  emit({ type: 'response.content_part.done', ...base, part: textPart(text, annotations) });
  const done: ResponseOutputMessage = { id, type: 'message', role: 'assistant', status: 'completed', content: [textPart(text, annotations)] };
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

function reasoningEvents(
  index: number,
  summary: string,
  chunks: number,
  delayMs: number,
  encrypted: boolean,
  emit: (e: WireEvent, d?: number) => void,
): ResponseReasoningItem {
  const id = newId('rs_');
  emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'reasoning', summary: [] } });
  const base = { item_id: id, output_index: index, summary_index: 0 };
  emit({ type: 'response.reasoning_summary_part.added', ...base, part: { type: 'summary_text', text: '' } });
  for (const delta of splitText(summary, chunks)) emit({ type: 'response.reasoning_summary_text.delta', ...base, delta }, delayMs);
  emit({ type: 'response.reasoning_summary_text.done', ...base, text: summary });
  emit({ type: 'response.reasoning_summary_part.done', ...base, part: { type: 'summary_text', text: summary } });
  const done: ResponseReasoningItem = { id, type: 'reasoning', summary: [{ type: 'summary_text', text: summary }] };
  if (encrypted) done.encrypted_content = randomBytes(48).toString('base64');
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

function functionCallEvents(index: number, name: string, args: string, emit: (e: WireEvent, d?: number) => void): ResponseFunctionToolCall {
  const id = newId('fc_');
  const call_id = newId('call_', 12);
  emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'function_call', status: 'in_progress', arguments: '', call_id, name } });
  for (const delta of splitText(args, 3)) emit({ type: 'response.function_call_arguments.delta', item_id: id, output_index: index, delta });
  emit({ type: 'response.function_call_arguments.done', item_id: id, output_index: index, name, arguments: args });
  const done: ResponseFunctionToolCall = { id, type: 'function_call', status: 'completed', arguments: args, call_id, name };
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

function shellCallEvents(
  index: number,
  item: Extract<PlannedItem, { type: 'shell_call' }>,
  emit: (e: WireEvent, d?: number) => void,
): ResponseFunctionShellToolCall {
  const call: ResponseFunctionShellToolCall = {
    id: newId('sh_'),
    type: 'shell_call',
    call_id: newId('call_', 12),
    status: 'in_progress',
    action: { commands: item.commands, timeout_ms: item.timeoutMs, max_output_length: item.maxOutputLength },
    environment: { type: 'local' },
  };
  emit({ type: 'response.output_item.added', output_index: index, item: call });
  const done: ResponseFunctionShellToolCall = { ...call, status: 'completed' };
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

/**
 * A built-in apply_patch call: its operation's diff is empty while the item is in progress and
 * complete when it is done (no diff delta events: SDK 6.49 knows none for apply_patch).
 */
function applyPatchCallEvents(
  index: number,
  item: Extract<PlannedItem, { type: 'apply_patch_call' }>,
  emit: (e: WireEvent, d?: number) => void,
): ResponseApplyPatchToolCall {
  const id = newId('apc_');
  const call_id = newId('call_', 12);
  const op = item.operation;
  const pending = op.type === 'delete_file' ? op : { ...op, diff: '' };
  emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'apply_patch_call', call_id, status: 'in_progress', operation: pending } });
  const done: ResponseApplyPatchToolCall = { id, type: 'apply_patch_call', call_id, status: 'completed', operation: op };
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

/** A freeform custom tool call: the input streams as custom_tool_call_input deltas. */
function customToolCallEvents(index: number, name: string, input: string, emit: (e: WireEvent, d?: number) => void): ResponseCustomToolCall {
  const id = newId('ctc_');
  const call_id = newId('call_', 12);
  emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'custom_tool_call', call_id, name, input: '' } });
  for (const delta of splitText(input, 3)) emit({ type: 'response.custom_tool_call_input.delta', item_id: id, output_index: index, delta });
  emit({ type: 'response.custom_tool_call_input.done', item_id: id, output_index: index, input });
  const done: ResponseCustomToolCall = { id, type: 'custom_tool_call', call_id, name, input };
  emit({ type: 'response.output_item.done', output_index: index, item: done });
  return done;
}

/**
 * All output items of a completed response and the events between in_progress and completed.
 * A compaction made by this request comes first, as the service emits it before continuing.
 */
export function buildOutput(items: PlannedItem[], encryptedReasoning: boolean, compaction: CompactionWireItem | null = null): BuiltOutput {
  const events: TimedEvent[] = [];
  const emit = (event: WireEvent, delayMs = 0): void => {
    events.push({ event, delayMs });
  };
  const output: ResponseOutputItem[] = [];
  let outputBytes = 0;
  let reasoningBytes = 0;
  if (compaction) {
    emit({ type: 'response.output_item.added', output_index: 0, item: compaction });
    emit({ type: 'response.output_item.done', output_index: 0, item: compaction });
    output.push(compaction);
    outputBytes += byteLength(JSON.stringify(compaction));
  }
  for (const item of items) {
    const index = output.length;
    switch (item.type) {
      case 'message':
        output.push(messageEvents(index, item.text, item.chunks, item.delayMs, emit, item.citations));
        outputBytes += byteLength(item.text);
        break;
      case 'reasoning':
        output.push(reasoningEvents(index, item.summary, item.chunks, item.delayMs, encryptedReasoning, emit));
        reasoningBytes += byteLength(item.summary);
        break;
      case 'function_call':
        output.push(functionCallEvents(index, item.name, item.arguments, emit));
        outputBytes += byteLength(item.name) + byteLength(item.arguments);
        break;
      case 'shell_call':
        output.push(shellCallEvents(index, item, emit));
        outputBytes += byteLength(JSON.stringify(item.commands));
        break;
      case 'apply_patch_call':
        output.push(applyPatchCallEvents(index, item, emit));
        outputBytes += byteLength(JSON.stringify(item.operation));
        break;
      case 'custom_tool_call':
        output.push(customToolCallEvents(index, item.name, item.input, emit));
        outputBytes += byteLength(item.name) + byteLength(item.input);
        break;
      default:
        output.push(hostedEvents(index, item, emit));
        outputBytes += hostedBytes(item);
        break;
    }
  }
  return { events, output, outputBytes, reasoningBytes };
}

/** The first events of a message that will be cut off mid-stream. */
export function partialMessage(text: string): TimedEvent[] {
  const events: TimedEvent[] = [];
  messageEvents(0, text, 3, 0, (event, delayMs = 0) => events.push({ event, delayMs }));
  return events.filter(
    (e) => e.event.type === 'response.output_item.added' || e.event.type === 'response.content_part.added' || e.event.type === 'response.output_text.delta',
  );
}
