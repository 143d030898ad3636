// A large paste stays out of the way: the composer shows `[pasted: N lines, M KB]` (or `M bytes`) where it was
// inserted, the message carries the full text. The placeholders of this session are kept in a
// map shared by every prompt, so a recalled history entry (which holds the placeholder, not
// 150 KB) still sends the text.

import { formatBytes } from '../../../lib/text.ts';

export const PASTE_INLINE_MAX_CHARS = 1000;
export const PASTE_INLINE_MAX_LINES = 10;

export type PasteStore = Map<string, string>;

export function lineCount(text: string): number {
  return text.split('\n').length;
}

export function isLargePaste(text: string): boolean {
  return text.length > PASTE_INLINE_MAX_CHARS || lineCount(text) > PASTE_INLINE_MAX_LINES;
}

/** A label not yet used in this session for different text. */
export function placeholderFor(text: string, store: PasteStore): string {
  const lines = lineCount(text);
  const size = `${lines} line${lines === 1 ? '' : 's'}, ${formatBytes(Buffer.byteLength(text, 'utf8'), 0)}`;
  for (let n = 1; ; n++) {
    const label = n === 1 ? `[pasted: ${size}]` : `[pasted #${n}: ${size}]`;
    const known = store.get(label);
    if (known === undefined || known === text) {
      store.set(label, text);
      return label;
    }
  }
}

/** The message as sent: each placeholder of this session replaced by its text. */
export function expandPastes(text: string, store: PasteStore): string {
  if (store.size === 0 || !text.includes('[pasted')) return text;
  let out = text;
  for (const [label, full] of store) if (out.includes(label)) out = out.split(label).join(full);
  return out;
}
