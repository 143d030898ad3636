import type { ToolOutputItem } from '../wire/items.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes, shrinkLongStrings } from './shrink-json.ts';

const SEED = Number(process.env.AGENTX_TEST_SEED ?? 4242);

function shellOutput(stdout: string, stderr = ''): ToolOutputItem {
  return { type: 'shell_call_output', call_id: 'call_1', output: [{ stdout, stderr, outcome: { type: 'exit', exit_code: 0 } }] };
}

describe('shrinkLongStrings', () => {
  it('returns the value itself when it fits', () => {
    const v = shellOutput('small');
    expect(shrinkLongStrings(v, 10_000, 'r').value).toBe(v);
  });

  it('fits the budget, keeps head, tail and every short field, and marks the cut', () => {
    const big = `HEAD${'x'.repeat(500_000)}TAIL`;
    const { value } = shrinkLongStrings(shellOutput(big, 'short stderr'), 50_000, 'because');
    expect(jsonBytes(value)).toBeLessThanOrEqual(50_000);
    const item = value as { call_id: string; output: { stdout: string; stderr: string; outcome: unknown }[] };
    expect(item.call_id).toBe('call_1');
    expect(item.output[0]?.stderr).toBe('short stderr');
    expect(item.output[0]?.outcome).toEqual({ type: 'exit', exit_code: 0 });
    expect(item.output[0]?.stdout.startsWith('HEAD')).toBe(true);
    expect(item.output[0]?.stdout.endsWith('TAIL')).toBe(true);
    expect(item.output[0]?.stdout).toMatch(/bytes omitted: because/);
  });

  it(`always lands within the budget for any mix of long strings (seed ${SEED})`, () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\n', '"', '\u0001'), minLength: 0, maxLength: 3000 });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.integer({ min: 8_000, max: 40_000 }), (texts, budget) => {
        const value = { output: texts.map((t) => ({ stdout: t.repeat(5), stderr: t })) };
        const { value: out } = shrinkLongStrings(value, budget, 'r');
        // The floor per string (256 bytes + marker) can exceed tiny budgets; these budgets leave room.
        expect(jsonBytes(out)).toBeLessThanOrEqual(Math.max(budget, jsonBytes(value) <= budget ? 0 : budget));
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});
