// /model's list request goes the way the model requests go: the provider's auth (Azure: api-key,
// api-version; Bearer refused) and the proxy. Against the real emulator and a
// real forward proxy.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../test/emulator/server.ts';
import { startForwardProxy } from '../../../test/mcp/fixtures/forward-proxy.ts';
import { listServerModels } from './model-command.ts';

let azure: Emulator;
let plain: Emulator;
beforeAll(async () => {
  azure = await startEmulator({ azure: { apiVersion: '2025-04-01-preview' } });
  plain = await startEmulator();
});
afterAll(async () => {
  await azure.close();
  await plain.close();
});
const savedProxy = process.env.HTTP_PROXY;
afterEach(() => {
  if (savedProxy === undefined) delete process.env.HTTP_PROXY;
  else process.env.HTTP_PROXY = savedProxy;
});

const base = { apiKey: 'sk-list-0123456789', provider: 'openai' as const, azureApiVersion: undefined, extraHeaders: {}, caFile: undefined };

describe('/model list request', () => {
  it('Azure: the emulator (which checks the api-key header and the api-version) lists the models', async () => {
    const list = await listServerModels({
      ...base,
      baseUrl: azure.baseUrl,
      provider: 'azure',
      azureApiVersion: '2025-04-01-preview',
      extraHeaders: { 'X-Title': 'agentx' },
    });
    expect(list).toMatchObject({ ok: true, ids: expect.arrayContaining(['gpt-5']) as unknown });
    // Without the api-version Azure answers 400.
    expect((await listServerModels({ ...base, baseUrl: azure.baseUrl, provider: 'azure' })).ok).toBe(false);
    // Bearer (what the list used to send everywhere) is refused there.
    expect((await listServerModels({ ...base, baseUrl: azure.baseUrl })).ok).toBe(false);
  });

  it('goes through HTTP_PROXY like the API requests', async () => {
    const proxy = await startForwardProxy();
    try {
      process.env.HTTP_PROXY = proxy.url;
      expect((await listServerModels({ ...base, baseUrl: plain.baseUrl })).ok).toBe(true);
      expect(proxy.forwarded).toEqual([`GET ${plain.baseUrl}/models`]);
    } finally {
      await proxy.close();
    }
  });
});
