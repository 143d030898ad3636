// `${VAR}` references in MCP server settings, expanded when a server starts so tokens can live
// in the environment instead of in a file that may be committed. `${VAR:-default}` gives a
// fallback (the shell's meaning: used when VAR is unset or empty). Nothing else is special: a
// bare `$VAR` or `$(…)` stays literal, because arguments often carry such text on purpose.

export type Expanded<T> = { ok: true; value: T } | { ok: false; missing: string };

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands every reference in `text`; the first variable that is unset (with no default) is reported. */
export function expandString(text: string, env: NodeJS.ProcessEnv): Expanded<string> {
  let missing: string | undefined;
  const value = text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const current = env[name];
    if (current !== undefined && current !== '') return current;
    if (fallback !== undefined) return fallback;
    // An empty but set variable is a value the person chose; only an unset one is an error.
    if (current === '') return '';
    missing ??= name;
    return '';
  });
  return missing === undefined ? { ok: true, value } : { ok: false, missing };
}

export function expandList(items: readonly string[], env: NodeJS.ProcessEnv): Expanded<string[]> {
  const out: string[] = [];
  for (const item of items) {
    const r = expandString(item, env);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return { ok: true, value: out };
}

/** Values are expanded, keys are not (a variable name or header name is never a secret). */
export function expandRecord(record: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): Expanded<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(record)) {
    const r = expandString(raw, env);
    if (!r.ok) return r;
    out[key] = r.value;
  }
  return { ok: true, value: out };
}

/** The variables `text` refers to, in order of first use (each once). */
export function referencedVariables(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(REFERENCE)) if (m[1] !== undefined && !names.includes(m[1])) names.push(m[1]);
  return names;
}
