// view_image: the model asks to see a local image (a screenshot, a plot, a diagram). The call's
// output says what was attached; the image itself follows the outputs as an `input_image` part of
// a user message (engine/journal.ts attachmentMessage), recorded in the journal as path + hash and
// read only when the request is sent (model/local-images.ts).
import { isAbsolute, resolve } from 'node:path';
import { describeImage, MAX_IMAGE_BYTES, readImageFile } from '../lib/image-file.ts';
import { formatBytes } from '../lib/text.ts';
import type { FunctionToolDefinition, LocalImagePart } from '../wire/items.ts';
import type { ParsedCall, Tool, ToolContext, ToolResult } from './tool.ts';

export const VIEW_IMAGE_NAME = 'view_image';

export interface ViewImageCall extends ParsedCall {
  path: string;
}

export function viewImageDefinition(maxBytes = MAX_IMAGE_BYTES): FunctionToolDefinition {
  return {
    type: 'function',
    name: VIEW_IMAGE_NAME,
    description: `Look at a local image file (PNG, JPEG, GIF or WebP, at most ${formatBytes(maxBytes)}): it is shown to you right after this call. Use it for screenshots, plots and diagrams.`,
    strict: true,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path of the image, absolute or relative to the working directory.' } },
      required: ['path'],
      additionalProperties: false,
    },
  };
}

export interface ViewImageOptions {
  maxBytes?: number;
  /**
   * Paths the sandbox hides from commands (sandboxed.ts `hides`): view_image reads files itself,
   * outside the sandbox, so it must not become the way around it. Absent: nothing is hidden.
   */
  hidden?: (path: string) => boolean;
}

export function createViewImageTool(options: ViewImageOptions = {}): Tool<ViewImageCall> {
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  async function run(call: ViewImageCall, ctx: ToolContext): Promise<ToolResult> {
    const path = isAbsolute(call.path) ? call.path : resolve(ctx.cwd, call.path);
    // The same answer whether or not the file exists: its existence is not told either. Checked
    // again on the file actually opened, in case the path became a symlink in between.
    const hiddenError = `${call.path} is hidden by the sandbox (credentials and agentx's own files are out of reach)`;
    const hidden = options.hidden;
    const read =
      hidden?.(path) === true
        ? { ok: false as const, error: hiddenError }
        : await readImageFile(path, maxBytes, hidden ? (real) => (hidden(real) ? hiddenError : undefined) : undefined);
    if (!read.ok) {
      return { reply: { ok: false, text: `error: ${read.error}` }, summary: [`view_image ${call.path}: ${read.error}`], interrupted: false };
    }
    const { image } = read;
    const part: LocalImagePart = { type: 'local_image', path: image.path, sha256: image.sha256, bytes: image.bytes, mime: image.mime };
    ctx.progress({ type: 'image_attached', callId: call.callId, path: image.path, mime: image.mime, bytes: image.bytes, sha256: image.sha256 });
    return {
      reply: { ok: true, text: `Attached ${describeImage(image)}: it follows in the next message.` },
      attachments: [part],
      summary: [`view_image ${image.path}`],
      interrupted: false,
    };
  }

  return {
    name: VIEW_IMAGE_NAME,
    writes: false,
    definitions: () => [viewImageDefinition(maxBytes)],
    accepts: (item) => item.type === 'function_call' && item.name === VIEW_IMAGE_NAME,
    parse(item) {
      if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: 'view_image is a function tool' };
      let args: unknown;
      try {
        args = JSON.parse(item.arguments);
      } catch (err) {
        return { ok: false, callId: item.call_id, error: `invalid JSON arguments for "view_image": ${err instanceof Error ? err.message : String(err)}` };
      }
      const path = typeof args === 'object' && args !== null && 'path' in args && typeof args.path === 'string' ? args.path.trim() : '';
      if (path === '') return { ok: false, callId: item.call_id, error: '"path" must be a non-empty string' };
      return { ok: true, call: { callId: item.call_id, title: `view_image ${path}`, commands: [], path } };
    },
    run,
  };
}
