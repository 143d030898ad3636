// Minimal dotenv reader/writer for ~/.agentx (KEY=value lines, # comments, optional quotes).

/** A line that is neither blank, a comment nor `KEY=value`: ignored, and said (config.ts). */
export interface SkippedLine {
  /** 1-based. */
  line: number;
  /**
   * The line's first word when it reads like a setting's name (`AGENTX_MODEL gpt-5`), else
   * undefined: the line may be a pasted key, and no part of it but such a name is ever shown.
   */
  name?: string;
}

export interface DotenvLines {
  values: Record<string, string>;
  /** Where each key was set (its last line, the one that counts). */
  lineOf: Record<string, number>;
  skipped: SkippedLine[];
}

/** Upper-case words joined by underscores (`AGENTX_MODEL`): a name, not a key (keys have no such shape). */
const SETTING_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

function nameIn(line: string): string | undefined {
  const first = /^(?:export\s+)?([^\s=:]+)/.exec(line)?.[1];
  return first !== undefined && first.length <= 64 && SETTING_NAME.test(first) ? first : undefined;
}

export function parseDotenv(text: string): Record<string, string> {
  return parseDotenvLines(text).values;
}

/** The values, and the lines that are not `KEY=value` (agentx says which, by number). */
export function parseDotenvLines(text: string): DotenvLines {
  const out: DotenvLines = { values: {}, lineOf: {}, skipped: [] };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) {
      out.skipped.push({ line: index + 1, name: nameIn(line) });
      return;
    }
    let value = m[2] ?? '';
    const q = value[0];
    if ((q === '"' || q === "'") && value.endsWith(q) && value.length >= 2) {
      value = q === '"' ? unquoteDouble(value) : value.slice(1, -1);
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    const key = m[1] ?? '';
    out.values[key] = value;
    out.lineOf[key] = index + 1;
  });
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
