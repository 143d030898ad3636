// Text helpers for bounded state: previews, UTF-8 byte sizes and truncation that never splits
// a surrogate pair. Byte sizes are counted by hand so the pure core needs no Buffer.

const PREVIEW_CHARS = 60;

/** First 60 characters (code points) with runs of whitespace collapsed to one space. */
export function preview(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return Array.from(collapsed).slice(0, PREVIEW_CHARS).join('');
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Width in UTF-8 of the code point starting at `i`, and how many UTF-16 units it spans. */
function unitAt(text: string, i: number): [bytes: number, units: number] {
  const c = text.charCodeAt(i);
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) return [4, 2];
  // BMP characters and lone surrogates (written as U+FFFD) both take three bytes.
  return [3, 1];
}

export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const [b, u] = unitAt(text, i);
    bytes += b;
    i += u;
  }
  return bytes;
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8. */
export function headByBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const [b, u] = unitAt(text, i);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += u;
  }
  return text.slice(0, i);
}

/** The longest suffix of `text` that fits in `maxBytes` of UTF-8. */
export function tailByBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = isLow(c) && i >= 2 && isHigh(text.charCodeAt(i - 2));
    const b = pair ? 4 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes + b > maxBytes) break;
    bytes += b;
    i -= pair ? 2 : 1;
  }
  return text.slice(i);
}

export interface Truncated {
  text: string;
  truncated: boolean;
}

/**
 * Fits `text` into `maxBytes`, keeping head and tail: the start of a message says what it is
 * about and the end of command output says how it finished.
 */
export function truncateMiddle(text: string, maxBytes: number): Truncated {
  const total = utf8Length(text);
  if (total <= maxBytes) return { text, truncated: false };
  const marker = (cut: number): string => `\n[... ${cut} bytes omitted ...]\n`;
  // Size the marker for the largest possible count so the real one can only be shorter.
  const budget = Math.max(0, maxBytes - utf8Length(marker(total)));
  const head = headByBytes(text, Math.floor(budget / 2));
  const tail = tailByBytes(text, budget - utf8Length(head));
  const cut = total - utf8Length(head) - utf8Length(tail);
  return { text: `${head}${marker(cut)}${tail}`, truncated: true };
}

/** Response ids inside JSON: one printable token, no whitespace or control characters. */
export function isResponseId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$/.test(value);
}

/**
 * A legacy file holding only an id must look like one (`resp_abc123`, `resp-1`): a letter
 * prefix and a separator, so a stray word, a number or garbage is not mistaken for an id.
 */
export function isPlainResponseId(value: string): boolean {
  return value.length <= 256 && /^[A-Za-z][A-Za-z0-9]*[_-][A-Za-z0-9_.:-]+$/.test(value);
}
