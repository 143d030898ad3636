// --sandbox, AGENTX_SANDBOX and AGENTX_SANDBOX_NETWORK: precedence, defaults and clear errors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helpText, parseArgs } from '../cli/args.ts';
import { ConfigError, UsageError } from '../cli/errors.ts';
import { resolveConfig } from './config.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentx-sbxcfg-'));
  file = join(dir, 'config');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const resolve = (flags: { sandbox?: string }, env: NodeJS.ProcessEnv = {}) => resolveConfig(flags, { HOME: dir, AGENTX_CONFIG: file, ...env }).sandbox;

describe('--sandbox', () => {
  it('accepts the three modes and off-if-unavailable, and refuses anything else with the list', () => {
    for (const v of ['read-only', 'workspace-write', 'danger-full-access', 'off-if-unavailable']) expect(parseArgs(['--sandbox', v, 'x']).sandbox).toBe(v);
    expect(() => parseArgs(['--sandbox', 'off', 'x'])).toThrow(UsageError);
    expect(() => parseArgs(['--sandbox=none', 'x'])).toThrow(
      /--sandbox: expected read-only, workspace-write, danger-full-access or off-if-unavailable, got "none"/,
    );
  });

  it('is in the help, with the environment variables', () => {
    const help = helpText('0');
    expect(help).toMatch(/--sandbox MODE\s+read-only, workspace-write \(default\), danger-full-access or off-if-unavailable/);
    expect(help).toContain('AGENTX_SANDBOX_NETWORK=on|off');
    expect(help).toContain('AGENTX_SANDBOX_UNIX_SOCKETS=on|off');
  });
});

describe('resolveConfig: sandbox', () => {
  it('defaults to workspace-write, no fallback, network off', () => {
    expect(resolve({})).toEqual({ mode: 'workspace-write', offIfUnavailable: false, network: false, unixSockets: false });
  });

  it('takes the flag over the environment over the config file', () => {
    writeFileSync(file, 'AGENTX_SANDBOX=read-only\nAGENTX_SANDBOX_NETWORK=on\n');
    expect(resolve({})).toEqual({ mode: 'read-only', offIfUnavailable: false, network: true, unixSockets: false });
    expect(resolve({}, { AGENTX_SANDBOX: 'off-if-unavailable', AGENTX_SANDBOX_NETWORK: 'off' })).toEqual({
      mode: 'workspace-write',
      offIfUnavailable: true,
      network: false,
      unixSockets: false,
    });
    expect(resolve({ sandbox: 'danger-full-access' }, { AGENTX_SANDBOX: 'read-only' }).mode).toBe('danger-full-access');
  });

  it('refuses a bad value with a one-line error naming the variable', () => {
    expect(() => resolve({}, { AGENTX_SANDBOX: 'strict' })).toThrow(ConfigError);
    expect(() => resolve({}, { AGENTX_SANDBOX: 'strict' })).toThrow(/^AGENTX_SANDBOX: expected .* got "strict"$/);
    expect(() => resolve({}, { AGENTX_SANDBOX_NETWORK: 'yes' })).toThrow(/^AGENTX_SANDBOX_NETWORK: expected on or off, got "yes"$/);
  });

  it('AGENTX_SANDBOX_UNIX_SOCKETS: off by default, on from the environment or the file, a list refused in one line', () => {
    expect(resolve({}, { AGENTX_SANDBOX_UNIX_SOCKETS: 'on' }).unixSockets).toBe(true);
    writeFileSync(file, 'AGENTX_SANDBOX_UNIX_SOCKETS=on\n');
    expect(resolve({}).unixSockets).toBe(true);
    expect(resolve({}, { AGENTX_SANDBOX_UNIX_SOCKETS: 'off' }).unixSockets).toBe(false);
    expect(() => resolve({}, { AGENTX_SANDBOX_UNIX_SOCKETS: '/run/a.sock,/run/b.sock' })).toThrow(
      /^AGENTX_SANDBOX_UNIX_SOCKETS: expected on or off \(a list of sockets cannot be enforced\), got "\/run\/a.sock,\/run\/b.sock"$/,
    );
  });
});
