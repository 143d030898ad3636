// Which kind of server the base URL points at, and what that changes on the wire. Pure: the
// config layer resolves the settings, client.ts applies them (docs/providers.md).
//
// - openai: api.openai.com (Authorization: Bearer; hosted tools; WebSocket mode in `auto`).
// - azure: Azure OpenAI (*.openai.azure.com, *.cognitiveservices.azure.com): the key goes in an
//   `api-key` header, never in Authorization, and requests carry an `api-version` query parameter.
// - compatible: anything else that speaks the Responses API (Ollama, vLLM, LM Studio, gateways).

export type Provider = 'openai' | 'azure' | 'compatible';
export const PROVIDERS: readonly Provider[] = ['openai', 'azure', 'compatible'];

/** How the model requests travel: `auto` picks WebSocket for api.openai.com (docs/transport.md). */
export type TransportSetting = 'auto' | 'websocket' | 'http';
export const TRANSPORTS: readonly TransportSetting[] = ['auto', 'websocket', 'http'];

/**
 * The api-version sent to Azure when none is set. Azure's v1 API (a base URL ending in
 * /openai/v1) needs none; the older /openai base needs a dated one, and the Responses API
 * exists there since this version.
 */
export const DEFAULT_AZURE_API_VERSION = '2025-04-01-preview';

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export function detectProvider(baseUrl: string): Provider {
  const host = hostOf(baseUrl);
  if (host === 'api.openai.com') return 'openai';
  if (host.endsWith('.openai.azure.com') || host.endsWith('.cognitiveservices.azure.com')) return 'azure';
  return 'compatible';
}

/** The setting as written, or a one-line error. Unset: detected from the base URL. */
export function parseProvider(raw: string | undefined, baseUrl: string): Provider | { error: string } {
  if (raw === undefined) return detectProvider(baseUrl);
  const value = raw.trim().toLowerCase();
  return (PROVIDERS as readonly string[]).includes(value) ? (value as Provider) : { error: `AGENTX_PROVIDER: expected ${PROVIDERS.join(', ')}, got "${raw}"` };
}

export function parseTransport(raw: string | undefined): TransportSetting | { error: string } {
  if (raw === undefined) return 'auto';
  const value = raw.trim().toLowerCase();
  return (TRANSPORTS as readonly string[]).includes(value)
    ? (value as TransportSetting)
    : { error: `AGENTX_TRANSPORT: expected ${TRANSPORTS.join(', ')}, got "${raw}"` };
}

/**
 * The api-version for Azure: the setting, else none for the v1 API path, else the default.
 * `none` (or an empty value) sends no api-version at all.
 */
export function azureApiVersion(raw: string | undefined, baseUrl: string): string | undefined {
  if (raw !== undefined) return raw.trim() === '' || raw.trim().toLowerCase() === 'none' ? undefined : raw.trim();
  let path = '';
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    // An invalid base URL is reported by the config layer.
  }
  return path.endsWith('/openai/v1') ? undefined : DEFAULT_AZURE_API_VERSION;
}

/** Header names as HTTP defines them (a token); anything else would be refused by node:http later. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers agentx sets itself: overriding them from AGENTX_HEADERS would break auth or framing. */
const RESERVED = new Set(['authorization', 'api-key', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'upgrade']);

/**
 * AGENTX_HEADERS: `Name=value` pairs separated by commas (`X-Title=agentx,HTTP-Referer=https://x`).
 * A value cannot hold a comma; surrounding spaces are trimmed. Errors name the header, never its
 * value (values are often tokens).
 */
export function parseExtraHeaders(raw: string | undefined): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  if (raw === undefined || raw.trim() === '') return { headers };
  const parts = raw.split(',');
  for (const [index, part] of parts.entries()) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    // Without "=" the entry may be a value with a stray comma: it is not quoted.
    if (eq < 0) return { error: `AGENTX_HEADERS: expected Name=value pairs separated by commas; entry ${index + 1} of ${parts.length} has no "="` };
    const name = part.slice(0, eq).trim();
    if (!HEADER_NAME.test(name)) return { error: `AGENTX_HEADERS: "${name}" is not a valid header name` };
    if (RESERVED.has(name.toLowerCase())) return { error: `AGENTX_HEADERS: ${name} is set by agentx itself and cannot be overridden` };
    const value = part.slice(eq + 1).trim();
    if (/[\r\n\0]/.test(value)) return { error: `AGENTX_HEADERS: the value of ${name} holds a line break` };
    headers[name] = value;
  }
  return { headers };
}

/** What the SDK needs for a provider: headers to add (null removes one) and query parameters. */
export function wireAuth(
  provider: Provider,
  apiKey: string,
  apiVersion: string | undefined,
): { headers: Record<string, string | null>; query: Record<string, string> } {
  if (provider !== 'azure') return { headers: {}, query: {} };
  // Azure reads the key from api-key; a Bearer header would be read as an Entra ID token and refused.
  return { headers: { 'api-key': apiKey, authorization: null }, query: apiVersion === undefined ? {} : { 'api-version': apiVersion } };
}

/**
 * The extra header values to scrub from what a server echoes (errors, debug log). Headers never
 * enter the log themselves; a short value ("agentx" as X-Title) is a label, not a token, and
 * scrubbing it would blank every mention of the word.
 */
export function headerSecrets(headers: Record<string, string>): string[] {
  return Object.values(headers).filter((v) => v.length >= 8);
}
