// The yield clamps of exec sessions (docs/exec-sessions.md "Limits and answers").
import { describe, expect, it } from 'vitest';
import { clampYield, EXEC_DEFAULT_YIELD_MS, MAX_YIELD_MS, MIN_POLL_MS, MIN_YIELD_MS, WRITE_DEFAULT_YIELD_MS, writeYield } from './limits.ts';

describe('yield_time_ms', () => {
  it('is clamped to 250 ms – 30 s, and absent or not a number means the default', () => {
    expect(MAX_YIELD_MS).toBe(30_000);
    expect(MIN_YIELD_MS).toBe(250);
    expect(clampYield(99_999_999, EXEC_DEFAULT_YIELD_MS)).toBe(30_000);
    expect(clampYield(30_001, EXEC_DEFAULT_YIELD_MS)).toBe(30_000);
    expect(clampYield(29_999.6, EXEC_DEFAULT_YIELD_MS)).toBe(30_000);
    expect(clampYield(1, EXEC_DEFAULT_YIELD_MS)).toBe(250);
    expect(clampYield(-5, EXEC_DEFAULT_YIELD_MS)).toBe(250);
    expect(clampYield(1_234, EXEC_DEFAULT_YIELD_MS)).toBe(1_234);
    expect(clampYield(undefined, EXEC_DEFAULT_YIELD_MS)).toBe(10_000);
    expect(clampYield(Number.NaN, EXEC_DEFAULT_YIELD_MS)).toBe(10_000);
    expect(clampYield(Number.POSITIVE_INFINITY, EXEC_DEFAULT_YIELD_MS)).toBe(10_000);
  });

  it('write_stdin: an empty poll waits at least 5 s, typed characters answer after the yield asked for', () => {
    expect(MIN_POLL_MS).toBe(5_000);
    expect(writeYield(undefined, '')).toBe(5_000);
    expect(writeYield(250, '')).toBe(5_000);
    expect(writeYield(20_000, '')).toBe(20_000);
    expect(writeYield(99_999_999, '')).toBe(30_000);
    expect(writeYield(undefined, 'x\n')).toBe(WRITE_DEFAULT_YIELD_MS);
    expect(writeYield(99_999_999, 'x\n')).toBe(30_000);
  });
});
