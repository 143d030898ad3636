// What makes a base URL or an API key unusable, shared by the flags (cli/args.ts: --base-url,
// `setup --api-key`), `agentx setup` and the start-up check of the settings in effect
// (connection-checks.ts), so that each is refused the same way wherever it comes from. Pure and
// without imports: cli/args.ts is on every start's path.

/** A setting's value and the name to blame when it is wrong ("AGENTX_BASE_URL", "AGENTX_BASE_URL in ~/.agentx", "--base-url"). */
export interface NamedValue {
  name: string;
  value: string;
}

/** The first of `candidates` that is set and not empty (the precedence order resolveConfig reads them in). */
export function firstSet(...candidates: [name: string, value: string | undefined][]): NamedValue | undefined {
  for (const [name, value] of candidates) if (value !== undefined && value !== '') return { name, value };
  return undefined;
}

/** What is wrong with a base URL, or undefined: agentx speaks http and https (wss is derived from https). */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not an http(s) URL: "${value}"`;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return undefined;
  // Shown as given, unless it carries credentials.
  if (url.username === '' && url.password === '') return `not an http(s) URL: "${value}"`;
  url.username = '';
  url.password = '';
  return `not an http(s) URL: "${url.href}"`;
}

/**
 * What makes an API key unusable, or undefined. The key travels in an HTTP header
 * (`Authorization: Bearer …`, or Azure's `api-key`), where a control character (a line break
 * pasted with the key, a tab, an escape) or a character beyond Latin-1 cannot go: every request
 * would fail. The key itself is never part of the answer.
 */
export function apiKeyProblem(key: string): string | undefined {
  // C0 controls, DEL and C1 controls.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(key)) return 'contains a line break or another control character (the key is not shown)';
  if (/[^\u0000-\u00ff]/.test(key)) return 'contains a character that cannot be sent in an HTTP header (the key is not shown)';
  return undefined;
}
