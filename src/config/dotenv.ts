// Minimal dotenv reader/writer for ~/.agentx (KEY=value lines, # comments, optional quotes).
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2] ?? '';
    const q = value[0];
    if ((q === '"' || q === "'") && value.endsWith(q) && value.length >= 2) {
      value = q === '"' ? unquoteDouble(value) : value.slice(1, -1);
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1] ?? ''] = value;
  }
  return out;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/**
 * A double-quoted value. The writer quotes with JSON.stringify, so JSON's escapes are exact; a
 * hand-written value that is not valid JSON ("C:\q") is unescaped in one pass, so `\\n` stays a
 * backslash and an n (sequential replaces turned it into a newline).
 */
function unquoteDouble(quoted: string): string {
  try {
    const v: unknown = JSON.parse(quoted);
    if (typeof v === 'string') return v;
  } catch {
    // not JSON: the one-pass fallback below
  }
  return quoted.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => ESCAPES[c] ?? c);
}

export function serializeDotenv(values: Record<string, string>): string {
  const lines = ['# agentx configuration (written by `agentx setup`)'];
  for (const [k, v] of Object.entries(values)) {
    const needsQuotes = /[\s#"'\\]/.test(v) || v === '';
    lines.push(`${k}=${needsQuotes ? JSON.stringify(v) : v}`);
  }
  return lines.join('\n') + '\n';
}
