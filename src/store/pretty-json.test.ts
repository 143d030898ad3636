import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prettyJsonParts } from './pretty-json.ts';
import { emptyState, recordTurn, serializeState } from './state.ts';
import { saveState } from './store.ts';

const same = (v: unknown): void => {
  expect(prettyJsonParts(v).join('')).toBe(JSON.stringify(v, null, 2));
};

describe('prettyJsonParts', () => {
  it('equals JSON.stringify(v, null, 2) for any JSON value, however nested', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        same(v);
      }),
      { numRuns: 500 },
    );
  });

  it('drops what JSON.stringify drops and keeps its null, toJSON and escaping rules', () => {
    same({ a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t'), NaN, -0, Infinity], e: new Date(0) });
    same({ nested: { deeper: { deepest: { list: [{ x: 'line\nbreak "quoted" \u2028 é ✓' }] } } }, empty: {}, none: [] });
    same([[[[[1, [2, { k: [] }]]]]]]);
    same({ toJSONDropped: { toJSON: () => undefined }, kept: 1 });
  });

  it('writes a real session state exactly as JSON.stringify does', () => {
    let s = emptyState();
    for (let n = 1; n <= 22; n++) {
      s = recordTurn(s, {
        responseId: `resp_${n}`,
        userMessage: `question ${n}\nwith "quotes"`,
        assistantMessage: `answer ${n} ✓`,
        usage: { inputTokens: n, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
        toolSummaries: [`$ ls → exit 0`],
        now: new Date(Date.UTC(2026, 0, 1, 0, n)),
      });
    }
    const full = { ...s, rollback_backup: { ...s, rollback_backup: null }, extra_unknown: { kept: [1, { two: 2 }] } };
    same(full);
    // And saveState puts exactly serializeState's bytes on disk, also after a smaller save
    // (the encode buffer is reused).
    const dir = mkdtempSync(join(tmpdir(), 'agentx-pretty-'));
    try {
      for (const state of [full, s, { ...emptyState(), last_user_message: 'é ✓ \ud800 lone surrogate' }]) {
        saveState(join(dir, 'state'), state);
        expect(readFileSync(join(dir, 'state'), 'utf8')).toBe(serializeState(state));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws where JSON.stringify throws', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = { again: { and: { more: cyclic } } };
    expect(() => prettyJsonParts(cyclic)).toThrow();
    expect(() => prettyJsonParts({ big: 1n })).toThrow();
  });
});
