// The values redacted from everything an MCP server sends back (results, tool descriptions,
// stderr in error lines and notices), like command output (sandbox/env.ts redactSecrets): the key
// in use and whatever agentx's key variables hold. Its own module so the session can redact its
// notices without loading the manager.
import { SECRET_ENV_NAMES } from '../../sandbox/env.ts';

export function redactionSecrets(env: NodeJS.ProcessEnv, secrets: readonly string[]): string[] {
  const values = [...secrets, ...SECRET_ENV_NAMES.map((name) => env[name] ?? '')].filter((v) => v !== '');
  // Longest first, so a key is never half-redacted by a shorter one it contains.
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}
