// Remote MCP servers are offered with their HTTP headers (usually a bearer token) inside the
// request's tools. Those values must never reach disk: the debug log gets the request with them
// replaced, anything else logged or reported (a response that echoes its tools, an error that
// quotes a header) has them redacted. Pure: request in, redacted copies out.
import type { ModelRequest } from './types.ts';

export const REDACTED = '[REDACTED]';

/** Shorter values are not secrets worth hunting for, and would redact ordinary words. */
const MIN_SECRET_LENGTH = 6;

/**
 * The secret values a request carries: each remote MCP header value, and the credential after a
 * scheme word ("Bearer abc" → also "abc"), since a server may echo either.
 */
export function requestSecrets(request: Pick<ModelRequest, 'tools'>): string[] {
  const found = new Set<string>();
  // Scrubbing must never fail in place of the error it scrubs: a malformed request has no secrets.
  if (!Array.isArray(request.tools)) return [];
  for (const tool of request.tools) {
    if (tool.type !== 'mcp' || tool.headers === undefined) continue;
    for (const value of Object.values(tool.headers)) {
      const trimmed = value.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) found.add(trimmed);
      const credential = /^\S+\s+(\S.*)$/.exec(trimmed)?.[1];
      if (credential !== undefined && credential.length >= MIN_SECRET_LENGTH) found.add(credential);
    }
  }
  // Longest first, so a token is never half-redacted by a shorter value it contains.
  return [...found].sort((a, b) => b.length - a.length);
}

/** The request with every remote MCP header value replaced (header names stay: they are useful). */
export function withoutToolSecrets(request: ModelRequest): ModelRequest {
  if (!request.tools.some((t) => t.type === 'mcp' && t.headers !== undefined)) return request;
  return {
    ...request,
    tools: request.tools.map((t) => {
      if (t.type !== 'mcp' || t.headers === undefined) return t;
      return { ...t, headers: Object.fromEntries(Object.keys(t.headers).map((k) => [k, REDACTED])) };
    }),
  };
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** A copy of a JSON-like value with every secret redacted in every string (keys included). */
export function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactText(k, secrets), redactDeep(v, secrets)]));
  }
  return value;
}
