// Hosted tools in the emulator: the items a server-side tool leaves in a response (web_search_call
// with url_citation annotations on the answer, mcp_list_tools / mcp_call / mcp_approval_request,
// image_generation_call with a tiny PNG), the stream events that announce them, and what the
// default brain says about what it received (approval responses, input images).
import { createHash } from 'node:crypto';
import type { ResponseFunctionWebSearch, ResponseOutputItem, ResponseOutputText } from 'openai/resources/responses/responses';
import { asRecords, asString, isRecord, newId } from './wire.ts';
import type { HostedStepItem, WireEvent } from './wire.ts';

/** A 1×1 PNG: what every generated "image" is. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export type HostedPlannedItem =
  | { type: 'web_search_call'; query: string; sources: string[] }
  | { type: 'mcp_list_tools'; server: string; tools: string[]; error?: string }
  | { type: 'mcp_call'; server: string; name: string; arguments: string; output?: string; error?: string; approvalRequestId?: string }
  | { type: 'mcp_approval_request'; server: string; name: string; arguments: string }
  | { type: 'image_generation_call'; failed: boolean };

export interface Citation {
  url: string;
  title: string;
}

export function hostedPlannedItem(item: HostedStepItem): HostedPlannedItem {
  switch (item.type) {
    case 'web_search':
      return { type: 'web_search_call', query: item.query, sources: item.sources ?? [] };
    case 'mcp_list_tools':
      return item.error === undefined
        ? { type: 'mcp_list_tools', server: item.server, tools: item.tools }
        : { type: 'mcp_list_tools', server: item.server, tools: item.tools, error: item.error };
    case 'mcp_call': {
      const call: HostedPlannedItem = { type: 'mcp_call', server: item.server, name: item.name, arguments: item.arguments };
      if (item.output !== undefined) call.output = item.output;
      if (item.error !== undefined) call.error = item.error;
      return call;
    }
    case 'mcp_approval_request':
      return { type: 'mcp_approval_request', server: item.server, name: item.name, arguments: item.arguments };
    case 'image_generation':
      return { type: 'image_generation_call', failed: item.failed === true };
  }
}

/** url_citation annotations for `text`: each cited title is found in the text (or the end is cited). */
export function citationAnnotations(text: string, citations: readonly Citation[]): ResponseOutputText['annotations'] {
  return citations.map((c) => {
    const at = text.indexOf(c.title);
    const start = at === -1 ? Math.max(0, text.length - 1) : at;
    const end = at === -1 ? text.length : at + c.title.length;
    return { type: 'url_citation', url: c.url, title: c.title, start_index: start, end_index: end };
  });
}

type Emit = (e: WireEvent, delayMs?: number) => void;

