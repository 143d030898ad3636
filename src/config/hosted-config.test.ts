// --web-search and --image-generation: flag > environment > config file > default, where web
// search defaults to on only for OpenAI's own service.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../cli/args.ts';
import { resolveConfig } from './config.ts';

function env(extra: NodeJS.ProcessEnv = {}, file = ''): NodeJS.ProcessEnv {
  const path = join(mkdtempSync(join(tmpdir(), 'agentx-config-')), 'config');
  writeFileSync(path, file);
  return { AGENTX_CONFIG: path, ...extra };
}

describe('hosted tool settings', () => {
  it('web search is on for api.openai.com and off for other servers unless set', () => {
    expect(resolveConfig({}, env()).webSearch).toBe(true);
    expect(resolveConfig({ baseUrl: 'http://localhost:11434/v1' }, env()).webSearch).toBe(false);
    expect(resolveConfig({}, env({ AGENTX_BASE_URL: 'https://proxy.example/v1', AGENTX_WEB_SEARCH: 'on' })).webSearch).toBe(true);
    expect(resolveConfig({}, env({}, 'AGENTX_WEB_SEARCH=off\n')).webSearch).toBe(false);
    expect(resolveConfig(parseArgs(['--web-search', 'on']), env({ AGENTX_WEB_SEARCH: 'off' })).webSearch).toBe(true);
  });

  it('image generation is off unless asked for', () => {
    expect(resolveConfig({}, env()).imageGeneration).toBe(false);
    expect(resolveConfig(parseArgs(['--image-generation=on']), env()).imageGeneration).toBe(true);
    expect(resolveConfig({}, env({}, 'AGENTX_IMAGE_GENERATION=on\n')).imageGeneration).toBe(true);
  });

  it('a bad value is one line naming the flag or variable', () => {
    expect(() => parseArgs(['--web-search', 'yes'])).toThrow('--web-search: expected "on" or "off", got "yes"');
    expect(() => resolveConfig({}, env({ AGENTX_IMAGE_GENERATION: '1' }))).toThrow('AGENTX_IMAGE_GENERATION: expected "on" or "off", got "1"');
  });
});
