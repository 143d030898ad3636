// Providers: detection, the settings' one-line errors, and Azure-shaped requests pinned against
// the emulator's Azure mode (api-key header, api-version query) over HTTP and WebSocket, with
// AGENTX_HEADERS on every request and never in the debug log.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { createOpenAIClient } from './client.ts';
import { azureApiVersion, DEFAULT_AZURE_API_VERSION, detectProvider, headerSecrets, parseExtraHeaders, parseProvider, parseTransport } from './provider.ts';
import type { ModelClient, ModelRequest } from './types.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('provider settings', () => {
  it('detects Azure from its hosts, OpenAI from api.openai.com, anything else as compatible', () => {
    expect(detectProvider('https://my-res.openai.azure.com/openai')).toBe('azure');
    expect(detectProvider('https://my-res.cognitiveservices.azure.com/openai/v1')).toBe('azure');
    expect(detectProvider('https://api.openai.com/v1')).toBe('openai');
    expect(detectProvider('http://localhost:11434/v1')).toBe('compatible');
    expect(detectProvider('https://openrouter.ai/api/v1')).toBe('compatible');
    expect(parseProvider('Azure', 'http://localhost/v1')).toBe('azure');
    expect(parseProvider('bedrock', 'http://localhost/v1')).toEqual({ error: 'AGENTX_PROVIDER: expected openai, azure, compatible, got "bedrock"' });
    expect(parseTransport(undefined)).toBe('auto');
    expect(parseTransport('WebSocket')).toBe('websocket');
    expect(parseTransport('grpc')).toEqual({ error: 'AGENTX_TRANSPORT: expected auto, websocket, http, got "grpc"' });
  });

  it('picks the api-version: the setting, none for the v1 API path, else the dated default', () => {
    expect(azureApiVersion(undefined, 'https://r.openai.azure.com/openai')).toBe(DEFAULT_AZURE_API_VERSION);
    expect(azureApiVersion(undefined, 'https://r.openai.azure.com/openai/v1')).toBeUndefined();
    expect(azureApiVersion('preview', 'https://r.openai.azure.com/openai/v1')).toBe('preview');
    expect(azureApiVersion('none', 'https://r.openai.azure.com/openai')).toBeUndefined();
  });

  it('parses AGENTX_HEADERS and names the header, never the value, in an error', () => {
    expect(parseExtraHeaders('X-Title=agentx, HTTP-Referer=https://example.com/a?b=c')).toEqual({
      headers: { 'X-Title': 'agentx', 'HTTP-Referer': 'https://example.com/a?b=c' },
    });
    expect(parseExtraHeaders(undefined)).toEqual({ headers: {} });
    expect(parseExtraHeaders('X-Title=a,secret-value')).toEqual({
      error: 'AGENTX_HEADERS: expected Name=value pairs separated by commas; entry 2 of 2 has no "="',
    });
    expect(parseExtraHeaders('Bad Name=secret-value')).toEqual({ error: 'AGENTX_HEADERS: "Bad Name" is not a valid header name' });
    expect(parseExtraHeaders('Authorization=Bearer secret-value')).toEqual({
      error: 'AGENTX_HEADERS: Authorization is set by agentx itself and cannot be overridden',
    });
    expect(headerSecrets({ 'X-Title': 'agentx', 'X-Gateway-Key': 'gw-0123456789' })).toEqual(['gw-0123456789']);
  });
});

const REQUEST: ModelRequest = {
  model: 'gpt-5',
  instructions: 'sys',
  store: true,
  stream: true,
  tools: [],
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
};

async function text(client: ModelClient): Promise<string> {
  for await (const ev of client.stream(REQUEST, new AbortController().signal)) if (ev.type === 'completed') return ev.response.text;
  throw new Error('no completed response');
}

describe('Azure-shaped requests', () => {
  for (const transport of ['http', 'websocket'] as const) {
    it(`sends api-key (no Authorization), api-version and the extra headers over ${transport}`, async () => {
      emu = await startEmulator({ azure: { apiVersion: '2025-04-01-preview' } });
      const logged: string[] = [];
      const client = await createOpenAIClient({
        apiKey: 'azure-key-0123456789',
        baseUrl: emu.baseUrl,
        idleTimeoutMs: 5000,
        provider: 'azure',
        azureApiVersion: '2025-04-01-preview',
        transport,
        extraHeaders: { 'X-Title': 'agentx', 'X-Gateway-Key': 'gw-secret-0123456789' },
        log: (kind, data) => logged.push(`${kind} ${JSON.stringify(data)}`),
      });
      expect(await text(client)).toBe('You said: hi');
      const [req] = emu.requests;
      expect(req?.transport).toBe(transport);
      expect(req?.headers['api-key']).toBe('azure-key-0123456789');
      expect(req?.headers.authorization).toBeUndefined();
      expect(req?.query['api-version']).toBe('2025-04-01-preview');
      expect(req?.headers['x-title']).toBe('agentx');
      expect(req?.headers['x-gateway-key']).toBe('gw-secret-0123456789');
      expect(logged.join('\n')).not.toMatch(/gw-secret|azure-key/);
    });
  }

  it('the Azure emulator refuses a Bearer key and a missing api-version, as Azure does', async () => {
    emu = await startEmulator({ azure: { apiVersion: '2025-04-01-preview' } });
    const bearer = await createOpenAIClient({
      apiKey: 'azure-key-0123456789',
      baseUrl: emu.baseUrl,
      idleTimeoutMs: 5000,
      azureApiVersion: '2025-04-01-preview',
    });
    await expect(text(bearer)).rejects.toMatchObject({ details: { status: 401 } });
    const noVersion = await createOpenAIClient({ apiKey: 'azure-key-0123456789', baseUrl: emu.baseUrl, idleTimeoutMs: 5000, provider: 'azure' });
    await expect(text(noVersion)).rejects.toMatchObject({ details: { status: 400 } });
  });
});
