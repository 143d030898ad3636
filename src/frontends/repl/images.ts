// `/image PATH`: attach a local image to the next message. The image is checked now (kind, size)
// and recorded by path and hash; its bytes are read again only when the message is sent, and a
// file changed in between is not sent (model/local-images.ts). `/image` lists, `/image clear` drops.
import { isAbsolute, join, resolve } from 'node:path';
import { describeImage, readImageFile } from '../../lib/image-file.ts';
import { say, tildePath, type ReplContext } from './context.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';

function unquote(s: string): string {
  const m = /^(['"])(.*)\1$/.exec(s);
  return m?.[2] ?? s;
}

export function imagePath(ctx: Pick<ReplContext, 'cwd' | 'home'>, raw: string): string {
  const arg = unquote(raw.trim());
  if (arg === '~' || arg.startsWith('~/')) return join(ctx.home, arg.slice(1));
  return isAbsolute(arg) ? arg : resolve(ctx.cwd, arg);
}

export async function imageCommand(ctx: ReplContext, arg: string): Promise<void> {
  const t = ctx.theme;
  if (arg === '') {
    if (ctx.images.length === 0) say(ctx, t.dim('No image attached. /image PATH attaches one to your next message.'));
    for (const image of ctx.images) say(ctx, `  📎 ${tildePath(image.path, ctx.home)}`);
    return;
  }
  if (arg === 'clear') {
    const n = ctx.images.length;
    ctx.images = [];
    say(ctx, t.green(`✓ ${n === 0 ? 'no image was attached' : `dropped ${n} image${n === 1 ? '' : 's'}`}`));
    return;
  }
  const read = await readImageFile(imagePath(ctx, arg));
  if (!read.ok) {
    say(ctx, t.red(`✗ ${sanitizeLine(read.error)}`));
    return;
  }
  const { image } = read;
  ctx.images = [...ctx.images, { type: 'local_image', path: image.path, sha256: image.sha256, bytes: image.bytes, mime: image.mime }];
  say(ctx, t.green(`📎 ${describeImage(image)} will be sent with your next message`));
}
