// Local image parts become data URLs only when sent; a changed or missing file becomes a note.
import { mkdtempSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImageFile } from '../lib/image-file.ts';
import type { InputItem, LocalImagePart } from '../wire/items.ts';
import { materializeImages } from './local-images.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

async function attached(path: string): Promise<LocalImagePart> {
  const r = await readImageFile(path);
  if (!r.ok) throw new Error(r.error);
  return { type: 'local_image', path, sha256: r.image.sha256, bytes: r.image.bytes, mime: r.image.mime };
}

describe('materializeImages', () => {
  it('inlines an unchanged image and leaves other items (and inputs without images) as they are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-img-'));
    const path = join(dir, 'a.png');
    writeFileSync(path, PNG);
    const plain: InputItem[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }];
    expect(await materializeImages(plain)).toBe(plain);
    const input: InputItem[] = [
      { type: 'function_call_output', call_id: 'c', output: 'x' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, await attached(path)] },
    ];
    const sent = await materializeImages(input);
    expect(sent[0]).toBe(input[0]);
    expect(sent[1]).toEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'see' },
        { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${PNG.toString('base64')}` },
      ],
    });
  });

  it('sends a note instead of an image that changed or disappeared since it was attached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-img-'));
    const path = join(dir, 'b.png');
    writeFileSync(path, PNG);
    const part = await attached(path);
    writeFileSync(path, Buffer.concat([PNG, Buffer.from([0])]));
    const changed = await materializeImages([{ type: 'message', role: 'user', content: [part] }]);
    expect(changed[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `[image ${path} was not sent: the file changed since it was attached]` }],
    });
    unlinkSync(path);
    const gone = await materializeImages([{ type: 'message', role: 'user', content: [part] }]);
    expect(gone[0]?.type === 'message' && gone[0].content[0]).toEqual({ type: 'input_text', text: `[image ${path} could not be sent: ${path}: no such file]` });
  });
});
