// Fitting a JSON value into a byte budget by shortening its long strings (head and tail kept,
// the cut marked), so its shape and every short field (ids, exit codes, types) stay intact.
// Used for tool outputs capped to the context window (engine/tool-output-caps.ts) and for the
// session file's last line of defence against its size limit (store/fit.ts). Pure.
import { cutMiddle, utf8Length } from './text.ts';

/** Strings shorter than this are never cut: ids, commands, exit codes, short messages. */
const LONG_STRING_BYTES = 512;
/** A cut string keeps at least this much of its head and tail together. */
const MIN_KEPT_BYTES = 256;

/** Bytes of `value` as compact JSON (the unit every budget here is counted in). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : utf8Length(text);
}

export function cutMarker(cutBytes: number, reason: string): string {
  return `\n[... ${cutBytes} bytes omitted: ${reason} ...]\n`;
}

/**
 * Keeps `keepBytes` of `text`'s head and tail. The marker comes on top of `keepBytes`: the caller
 * budgets whole JSON values, and shrinkLongStrings measures the result after each pass (its
 * factor over the excess leaves room for markers and escapes) rather than each string alone.
 */
export function cutString(text: string, keepBytes: number, reason: string): string {
  return cutMiddle(text, keepBytes, { marker: (cut) => cutMarker(cut, reason), markerInBudget: false }).text;
}

function longStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    if (value.length >= LONG_STRING_BYTES / 3 && utf8Length(value) >= LONG_STRING_BYTES) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) longStrings(v, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) longStrings(v, out);
  }
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, f);
    return out;
  }
  return value;
}

/**
 * Returns `value` itself when it fits in `maxBytes` of JSON, else a copy whose long strings are
 * cut in proportion to their size (so one huge stream gives up the most). The result may stay
 * above `maxBytes` only when the short parts alone exceed it; each cut says `reason`.
 */
export function shrinkLongStrings(value: unknown, maxBytes: number, reason: string): { value: unknown; cutBytes: number } {
  const before = jsonBytes(value);
  let current: unknown = value;
  let size = before;
  // JSON escaping and the markers make the first estimate slightly off; a few passes converge.
  for (let pass = 0; pass < 4 && size > maxBytes; pass++) {
    const strings: string[] = [];
    longStrings(current, strings);
    const sizes = new Map(strings.map((s) => [s, utf8Length(s)]));
    const longTotal = [...sizes.values()].reduce((a, b) => a + b, 0);
    if (longTotal === 0) break;
    const excess = size - maxBytes;
    // Each pass asks a little more than the excess: markers and escapes are not in the estimate.
    const keepRatio = Math.max(0, 1 - (excess * (1.05 + pass * 0.25)) / longTotal);
    current = mapStrings(current, (s) => {
      const bytes = sizes.get(s);
      return bytes === undefined ? s : cutString(s, Math.max(MIN_KEPT_BYTES, Math.floor(bytes * keepRatio)), reason);
    });
    const next = jsonBytes(current);
    if (next >= size) break;
    size = next;
  }
  return { value: current, cutBytes: Math.max(0, before - size) };
}
