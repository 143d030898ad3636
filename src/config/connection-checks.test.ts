// The start-up check of the settings every request depends on: each mistake is one ConfigError
// line (exit 2) naming the setting, never quoting a key or a proxy password; what can work passes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, EXIT_USAGE } from '../cli/errors.ts';
import { resolveConfig } from './config.ts';
import { checkConnectionSettings, type ConnectionSettings } from './connection-checks.ts';
import { apiKeyProblem, baseUrlProblem } from './setting-checks.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function check(s: Partial<ConnectionSettings>): string[] {
  return checkConnectionSettings({ apiKey: undefined, baseUrl: undefined, caFile: undefined, env: {}, ...s });
}

/** The ConfigError's message (and that it is one, exit 2, one line). */
function refusal(s: Partial<ConnectionSettings>): string {
  try {
    check(s);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(EXIT_USAGE);
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('proxy variables', () => {
  it('refuses what agentx cannot speak to, naming the variable and never the value', () => {
    expect(refusal({ env: { ALL_PROXY: 'socks4://host:1080' } })).toBe(
      'ALL_PROXY: socks4 proxies are not supported (use an http://, socks5:// or socks5h:// proxy)',
    );
    expect(refusal({ env: { HTTP_PROXY: 'https://user:s3cret@proxy:3128' } })).toBe(
      'HTTP_PROXY: https proxies are not supported (use an http://, socks5:// or socks5h:// proxy)',
    );
    expect(refusal({ env: { HTTPS_PROXY: 'http://[::1' } })).toBe('HTTPS_PROXY: not a URL (expected scheme://[user:password@]host:port)');
    expect(refusal({ env: { https_proxy: 'http://u:pw@[::1' } })).toBe('https_proxy: not a URL (expected scheme://[user:password@]host:port)');
    expect(refusal({ env: { ALL_PROXY: 'socks5://' } })).toBe('ALL_PROXY: no host in the proxy URL');
    const escape = refusal({ env: { HTTPS_PROXY: 'http://al%zz:hunter2@proxy:3128' } });
    expect(escape).toBe('HTTPS_PROXY: proxy http://proxy:3128 has a malformed %-escape in its username or password');
    expect(escape).not.toContain('hunter2');
  });

  it('accepts the usual forms: an http proxy for https targets, socks5/socks5h, a bare host:port, unset or empty', () => {
    for (const env of [
      { HTTPS_PROXY: 'http://proxy:3128' },
      { https_proxy: 'http://alice:pw@proxy:3128', HTTP_PROXY: 'proxy.corp:8080' },
      { ALL_PROXY: 'socks5h://127.0.0.1:1080' },
      { all_proxy: 'socks5://[::1]:1080' },
      { HTTPS_PROXY: '', HTTP_PROXY: '  ', ALL_PROXY: '' },
      {},
    ]) {
      expect(check({ env })).toEqual([]);
    }
  });

  it('NO_PROXY is never wrong, and ALL_PROXY counts only where a request could use it', () => {
    expect(check({ env: { NO_PROXY: '::: not, *, [bad' } })).toEqual([]);
    // Both specific variables set: ALL_PROXY is never read.
    expect(check({ env: { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', ALL_PROXY: 'socks4://h:1' } })).toEqual([]);
    // HTTP_PROXY unset: an http target would use ALL_PROXY.
    expect(refusal({ env: { HTTPS_PROXY: 'http://p:1', ALL_PROXY: 'socks4://h:1' } })).toMatch(/^ALL_PROXY: socks4/);
  });
});

describe('base URL and API key', () => {
  it('a base URL must be http(s), shown without credentials', () => {
    expect(baseUrlProblem('https://api.openai.com/v1')).toBeUndefined();
    expect(baseUrlProblem('http://localhost:11434/v1')).toBeUndefined();
    expect(refusal({ baseUrl: { name: 'AGENTX_BASE_URL', value: 'ftp://x' } })).toBe('AGENTX_BASE_URL: not an http(s) URL: "ftp://x"');
    expect(refusal({ baseUrl: { name: 'OPENAI_BASE_URL', value: 'not a url' } })).toBe('OPENAI_BASE_URL: not an http(s) URL: "not a url"');
    expect(baseUrlProblem('ws://me:pw@gw/v1')).toBe('not an http(s) URL: "ws://gw/v1"');
  });

  it('a key with a control character or a character no header can carry is refused without showing it', () => {
    expect(apiKeyProblem('sk-proj-ABC_def-123')).toBeUndefined();
    for (const key of ['sk-abc\nX', 'sk-abc\r', 'sk-\tabc', 'sk-\u001b[31m', 'sk-\u007f', 'sk-\u0085abc']) {
      const line = refusal({ apiKey: { name: 'OPENAI_API_KEY', value: key } });
      expect(line).toBe('OPENAI_API_KEY: contains a line break or another control character (the key is not shown)');
    }
    const line = refusal({ apiKey: { name: 'AGENTX_API_KEY', value: 'sk-abc…xyz' } });
    expect(line).toBe('AGENTX_API_KEY: contains a character that cannot be sent in an HTTP header (the key is not shown)');
    expect(line).not.toContain('sk-abc');
  });
});

describe('CA files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-ca-check-'));
  const pem = join(dir, 'ca.pem');
  const notPem = join(dir, 'notes.txt');
  writeFileSync(pem, PEM);
  writeFileSync(notPem, 'this is not a certificate\n');
  mkdirSync(join(dir, 'a-directory'));

  it('AGENTX_CA_FILE must be a readable PEM file', () => {
    expect(check({ caFile: { name: 'AGENTX_CA_FILE', value: pem } })).toEqual([]);
    expect(refusal({ caFile: { name: 'AGENTX_CA_FILE', value: join(dir, 'missing.pem') } })).toBe(
      `AGENTX_CA_FILE: cannot read ${join(dir, 'missing.pem')} (ENOENT)`,
    );
    expect(refusal({ caFile: { name: 'AGENTX_CA_FILE in ~/.agentx', value: notPem } })).toBe(
      `AGENTX_CA_FILE in ~/.agentx: ${notPem} is not a PEM file (no "-----BEGIN CERTIFICATE-----" in it)`,
    );
    expect(refusal({ caFile: { name: 'AGENTX_CA_FILE', value: join(dir, 'a-directory') } })).toBe(
      `AGENTX_CA_FILE: ${join(dir, 'a-directory')} is not a regular file`,
    );
  });

  it("NODE_EXTRA_CA_CERTS is Node's: never refused; a file with no certificate is a warning (Node warns about a missing one itself)", () => {
    expect(check({ env: { NODE_EXTRA_CA_CERTS: pem } })).toEqual([]);
    expect(check({ env: { NODE_EXTRA_CA_CERTS: join(dir, 'missing.pem') } })).toEqual([]);
    expect(check({ env: { NODE_EXTRA_CA_CERTS: notPem } })).toEqual([
      `NODE_EXTRA_CA_CERTS: ${notPem} is not a PEM file (no "-----BEGIN CERTIFICATE-----" in it); Node ignores it, so no certificate from it is trusted`,
    ]);
  });
});

describe('resolveConfig checks the settings in effect, each named where it comes from', () => {
  function env(extra: NodeJS.ProcessEnv, file = ''): NodeJS.ProcessEnv {
    const path = join(mkdtempSync(join(tmpdir(), 'agentx-config-')), 'config');
    writeFileSync(path, file);
    return { AGENTX_CONFIG: path, ...extra };
  }
  function message(f: () => unknown): string {
    try {
      f();
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  }

  it('environment and config file values; a shadowed value is not in effect and not checked', () => {
    expect(message(() => resolveConfig({}, env({ AGENTX_BASE_URL: 'ftp://x' })))).toBe('AGENTX_BASE_URL: not an http(s) URL: "ftp://x"');
    expect(message(() => resolveConfig({}, env({}, 'AGENTX_BASE_URL=ftp://x\n')))).toMatch(
      /^AGENTX_BASE_URL in \/.*\/config: not an http\(s\) URL: "ftp:\/\/x"$/,
    );
    expect(resolveConfig({}, env({ AGENTX_BASE_URL: 'http://ok/v1' }, 'AGENTX_BASE_URL=ftp://x\n')).baseUrl).toBe('http://ok/v1');
    expect(message(() => resolveConfig({}, env({ OPENAI_API_KEY: 'sk-a\nb' })))).toBe(
      'OPENAI_API_KEY: contains a line break or another control character (the key is not shown)',
    );
    expect(message(() => resolveConfig({}, env({}, 'AGENTX_API_KEY="sk-a\\nb"\n')))).toMatch(/^AGENTX_API_KEY in \/.*\/config: contains a line break/);
    expect(resolveConfig({}, env({ AGENTX_API_KEY: 'sk-good' }, 'AGENTX_API_KEY="sk-a\\nb"\n')).apiKey).toBe('sk-good');
    expect(message(() => resolveConfig({}, env({ ALL_PROXY: 'socks4://h:1080' })))).toMatch(/^ALL_PROXY: socks4 proxies are not supported/);
    expect(message(() => resolveConfig({}, env({}, 'AGENTX_CA_FILE=/nonexistent/ca.pem\n')))).toMatch(
      /^AGENTX_CA_FILE in \/.*\/config: cannot read \/nonexistent\/ca.pem \(ENOENT\)$/,
    );
  });

  it('a warning reaches the front-end through the config', () => {
    const notPem = join(mkdtempSync(join(tmpdir(), 'agentx-ca-')), 'x.pem');
    writeFileSync(notPem, 'nothing\n');
    expect(resolveConfig({}, env({ NODE_EXTRA_CA_CERTS: notPem })).warnings).toEqual([expect.stringMatching(/^NODE_EXTRA_CA_CERTS: .* is not a PEM file/)]);
    expect(resolveConfig({}, env({})).warnings).toEqual([]);
  });
});
