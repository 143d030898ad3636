// Images travel as `local_image` parts (path + hash) everywhere agentx keeps a request — the
// state file's pending request, the tool journal — and become `input_image` data URLs only here,
// just before the request is sent. An image that is gone or changed since it was attached is
// replaced by a one-line note, so a retry never sends different bytes than were shown.
import { readImageFile, type ImageRead } from '../lib/image-file.ts';
import type { ConversationItem, FunctionCallOutputItem, LocalImagePart, MessageItem, MessagePart } from '../wire/items.ts';
import type { ModelClient, ModelEvent, ModelRequest } from './types.ts';

export type ImageReader = (path: string) => Promise<ImageRead>;

function hasLocalImage(item: ConversationItem): item is MessageItem | FunctionCallOutputItem {
  if (item.type === 'function_call_output') return Array.isArray(item.output) && item.output.some((p) => p.type === 'local_image');
  return item.type === 'message' && item.role !== 'assistant' && item.content.some((p) => p.type === 'local_image');
}

async function inlineParts<P extends MessagePart>(parts: readonly P[], read: ImageReader): Promise<MessagePart[]> {
  return Promise.all(parts.map((p) => (p.type === 'local_image' ? toWirePart(p, read) : Promise.resolve(p))));
}

async function toWirePart(part: LocalImagePart, read: ImageReader): Promise<MessagePart> {
  const r = await read(part.path);
  if (!r.ok) return { type: 'input_text', text: `[image ${part.path} could not be sent: ${r.error}]` };
  if (r.image.sha256 !== part.sha256) return { type: 'input_text', text: `[image ${part.path} was not sent: the file changed since it was attached]` };
  return { type: 'input_image', image_url: `data:${r.image.mime};base64,${r.data.toString('base64')}`, detail: 'auto' };
}

/** The input with every local image read and inlined as a data URL (the same array when there are none). */
export async function materializeImages<T extends ConversationItem>(input: T[], read: ImageReader = readImageFile): Promise<T[]> {
  if (!input.some(hasLocalImage)) return input;
  return Promise.all(
    input.map(async (item): Promise<T> => {
      if (!hasLocalImage(item)) return item;
      // An MCP tool's images go inside its function_call_output (the API takes content parts there).
      if (item.type === 'function_call_output') return { ...item, output: await inlineParts(typeof item.output === 'string' ? [] : item.output, read) };
      return { ...item, content: await inlineParts(item.content, read) };
    }),
  );
}

export function withLocalImages(client: ModelClient, read: ImageReader = readImageFile): ModelClient {
  const wrapped: ModelClient = {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const input = await materializeImages(request.input, read);
      yield* client.stream(input === request.input ? request : { ...request, input }, signal);
    },
  };
  // POST /responses/compact carries no input of ours (only the chain id): passed through, bound
  // (the client may be an object that uses `this`).
  const compact = client.compact?.bind(client);
  if (compact) wrapped.compact = compact;
  return wrapped;
}
