// An MCP tool result turned into the content of a `function_call_output`. Text content is passed
// through; images go to the model as images when a place to keep them is given (images.ts),
// else (and when too large or not an image) as a short note; audio and binary resources become a
// note (base64 would only burn context); resource links and embedded text resources are named
// with their URI. The text is capped head+tail like shell output.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { capOutput } from '../output.ts';
import { formatBytes } from '../../lib/text.ts';
import type { LocalImagePart } from '../../wire/items.ts';
import { base64Bytes, MAX_IMAGES_PER_RESULT, saveMcpImage } from './images.ts';
import type { ImageLimits } from './images.ts';

export interface ResultText {
  text: string;
  isError: boolean;
  /** Bytes removed from the middle by the cap (0 when it fit). */
  cutBytes: number;
}

export const ERROR_PREFIX = 'The tool reported an error:';

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

export interface ResultContent extends ResultText {
  /** Images for the model, in the order the server sent them (each named in the text too). */
  images: LocalImagePart[];
}

/** As resultToText, with image blocks kept as images for the model where `limits` allow. */
export async function resultToContent(result: CallToolResult, maxBytes: number, limits: ImageLimits | undefined): Promise<ResultContent> {
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (limits === undefined || !blocks.some((b) => b.type === 'image')) return { ...resultToText(result, maxBytes), images: [] };
  const images: LocalImagePart[] = [];
  const texts: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type !== 'image') {
      texts.push(block);
      continue;
    }
    const label = `[image ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}`;
    if (images.length >= MAX_IMAGES_PER_RESULT) {
      texts.push({ type: 'text', text: `${label}: not shown, only ${MAX_IMAGES_PER_RESULT} images of one result are]` });
      continue;
    }
    const saved = await saveMcpImage(block.data, block.mimeType, limits);
    if (saved.ok) images.push(saved.part);
    texts.push({ type: 'text', text: saved.ok ? `${label}: image ${images.length}, attached]` : saved.note });
  }
  return { ...resultToText({ ...result, content: texts }, maxBytes), images };
}