/** The output item of a hosted planned item, with the events the service sends around it. */
export function hostedEvents(index: number, item: HostedPlannedItem, emit: Emit): ResponseOutputItem {
  switch (item.type) {
    case 'web_search_call': {
      const id = newId('ws_');
      // The service announces a search before it knows the query; the finished item carries it.
      emit({
        type: 'response.output_item.added',
        output_index: index,
        item: { id, type: 'web_search_call', status: 'in_progress', action: { type: 'search' } },
      });
      emit({ type: 'response.web_search_call.in_progress', item_id: id, output_index: index });
      emit({ type: 'response.web_search_call.searching', item_id: id, output_index: index });
      emit({ type: 'response.web_search_call.completed', item_id: id, output_index: index });
      const action: ResponseFunctionWebSearch.Search = { type: 'search', query: item.query, queries: [item.query] };
      if (item.sources.length > 0) action.sources = item.sources.map((url) => ({ type: 'url', url }));
      const done: ResponseFunctionWebSearch = { id, type: 'web_search_call', status: 'completed', action };
      emit({ type: 'response.output_item.done', output_index: index, item: done });
      return done;
    }
    case 'mcp_list_tools': {
      const id = newId('mcpl_');
      const tools = item.tools.map((name) => ({ name, input_schema: { type: 'object', properties: {} }, description: `${name} (emulated)` }));
      emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'mcp_list_tools', server_label: item.server, tools: [] } });
      emit({ type: 'response.mcp_list_tools.in_progress', item_id: id, output_index: index });
      emit({ type: item.error === undefined ? 'response.mcp_list_tools.completed' : 'response.mcp_list_tools.failed', item_id: id, output_index: index });
      const done: ResponseOutputItem = { id, type: 'mcp_list_tools', server_label: item.server, tools, error: item.error ?? null };
      emit({ type: 'response.output_item.done', output_index: index, item: done });
      return done;
    }
    case 'mcp_call': {
      const id = newId('mcp_');
      const base = { id, type: 'mcp_call' as const, server_label: item.server, name: item.name };
      emit({ type: 'response.output_item.added', output_index: index, item: { ...base, arguments: '', status: 'in_progress' } });
      emit({ type: 'response.mcp_call_arguments.done', item_id: id, output_index: index, arguments: item.arguments });
      emit({ type: 'response.mcp_call.in_progress', item_id: id, output_index: index });
      emit({ type: item.error === undefined ? 'response.mcp_call.completed' : 'response.mcp_call.failed', item_id: id, output_index: index });
      const done: ResponseOutputItem = {
        ...base,
        arguments: item.arguments,
        status: item.error === undefined ? 'completed' : 'failed',
        output: item.output ?? null,
        error: item.error ?? null,
        approval_request_id: item.approvalRequestId ?? null,
      };
      emit({ type: 'response.output_item.done', output_index: index, item: done });
      return done;
    }
    case 'mcp_approval_request': {
      const done: ResponseOutputItem = {
        id: newId('mcpr_'),
        type: 'mcp_approval_request',
        server_label: item.server,
        name: item.name,
        arguments: item.arguments,
      };
      emit({ type: 'response.output_item.added', output_index: index, item: done });
      emit({ type: 'response.output_item.done', output_index: index, item: done });
      return done;
    }
    case 'image_generation_call': {
      const id = newId('ig_');
      emit({ type: 'response.output_item.added', output_index: index, item: { id, type: 'image_generation_call', status: 'in_progress', result: null } });
      emit({ type: 'response.image_generation_call.in_progress', item_id: id, output_index: index });
      emit({ type: 'response.image_generation_call.generating', item_id: id, output_index: index });
      if (!item.failed) emit({ type: 'response.image_generation_call.completed', item_id: id, output_index: index });
      const done: ResponseOutputItem = {
        id,
        type: 'image_generation_call',
        status: item.failed ? 'failed' : 'completed',
        result: item.failed ? null : TINY_PNG_BASE64,
      };
      emit({ type: 'response.output_item.done', output_index: index, item: done });
      return done;
    }
  }
}

/** Bytes a hosted item adds to the answer (output tokens ≈ bytes/4). */
export function hostedBytes(item: HostedPlannedItem): number {
  return Buffer.byteLength(JSON.stringify(item), 'utf8');
}

// ── What the default brain reads from a request ─────────────────────────────────────────

export interface ImageInput {
  mime: string;
  bytes: number;
  sha256: string;
}

/** The images of this request's user messages (input_image parts with base64 data URLs). */
export function imageInputs(input: readonly Record<string, unknown>[]): ImageInput[] {
  const found: ImageInput[] = [];
  for (const item of input) {
    if (item.role !== 'user') continue;
    for (const part of asRecords(item.content)) {
      if (part.type !== 'input_image') continue;
      const m = /^data:([\w/+.-]+);base64,(.*)$/s.exec(asString(part.image_url) ?? '');
      if (!m) continue;
      const data = Buffer.from(m[2] ?? '', 'base64');
      found.push({ mime: m[1] ?? '', bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    }
  }
  return found;
}

export function describeImageInputs(images: readonly ImageInput[]): string {
  const list = images.map((i) => `${i.mime} ${i.bytes} bytes sha256:${i.sha256}`).join('; ');
  return `I received ${images.length} image${images.length === 1 ? '' : 's'}: ${list}`;
}

export interface ApprovalAnswer {
  requestId: string;
  approve: boolean;
  reason: string | null;
}

export function approvalAnswers(input: readonly Record<string, unknown>[]): ApprovalAnswer[] {
  return input
    .filter((i) => i.type === 'mcp_approval_response' && typeof i.approval_request_id === 'string' && typeof i.approve === 'boolean')
    .map((i) => ({ requestId: String(i.approval_request_id), approve: i.approve === true, reason: asString(i.reason) ?? null }));
}

/** The approval requests of a stored conversation, by id (what an answer refers to). */
export function approvalRequests(items: readonly unknown[]): Map<string, { server: string; name: string; arguments: string }> {
  const map = new Map<string, { server: string; name: string; arguments: string }>();
  for (const item of items) {
    if (!isRecord(item) || item.type !== 'mcp_approval_request' || typeof item.id !== 'string') continue;
    map.set(item.id, { server: asString(item.server_label) ?? '', name: asString(item.name) ?? '', arguments: asString(item.arguments) ?? '{}' });
  }
  return map;
}

/** The first tool offered of a type (`web_search`, `image_generation`, `mcp`). */
export function offeredTool(tools: readonly unknown[], type: string): Record<string, unknown> | undefined {
  return tools.filter(isRecord).find((t) => t.type === type || (type === 'web_search' && t.type === 'web_search_2025_08_26'));
}
