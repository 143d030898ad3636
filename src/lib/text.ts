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
function headByBytes(text: string, maxBytes: number): string {
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
function tailByBytes(text: string, maxBytes: number): string {
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

/**
 * A text seen from its two ends, in UTF-8 bytes: its size, and its longest head or tail of whole
 * characters within a size. A string is one (`stringEnds`); so is a stream of which only the
 * first and last bytes were kept (tools/output.ts), as long as it answers the sizes asked below.
 */
export interface TextEnds<Part> {
  totalBytes: number;
  /** Asked with at most `headShare(keepBytes)`. */
  head(maxBytes: number): Part;
  /** Asked with at most `keepBytes - headShare(keepBytes) + 3` (what the head left unused). */
  tail(maxBytes: number): Part;
  bytes(part: Part): number;
}

export interface KeptEnds<Part> {
  head: Part;
  tail: Part;
  /** Bytes of the text that are in neither part. */
  cutBytes: number;
}

/** The head's share of a budget: half, and the odd byte, since the start says what a text is about. */
export function headShare(keepBytes: number): number {
  return Math.ceil(keepBytes / 2);
}

/**
 * The one truncation rule: keep the head and the tail of a text within `keepBytes`, the head
 * first taking its share, the tail the rest (including the up to 3 bytes the head could not use
 * without splitting a character), neither splitting a character. Null when the text fits whole.
 * The end of command output says how it finished; the start of a message says what it is about.
 */
export function keepEnds<Part>(text: TextEnds<Part>, keepBytes: number): KeptEnds<Part> | null {
  if (text.totalBytes <= keepBytes) return null;
  const head = text.head(headShare(keepBytes));
  const tail = text.tail(keepBytes - text.bytes(head));
  return { head, tail, cutBytes: text.totalBytes - text.bytes(head) - text.bytes(tail) };
}

export function stringEnds(text: string, totalBytes = utf8Length(text)): TextEnds<string> {
  return { totalBytes, head: (n) => headByBytes(text, n), tail: (n) => tailByBytes(text, n), bytes: utf8Length };
}

export interface Cut {
  text: string;
  /** 0 when the text was left whole. */
  cutBytes: number;
}

/** How a cut shows: what stands for the cut middle, and whether it must fit in the budget too. */
export interface CutStyle {
  marker: (cutBytes: number) => string;
  /** True: `maxBytes` is a hard limit on the result. False: it limits the text kept, the marker comes on top. */
  markerInBudget: boolean;
}

/** Fits `text` into `maxBytes` by `keepEnds`, with the style's marker where the middle was. */
export function cutMiddle(text: string, maxBytes: number, style: CutStyle): Cut {
  const total = utf8Length(text);
  if (total <= maxBytes) return { text, cutBytes: 0 };
  // Size the marker for the largest possible count so the real one can only be shorter.
  const keep = style.markerInBudget ? Math.max(0, maxBytes - utf8Length(style.marker(total))) : maxBytes;
  const kept = keepEnds(stringEnds(text, total), keep);
  if (kept === null) return { text, cutBytes: 0 };
  return { text: `${kept.head}${style.marker(kept.cutBytes)}${kept.tail}`, cutBytes: kept.cutBytes };
}

/**
 * Bounded state (the session file's texts): the marker counts against `maxBytes`, because the
 * state file must not grow past its limit however many texts are cut.
 */
export function truncateMiddle(text: string, maxBytes: number): Cut {
  return cutMiddle(text, maxBytes, { marker: (cut) => `\n[... ${cut} bytes omitted ...]\n`, markerInBudget: true });
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

/** Bidi overrides and zero-width characters: they make shown text differ from the bytes. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A word as it can be shown on one line: JSON-quoted when it holds spaces, quotes, controls or
 * invisible characters (those as \uXXXX), so nothing is ambiguous and nothing acts on the terminal.
 */
export function shownWord(word: string): string {
  if (word !== '' && !/[\s"'\\]/.test(word) && !CONTROL.test(word) && !INVISIBLE.test(word)) return word;
  // JSON escapes C0 only: DEL, C1 (an 8-bit CSI) and the invisible ones are escaped here.
  const unescaped = new RegExp(`[\\u007f-\\u009f]|${INVISIBLE.source}`, 'g');
  return JSON.stringify(word).replace(unescaped, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/**
 * A size for people: "512 bytes", "1.5 KB", "2.0 MB", "1.1 GB" (powers of 1024), the one spelling
 * every message uses. `decimals` 0 for labels that stay short ("[pasted: 40 lines, 2 KB]").
 */
export function formatBytes(bytes: number, decimals = 1): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(decimals)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(decimals)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(decimals)} GB`;
}

// Escape sequences are removed whole (an OSC title or clipboard write, a CSI cursor move), so
// nothing of them is left to read; any other control, and the bidirectional overrides that make
// text read differently from what it is, becomes a space.
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]?/g;
const OTHER_ESCAPE = /\x1b[@-_]?/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Server text (an MCP progress message, an error page) as one clean line of at most `max` characters (code points: no half emoji). */
export function cleanServerText(text: string, max: number): string {
  const flat = text.replace(OSC, '').replace(CSI, '').replace(OTHER_ESCAPE, '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  return clipChars(flat, max);
}

/**
 * `text` cut to at most `max` characters, the last of them `…` when it was cut. Characters are
 * code points, so an emoji or other astral character is never split into half a surrogate pair
 * (which a terminal shows as U+FFFD).
 */
export function clipChars(text: string, max: number): string {
  if (text.length <= max) return text; // code points never outnumber UTF-16 units
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * A duration in a line for a person: `300 ms` under a second, otherwise seconds with at most one
 * decimal (`30 s`, `2.5 s`). The one format of timeouts and waits in messages.
 */
export function durationText(ms: number): string {
  const whole = Math.round(ms);
  return whole < 1000 ? `${whole} ms` : `${Number((whole / 1000).toFixed(1))} s`;
}
