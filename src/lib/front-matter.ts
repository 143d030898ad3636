// Markdown front matter, the small subset command and skill files use: `---`, then `key: value`
// lines (a value may be quoted), then `---`. Anything richer (lists, nesting) is not needed by
// the fields agentx reads, and is kept as its raw text. Pure.

export interface FrontMatter {
  fields: Record<string, string>;
  /** The text after the front matter (all of it when there is none). */
  body: string;
}

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) return v.slice(1, -1);
  return v;
}

/** The front matter and body; a file without a closing `---` has no front matter. */
export function parseFrontMatter(text: string): FrontMatter {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!normalized.startsWith('---\n')) return { fields: {}, body: normalized };
  const end = normalized.indexOf('\n---', 3);
  if (end === -1) return { fields: {}, body: normalized };
  const fields: Record<string, string> = {};
  for (const line of normalized.slice(4, end).split('\n')) {
    const m = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (m?.[1] !== undefined) fields[m[1]] = unquote(m[2] ?? '');
  }
  const after = normalized.indexOf('\n', end + 4);
  return { fields, body: after === -1 ? '' : normalized.slice(after + 1) };
}
