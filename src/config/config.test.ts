// The config file's mistakes are traced to it: a line that is not KEY=value and a variable read
// from the environment only are each one warning naming the file and the line; a bad value read
// from the file is an error naming the file, not only the variable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, UsageError } from '../cli/errors.ts';
import { resolveConfig } from './config.ts';

function withFile(text: string): { env: NodeJS.ProcessEnv; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'agentx-config-')), 'agentx');
  writeFileSync(path, text);
  return { path, env: { AGENTX_CONFIG: path } };
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('config file warnings', () => {
  it('a line without "=" is one warning with the file, the line number and the name; never the rest of the line', () => {
    const { env, path } = withFile('# mine\nAGENTX_MODEL gpt-5.1-mini\nsk-proj-SECRETSECRET\nAGENTX_STORE=on\n');
    const config = resolveConfig({}, env);
    expect(config.warnings).toEqual([
      `${path} line 2: no "=" after AGENTX_MODEL, so the line is ignored (write AGENTX_MODEL=value)`,
      `${path} line 3 is not KEY=value, so it is ignored (its text is not shown: it may hold a key)`,
    ]);
    expect(config.warnings?.join('\n')).not.toMatch(/SECRET|mini/);
    expect(config.model).toBe('gpt-5.1');
    expect(config.store).toBe('on');
  });

  it('a variable read from the environment only is said to be ignored, with its line', () => {
    const { env, path } = withFile('AGENTX_MODEL=m\nAGENTX_MAX_RETRIES=abc\nHTTPS_PROXY=http://proxy:3128\n');
    expect(resolveConfig({}, env).warnings).toEqual([
      `AGENTX_MAX_RETRIES in ${path} (line 2) is ignored: it is read from the environment only (docs/configuration.md)`,
      `HTTPS_PROXY in ${path} (line 3) is ignored: it is read from the environment only (docs/configuration.md)`,
    ]);
  });

  it('a clean file gives no warning', () => {
    expect(resolveConfig({}, withFile('AGENTX_MODEL=m\n\n# x\nexport AGENTX_STORE="off"\n').env).warnings).toEqual([]);
  });
});

describe('a bad value from the config file names the file', () => {
  // Every setting the file may hold, each with a value it refuses.
  const BAD: Record<string, string> = {
    AGENTX_REASONING_EFFORT: 'loud',
    AGENTX_SHELL_TOOL: 'bash',
    AGENTX_PATCH_TOOL: 'diff',
    AGENTX_SANDBOX: 'strict',
    AGENTX_SANDBOX_NETWORK: 'maybe',
    AGENTX_SANDBOX_UNIX_SOCKETS: '/run/x.sock',
    AGENTX_WEB_SEARCH: 'yes',
    AGENTX_IMAGE_GENERATION: 'yes',
    AGENTX_STORE: 'maybe',
    AGENTX_PROVIDER: 'acme',
    AGENTX_TRANSPORT: 'pigeon',
    AGENTX_HEADERS: 'no-equals',
    AGENTX_CONTEXT_WINDOW: 'big',
    AGENTX_AUTO_COMPACT: 'often',
    AGENTX_SNAPSHOTS: 'maybe',
    AGENTX_SNAPSHOT_MAX_FILE_BYTES: 'lots',
    AGENTX_SNAPSHOT_STORE_MAX_BYTES: '1',
    AGENTX_APPROVAL: 'sometimes',
  };

  it.each(Object.entries(BAD))('%s', (key, value) => {
    const { env, path } = withFile(`${key}=${value}\n`);
    const err = thrown(() => resolveConfig({}, env));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message.startsWith(`${key} in ${path}`)).toBe(true);
    // The same value in the environment names the variable alone.
    const fromEnv = thrown(() => resolveConfig({}, { ...env, [key]: value }));
    expect(fromEnv).toBeInstanceOf(Error);
    expect((fromEnv as Error).message).toMatch(new RegExp(`^${key}[: ]`));
    expect((fromEnv as Error).message).not.toContain(path);
  });

  it('the environment shadows the file: its good value is used and the file is not blamed', () => {
    const { env } = withFile('AGENTX_STORE=maybe\n');
    expect(resolveConfig({}, { ...env, AGENTX_STORE: 'off' }).store).toBe('off');
  });

  it('a value from the file is a configuration error, not a usage error pointing at --help', () => {
    const err = thrown(() => resolveConfig({}, withFile('AGENTX_SHELL_TOOL=bash\n').env));
    expect(err).not.toBeInstanceOf(UsageError);
  });
});

describe('many lines that are not KEY=value', () => {
  it('are three warnings and a count, not one per line', () => {
    const { env, path } = withFile(`${'garbage\n'.repeat(10)}AGENTX_MODEL=m\n`);
    const config = resolveConfig({}, env);
    expect(config.warnings).toEqual([
      `${path} line 1 is not KEY=value, so it is ignored (its text is not shown: it may hold a key)`,
      `${path} line 2 is not KEY=value, so it is ignored (its text is not shown: it may hold a key)`,
      `${path} line 3 is not KEY=value, so it is ignored (its text is not shown: it may hold a key)`,
      `${path}: 7 more lines that are not KEY=value, ignored`,
    ]);
    expect(config.model).toBe('m');
  });
});
