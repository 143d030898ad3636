import { describe, expect, it } from 'vitest';
import { ConfigError } from '../cli/errors.ts';
import { effectiveOutputCap, LIMIT_DEFAULTS, resolveLimits } from './limits.ts';

describe('resolveLimits', () => {
  it('uses the documented defaults', () => {
    expect(resolveLimits({})).toEqual({
      maxOutputBytes: 65_536,
      headersTimeoutMs: 60_000,
      streamIdleMs: 300_000,
      stdinGraceMs: 1000,
      maxStdinBytes: 16 * 1024 * 1024,
    });
    expect(resolveLimits({ AGENTX_HEADERS_TIMEOUT_MS: '' })).toEqual(LIMIT_DEFAULTS);
  });

  it('reads each variable', () => {
    expect(
      resolveLimits({
        AGENTX_MAX_OUTPUT_BYTES: '2048',
        AGENTX_HEADERS_TIMEOUT_MS: '250',
        AGENTX_STREAM_IDLE_MS: '300',
        AGENTX_STDIN_GRACE_MS: '0',
        AGENTX_MAX_STDIN_BYTES: '10',
      }),
    ).toEqual({ maxOutputBytes: 2048, headersTimeoutMs: 250, streamIdleMs: 300, stdinGraceMs: 0, maxStdinBytes: 10 });
  });

  it('refuses a value that is not a usable number, naming the variable', () => {
    expect(() => resolveLimits({ AGENTX_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(
      new ConfigError('AGENTX_HEADERS_TIMEOUT_MS: expected a whole number ≥ 1, got "soon"'),
    );
    expect(() => resolveLimits({ AGENTX_MAX_OUTPUT_BYTES: '10' })).toThrow(/AGENTX_MAX_OUTPUT_BYTES: expected a whole number ≥ 1024/);
    expect(() => resolveLimits({ AGENTX_STREAM_IDLE_MS: '1.5' })).toThrow(ConfigError);
    expect(() => resolveLimits({ AGENTX_MAX_RETRIES: 'many' })).toThrow(new ConfigError('AGENTX_MAX_RETRIES: expected a whole number ≥ 0, got "many"'));
    expect(() => resolveLimits({ AGENTX_RETRY_MAX_MS: '-1' })).toThrow(/AGENTX_RETRY_MAX_MS: expected a whole number ≥ 0/);
  });

  it('leaves the retry settings to the mode unless set', () => {
    expect(resolveLimits({}).maxRetries).toBeUndefined();
    expect(resolveLimits({ AGENTX_MAX_RETRIES: '0', AGENTX_RETRY_MAX_MS: '2500' })).toMatchObject({ maxRetries: 0, retryMaxMs: 2500 });
  });

  it('clamps timeouts to what a timer can hold', () => {
    expect(resolveLimits({ AGENTX_HEADERS_TIMEOUT_MS: '99999999999' }).headersTimeoutMs).toBe(2 ** 31 - 1);
  });
});

describe('effectiveOutputCap', () => {
  it('lets the model lower the cap, never raise it', () => {
    expect(effectiveOutputCap(undefined, 65_536)).toBe(65_536);
    expect(effectiveOutputCap(1000, 65_536)).toBe(1000);
    expect(effectiveOutputCap(500_000_000, 65_536)).toBe(65_536);
  });
});
