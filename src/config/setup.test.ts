import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inEffect, saveSetup } from './setup.ts';

describe('inEffect: what /setup shows for each question', () => {
  it('the environment, then the config file, then the default, each named', () => {
    const file = { AGENTX_MODEL: 'from-file' };
    expect(inEffect(['AGENTX_MODEL'], { AGENTX_MODEL: 'gpt-oss-120b' }, file, 'gpt-5.1')).toEqual({
      value: 'gpt-oss-120b',
      source: 'AGENTX_MODEL in the environment',
    });
    expect(inEffect(['AGENTX_MODEL'], {}, file, 'gpt-5.1')).toEqual({ value: 'from-file', source: 'the config file' });
    expect(inEffect(['AGENTX_MODEL'], { AGENTX_MODEL: '' }, {}, 'gpt-5.1')).toEqual({ value: 'gpt-5.1', source: 'default' });
    // The fallback names count too (OPENAI_BASE_URL when AGENTX_BASE_URL is not set).
    expect(inEffect(['AGENTX_BASE_URL', 'OPENAI_BASE_URL'], { OPENAI_BASE_URL: 'http://gw/v1' }, { AGENTX_BASE_URL: 'http://file/v1' }, 'x').source).toBe(
      'OPENAI_BASE_URL in the environment',
    );
  });
});

describe('saveSetup', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  it('keeps the other settings of the file and trims a trailing slash of the URL', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentx-setup-'));
    const path = join(dir, '.agentx');
    saveSetup(path, { apiKey: 'sk-1', baseUrl: 'http://x/v1/' });
    saveSetup(path, { model: 'm1', reasoningEffort: 'high' });
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('AGENTX_API_KEY=sk-1');
    expect(text).toContain('AGENTX_BASE_URL=http://x/v1\n');
    expect(text).toContain('AGENTX_MODEL=m1');
    expect(text).toContain('AGENTX_REASONING_EFFORT=high');
  });
});

describe('saveSetup refuses what every request would fail with', () => {
  it('a key with a line break or a non-http(s) base URL: one line, the key not shown, nothing written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-setup-'));
    const path = join(dir, '.agentx');
    expect(() => saveSetup(path, { apiKey: 'sk-secret-4242\nX' })).toThrow(
      'API key: contains a line break or another control character (the key is not shown); nothing was saved',
    );
    expect(() => saveSetup(path, { apiKey: 'sk-ok', baseUrl: 'ftp://x' })).toThrow('base URL: not an http(s) URL: "ftp://x"; nothing was saved');
    expect(existsSync(path)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
