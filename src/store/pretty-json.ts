// JSON.stringify(value, null, 2), produced as a list of small strings.
//
// Why: the interactive state is ~190 KB of JSON (20 checkpoints, 64 KB transcript) written on
// every state change. V8 builds one large stringify result as a tree of pieces and flattens it
// into a fresh large-object allocation on first use; that first touch cost ~2 ms per save, more
// than the fdatasync (bench/: --cpu-prof of the state write). Stringifying the big containers
// element by element keeps every piece small; the output is byte-identical.

const hasToJson = (v: object): boolean => 'toJSON' in v && typeof v.toJSON === 'function';

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
function dropped(v: unknown): boolean {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return true;
  return typeof v === 'object' && v !== null && hasToJson(v) && JSON.stringify(v) === undefined;
}

/** Containers this deep or shallower are split; deeper values are stringified whole. */
const SPLIT_DEPTH = 3;

/** Appends the pretty JSON of `value` (a value JSON.stringify does not drop) to `out`. */
function emit(value: unknown, indent: string, depth: number, out: string[]): void {
  if (depth < SPLIT_DEPTH && typeof value === 'object' && value !== null && !hasToJson(value)) {
    const inner = `${indent}  `;
    if (Array.isArray(value)) {
      if (value.length === 0) {
        out.push('[]');
        return;
      }
      out.push('[');
      value.forEach((item: unknown, i) => {
        out.push(i === 0 ? `\n${inner}` : `,\n${inner}`);
        // In arrays JSON.stringify writes null for what it drops from objects.
        if (dropped(item)) out.push('null');
        else emit(item, inner, depth + 1, out);
      });
      out.push(`\n${indent}]`);
      return;
    }
    const entries = Object.entries(value).filter(([, v]) => !dropped(v));
    if (entries.length === 0) {
      out.push('{}');
      return;
    }
    out.push('{');
    entries.forEach(([key, v], i) => {
      out.push(`${i === 0 ? '\n' : ',\n'}${inner}${JSON.stringify(key)}: `);
      emit(v, inner, depth + 1, out);
    });
    out.push(`\n${indent}}`);
    return;
  }
  const text = JSON.stringify(value, null, 2);
  // Raw newlines in the output only come from the layout (string values escape theirs).
  out.push(indent === '' ? text : text.replace(/\n/g, `\n${indent}`));
}

/**
 * The pieces of `JSON.stringify(value, null, 2)` for a value it does not drop (not undefined, a
 * function or a symbol); joined, they equal it exactly. Throws where it throws (cycles, BigInt).
 */
export function prettyJsonParts(value: unknown): string[] {
  const out: string[] = [];
  emit(value, '', 0, out);
  return out;
}
