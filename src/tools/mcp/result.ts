// An MCP tool result turned into the text of a `function_call_output`. Text content is passed
// through; images, audio and binary resources become a short note (the output is text, and
// base64 would only burn context); resource links and embedded text resources are named with
// their URI. The whole is capped head+tail like shell output.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { capOutput } from '../output.ts';
import { formatBytes } from '../../lib/text.ts';

export interface ResultText {
  text: string;
  isError: boolean;
  /** Bytes removed from the middle by the cap (0 when it fit). */
  cutBytes: number;
}

export const ERROR_PREFIX = 'The tool reported an error:';

function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** Content types newer than this code are named, not shown. */
function typeName(block: unknown): string {
  return typeof block === 'object' && block !== null && 'type' in block && typeof block.type === 'string' ? block.type : 'unknown';
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}: not shown]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}: not shown]`;
    case 'resource_link': {
      const mime = block.mimeType ? ` (${block.mimeType})` : '';
      const about = block.description ? ` — ${block.description}` : '';
      return `[resource link: ${block.name} ${block.uri}${mime}${about}]`;
    }
    case 'resource': {
      const r = block.resource;
      const mime = r.mimeType ? ` (${r.mimeType})` : '';
      if ('text' in r && typeof r.text === 'string') return `[resource ${r.uri}${mime}]\n${r.text}`;
      const bytes = 'blob' in r && typeof r.blob === 'string' ? base64Bytes(r.blob) : 0;
      return `[resource ${r.uri}${mime}, ${formatBytes(bytes)} of binary data: not shown]`;
    }
    default:
      return `[${typeName(block)} content: not shown]`;
  }
}

/**
 * `structuredContent` is used only when there is no content: servers that send both are asked
 * by the spec to repeat the structure as text, and the model needs it once.
 */
export function resultToText(result: CallToolResult, maxBytes: number): ResultText {
  const blocks = Array.isArray(result.content) ? result.content : [];
  let body = blocks.map(blockText).join('\n');
  if (blocks.length === 0 && result.structuredContent !== undefined) body = JSON.stringify(result.structuredContent);
  const isError = result.isError === true;
  if (body === '') body = isError ? '(no details)' : '(no output)';
  const capped = capOutput(isError ? `${ERROR_PREFIX}\n${body}` : body, maxBytes);
  return { text: capped.text, isError, cutBytes: capped.cutBytes };
}
