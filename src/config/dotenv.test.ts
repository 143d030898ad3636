import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDotenv, parseDotenvLines, serializeDotenv } from './dotenv.ts';

// Fixed seed, printed, overridable: a failure can be replayed with AGENTX_TEST_SEED=<seed>.
const seed = Number(process.env.AGENTX_TEST_SEED ?? 20261203);
console.log(`dotenv property seed: ${seed} (override with AGENTX_TEST_SEED)`);

describe('dotenv', () => {
  it('round-trips backslashes: C:\\new comes back as written', () => {
    const values = { AGENTX_BASE_URL: 'C:\\new\\table', AGENTX_MODEL: 'a"b\\"c' };
    expect(parseDotenv(serializeDotenv(values))).toEqual(values);
  });

  it('any string survives write + read', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), (a, b) => {
        const values = { AGENTX_API_KEY: a, AGENTX_MODEL: b };
        expect(parseDotenv(serializeDotenv(values))).toEqual(values);
      }),
      { seed, numRuns: 500 },
    );
  });

  it('reads hand-written values: quotes, comments, escapes in one pass', () => {
    const text = 'A=plain # comment\nexport B="x\\ny"\nC=\'single \\n kept\'\nD="C:\\qdir\\\\n"\n# E=ignored\n';
    expect(parseDotenv(text)).toEqual({ A: 'plain', B: 'x\ny', C: 'single \\n kept', D: 'C:qdir\\n' });
  });
});

describe('parseDotenvLines', () => {
  it('numbers the lines that are not KEY=value, naming only a first word shaped like a setting', () => {
    const text =
      '# comment\nAGENTX_MODEL gpt-5\n\nsk-proj-0123456789abcdef\nexport AGENTX_WEB_SEARCH: on\nAGENTX_STORE=on\nABCDEF0123456789\nagentx_model gpt-5\n';
    const read = parseDotenvLines(text);
    expect(read.values).toEqual({ AGENTX_STORE: 'on' });
    expect(read.lineOf).toEqual({ AGENTX_STORE: 6 });
    // A pasted key (sk-…, hex) or a lower-case word is never named: the line may be a secret.
    expect(read.skipped).toEqual([
      { line: 2, name: 'AGENTX_MODEL' },
      { line: 4, name: undefined },
      { line: 5, name: 'AGENTX_WEB_SEARCH' },
      { line: 7, name: undefined },
      { line: 8, name: undefined },
    ]);
  });

  it('a key set twice counts at its last line', () => {
    expect(parseDotenvLines('A=1\r\nA=2\r\n')).toMatchObject({ values: { A: '2' }, lineOf: { A: 2 }, skipped: [] });
  });
});
