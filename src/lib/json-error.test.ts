import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, jsonParseError, lineColumn } from './json-error.ts';

// Fixed seed, printed, overridable: a failure can be replayed with AGENTX_TEST_SEED=<seed>.
const seed = Number(process.env.AGENTX_TEST_SEED ?? 20260611);
console.log(`json-error property seed: ${seed} (override with AGENTX_TEST_SEED)`);

/** What JSON.parse threw for `text` (the tests feed only text it refuses). */
function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (err) {
    return err;
  }
  throw new Error(`parsed: ${text}`);
}

const message = (label: string, text: string): string => jsonParseError(label, text, parseError(text));

/** Nothing that could act on a terminal or break the line. */
const CONTROL_OR_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

describe('jsonParseError', () => {
  it('names the file, the line and column, and the character; quotes none of the engine message', () => {
    const text = '{\n  "commands": [\n    {"prefix": ["git"], "decision": "allow"},\n  ]\n}\n';
    expect(message('/p/.agentx/rules.json', text)).toBe("/p/.agentx/rules.json is not valid JSON at line 4, column 3: unexpected ']' (near ']')");
  });

  it('spells out escape sequences, BEL and newlines of the file: one line, nothing for the terminal to act on', () => {
    const text = '{"commands": [\x1b]0;owned\x07\n\x1b[2J bad]}';
    const line = message('/p/rules.json', text);
    expect(line).toBe("/p/rules.json is not valid JSON at line 1, column 15: unexpected '\\x1b' (near '{\"commands\": [\\x1b]0;owned\\x07')");
    expect(line).not.toMatch(CONTROL_OR_INVISIBLE);
  });

  it('says where a file ends too early, and that an empty one is empty', () => {
    expect(message('h.json', '{"hooks": {\n  "Stop": [')).toBe('h.json is not valid JSON at line 2, column 12: the text ends too early (near \'"Stop": [\')');
    expect(message('h.json', '  \n')).toBe('h.json is not valid JSON: it is empty');
  });

  it('counts columns in characters and shows a byte order mark, which JSON.parse refuses', () => {
    expect(message('m.json', '{"é😀": tru}')).toMatch(/at line 1, column 11: unexpected '}'/);
    expect(message('m.json', '\ufeff{}')).toBe("m.json is not valid JSON at line 1, column 1: unexpected '\\ufeff' (near '\\ufeff{}')");
  });

  it('clips a long line to a short excerpt around the error', () => {
    const text = `{"a": "${'x'.repeat(500)}" "b": 1}`;
    const line = message('f.json', text);
    expect(line).toMatch(/^f\.json is not valid JSON at line 1, column 510: unexpected '"' \(near '…x{14}" "b": 1}'\)$/);
  });

  it('spells out a file name with control characters', () => {
    expect(message('/tmp/a\x1b[31m/x.json', '{')).toMatch(/^\/tmp\/a\\x1b\[31m\/x\.json is not valid JSON/);
  });
});

describe('jsonErrorOffset', () => {
  it('finds where JSON.parse stops when the engine says so (its "at position N")', () => {
    for (const text of ['{"a":1,}', '[1,]', '{"a" 1}', '{"a":"\\q"}', '{"a":"x\ny"}', '[01]', '[-]', '{"a":1}}', 'nul']) {
      const reported = /at position (\d+)/.exec((parseError(text) as Error).message);
      expect(jsonErrorOffset(text), text).toBe(reported ? Number(reported[1]) : jsonErrorOffset(text));
    }
  });

  it('agrees with JSON.parse on what is valid, for JSON with a character changed, removed or added', () => {
    const json = fc.jsonValue().map((v) => JSON.stringify(v, null, 1));
    const edit = fc.tuple(json, fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', '\\', '\n', 'x', '1', '\x1b', ' ', '{', '['), fc.boolean());
    fc.assert(
      fc.property(edit, ([text, n, ch, replace]) => {
        const k = text.length === 0 ? 0 : n % text.length;
        const edited = text.slice(0, k) + ch + text.slice(replace ? k + 1 : k);
        let valid = true;
        try {
          JSON.parse(edited);
        } catch {
          valid = false;
        }
        const at = jsonErrorOffset(edited);
        expect(at === undefined).toBe(valid);
        if (at !== undefined) expect(at).toBeLessThanOrEqual(edited.length);
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('scans deep nesting without recursion', () => {
    expect(jsonErrorOffset('['.repeat(200_000) + ']'.repeat(200_000))).toBeUndefined();
    expect(jsonErrorOffset('['.repeat(200_000))).toBe(200_000);
  });
});

describe('lineColumn', () => {
  it('counts from 1', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
