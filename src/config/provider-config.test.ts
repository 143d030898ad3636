// AGENTX_PROVIDER / AGENTX_AZURE_API_VERSION / AGENTX_HEADERS / AGENTX_TRANSPORT: environment >
// config file > detection or default, each bad value one line naming the key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caFileSetting, resolveConfig } from './config.ts';

function env(extra: NodeJS.ProcessEnv = {}, file = ''): NodeJS.ProcessEnv {
  const path = join(mkdtempSync(join(tmpdir(), 'agentx-config-')), 'config');
  writeFileSync(path, file);
  return { AGENTX_CONFIG: path, ...extra };
}

describe('provider and transport settings', () => {
  it('detects the provider from the base URL; the setting overrides it', () => {
    expect(resolveConfig({}, env()).provider).toBe('openai');
    expect(resolveConfig({ baseUrl: 'https://res.openai.azure.com/openai/v1' }, env()).provider).toBe('azure');
    expect(resolveConfig({ baseUrl: 'http://localhost:11434/v1' }, env()).provider).toBe('compatible');
    expect(resolveConfig({ baseUrl: 'https://gw.example/v1' }, env({}, 'AGENTX_PROVIDER=azure\n')).provider).toBe('azure');
    expect(resolveConfig({ baseUrl: 'https://gw.example/v1' }, env({ AGENTX_PROVIDER: 'compatible' }, 'AGENTX_PROVIDER=azure\n')).provider).toBe('compatible');
  });

  it('an api-version only for Azure: the setting, "none", or the default for the path', () => {
    expect(resolveConfig({}, env({ AGENTX_AZURE_API_VERSION: '2025-04-01-preview' })).azureApiVersion).toBeUndefined();
    expect(resolveConfig({ baseUrl: 'https://res.openai.azure.com/openai' }, env()).azureApiVersion).toBe('2025-04-01-preview');
    expect(resolveConfig({ baseUrl: 'https://res.openai.azure.com/openai/v1' }, env()).azureApiVersion).toBeUndefined();
    expect(resolveConfig({ baseUrl: 'https://res.openai.azure.com/openai' }, env({ AGENTX_AZURE_API_VERSION: 'none' })).azureApiVersion).toBeUndefined();
    expect(resolveConfig({ baseUrl: 'https://res.openai.azure.com/openai' }, env({}, 'AGENTX_AZURE_API_VERSION=2024-10-21\n')).azureApiVersion).toBe(
      '2024-10-21',
    );
  });

  it('reads AGENTX_CA_FILE from the environment, else the config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-ca-'));
    const [corp, mine] = [join(dir, 'corp.pem'), join(dir, 'mine.pem')];
    for (const f of [corp, mine]) writeFileSync(f, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(resolveConfig({}, env()).caFile).toBeUndefined();
    expect(resolveConfig({}, env({}, `AGENTX_CA_FILE=${corp}\n`)).caFile).toBe(corp);
    expect(resolveConfig({}, env({ AGENTX_CA_FILE: mine }, `AGENTX_CA_FILE=${corp}\n`)).caFile).toBe(mine);
    expect(caFileSetting(env({}, 'AGENTX_CA_FILE=/etc/corp/ca.pem\n'))).toBe('/etc/corp/ca.pem');
  });

  it('reads AGENTX_HEADERS and AGENTX_TRANSPORT from the environment or the file', () => {
    expect(resolveConfig({}, env({ AGENTX_HEADERS: 'X-Title=agentx' })).extraHeaders).toEqual({ 'X-Title': 'agentx' });
    expect(resolveConfig({}, env({}, 'AGENTX_HEADERS=X-A=1,X-B=2\n')).extraHeaders).toEqual({ 'X-A': '1', 'X-B': '2' });
    expect(resolveConfig({}, env()).extraHeaders).toEqual({});
    expect(resolveConfig({}, env()).transport).toBe('auto');
    expect(resolveConfig({}, env({}, 'AGENTX_TRANSPORT=http\n')).transport).toBe('http');
  });

  it('a bad value is one line naming the key, never a header value', () => {
    expect(() => resolveConfig({}, env({ AGENTX_PROVIDER: 'aws' }))).toThrow('AGENTX_PROVIDER: expected openai, azure, compatible, got "aws"');
    expect(() => resolveConfig({}, env({ AGENTX_TRANSPORT: 'sse' }))).toThrow('AGENTX_TRANSPORT: expected auto, websocket, http, got "sse"');
    let message = '';
    try {
      resolveConfig({}, env({ AGENTX_HEADERS: 'X-Key=ok,tok-0123456789' }));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('AGENTX_HEADERS: expected Name=value pairs separated by commas; entry 2 of 2 has no "="');
  });
});
