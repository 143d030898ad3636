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
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1] ?? ''] = value;
  }
  return out;
}

export function serializeDotenv(values: Record<string, string>): string {
  const lines = ['# agentx configuration (written by `agentx setup`)'];
  for (const [k, v] of Object.entries(values)) {
    const needsQuotes = /[\s#"'\\]/.test(v) || v === '';
    lines.push(`${k}=${needsQuotes ? JSON.stringify(v) : v}`);
  }
  return lines.join('\n') + '\n';
}
