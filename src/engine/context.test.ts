import { describe, expect, it } from 'vitest';
import {
  ContextSettingError,
  DEFAULT_WINDOW_TOKENS,
  autoCompactDecision,
  compactThresholdTokens,
  contextLeft,
  contextTokensOf,
  contextWindowFor,
  estimateTokens,
  formatContextLeft,
  parseAutoCompact,
  windowAfterOverflow,
  type ContextWindow,
} from './context.ts';

const window = (tokens: number): ContextWindow => ({ tokens, source: 'table', note: 't' });

describe('contextWindowFor', () => {
  it('knows the OpenAI families, dated snapshots included', () => {
    expect(contextWindowFor('gpt-5', undefined)).toMatchObject({ tokens: 272_000, source: 'table', note: 'gpt-5' });
    expect(contextWindowFor('gpt-5.1-codex', undefined).tokens).toBe(272_000);
    expect(contextWindowFor('gpt-5-mini-2025-08-07', undefined).tokens).toBe(272_000);
    expect(contextWindowFor('gpt-4.1-2025-04-14', undefined).tokens).toBe(1_047_576);
    expect(contextWindowFor('gpt-4.1-nano', undefined).tokens).toBe(1_047_576);
    expect(contextWindowFor('gpt-4o-mini', undefined).tokens).toBe(128_000);
    expect(contextWindowFor('o3', undefined).tokens).toBe(200_000);
    expect(contextWindowFor('o4-mini-2025-04-16', undefined).tokens).toBe(200_000);
  });

  it('assumes a conservative default for unknown models and says so', () => {
    const w = contextWindowFor('llama3.1:8b', undefined);
    expect(w).toMatchObject({ tokens: DEFAULT_WINDOW_TOKENS, source: 'default' });
    expect(w.note).toContain('llama3.1:8b');
    expect(contextWindowFor('o3-pro-like-thing', undefined).source).toBe('default');
  });

  it('AGENTX_CONTEXT_WINDOW wins, with k/m suffixes; nonsense is one clear line', () => {
    expect(contextWindowFor('gpt-5', '32000')).toMatchObject({ tokens: 32_000, source: 'setting' });
    expect(contextWindowFor('gpt-5', '200k').tokens).toBe(200_000);
    expect(contextWindowFor('gpt-5', '1.5m').tokens).toBe(1_500_000);
    expect(contextWindowFor('gpt-5', '').source).toBe('table');
    for (const bad of ['lots', '-5', '12', '1e9x']) {
      expect(() => contextWindowFor('gpt-5', bad)).toThrow(ContextSettingError);
    }
    expect(() => contextWindowFor('gpt-5', 'lots')).toThrow(/^AGENTX_CONTEXT_WINDOW: .*"lots"$/);
  });

  it('an overflow below the assumed window teaches a smaller one (never a setting)', () => {
    expect(windowAfterOverflow(window(128_000), 40_000)).toMatchObject({ tokens: 36_000, source: 'observed' });
    expect(windowAfterOverflow(window(128_000), 200_000).tokens).toBe(128_000);
    const setting: ContextWindow = { tokens: 128_000, source: 'setting', note: 's' };
    expect(windowAfterOverflow(setting, 40_000)).toBe(setting);
  });
});

describe('context left', () => {
  it("is the window minus the last response's input and output", () => {
    expect(contextTokensOf({ inputTokens: 90_000, outputTokens: 10_000 })).toBe(100_000);
    const left = contextLeft(100_000, window(272_000));
    expect(left).toEqual({ usedTokens: 100_000, leftTokens: 172_000, leftFraction: 172_000 / 272_000, windowTokens: 272_000, windowSource: 'table' });
    expect(formatContextLeft(left)).toBe('ctx 63% left');
    expect(formatContextLeft(contextLeft(271_000, window(272_000)))).toBe('ctx 0% left');
    expect(contextLeft(300_005, window(272_000)).leftTokens).toBe(0);
    expect(formatContextLeft(contextLeft(0, window(1000)))).toBe('ctx 100% left');
  });

  it('says when the window is assumed (a model agentx does not know)', () => {
    expect(formatContextLeft(contextLeft(32_000, contextWindowFor('local-llama', undefined)))).toBe('ctx 75% left (window assumed)');
  });
});

describe('AGENTX_AUTO_COMPACT', () => {
  it('defaults to 0.85, takes fractions, percentages and off', () => {
    expect(parseAutoCompact(undefined)).toEqual({ enabled: true, fraction: 0.85 });
    expect(parseAutoCompact('0.7')).toEqual({ enabled: true, fraction: 0.7 });
    expect(parseAutoCompact('90%')).toEqual({ enabled: true, fraction: 0.9 });
    expect(parseAutoCompact('OFF')).toEqual({ enabled: false });
    for (const bad of ['2', '0.01', 'soon', '150%']) expect(() => parseAutoCompact(bad)).toThrow(/^AGENTX_AUTO_COMPACT: /);
  });

  it('the server-side threshold follows the fraction and never goes below the service minimum', () => {
    expect(compactThresholdTokens(window(272_000), { enabled: true, fraction: 0.85 })).toBe(231_200);
    expect(compactThresholdTokens(window(1_100), { enabled: true, fraction: 0.5 })).toBe(1_000);
  });

  it('decides: below, threshold, server-side backstop, no progress, off', () => {
    const base = { window: window(10_000), setting: { enabled: true, fraction: 0.85 } as const, serverSide: false };
    expect(autoCompactDecision({ ...base, usedTokens: 8_000 })).toEqual({ compact: false, reason: 'below' });
    expect(autoCompactDecision({ ...base, usedTokens: 8_500 })).toEqual({ compact: true, reason: 'threshold' });
    expect(autoCompactDecision({ ...base, serverSide: true, usedTokens: 9_000 })).toEqual({ compact: false, reason: 'server_side' });
    expect(autoCompactDecision({ ...base, serverSide: true, usedTokens: 9_600 })).toEqual({ compact: true, reason: 'backstop' });
    expect(autoCompactDecision({ ...base, usedTokens: 8_700, tokensAfterLastCompaction: 8_400 })).toEqual({ compact: false, reason: 'no_progress' });
    expect(autoCompactDecision({ ...base, usedTokens: 8_700, tokensAfterLastCompaction: 3_000 }).compact).toBe(true);
    expect(autoCompactDecision({ ...base, setting: { enabled: false }, usedTokens: 9_999 })).toEqual({ compact: false, reason: 'off' });
  });
});

it('estimateTokens counts JSON bytes / 4, rounded up, as the emulator does', () => {
  expect(estimateTokens('abcd')).toBe(1);
  expect(estimateTokens('abcde')).toBe(2);
  expect(estimateTokens({ a: 'é' })).toBe(Math.ceil(Buffer.byteLength('{"a":"é"}') / 4));
});
