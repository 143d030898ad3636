// Property tests: for two random texts, a generated V4A diff applied to the first gives the
// second (as an envelope, as a built-in operation, in CRLF, and on disk), and the disk check
// then finds the patch already applied. Seed fixed and printed; AGENTX_TEST_SEED replays one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateHunks } from '../../../test/patches/v4a-gen.ts';
import type { GenOptions } from '../../../test/patches/v4a-gen.ts';
import { alreadyApplied, applyHunks, applyPatch, diffLines, formatPatch, parseBuiltinOperation, parsePatch, splitLines, toBuiltinOperation } from './index.ts';
import type { FileOperation } from './index.ts';

const seed = Number(process.env.AGENTX_TEST_SEED ?? 20261203);
const RUNS = 400;

// Few distinct lines, so repeats (ambiguity), whitespace variants and look-alikes are common.
const POOL = [
  'a',
  'b',
  'c',
  'a ',
  '  a',
  '\tb',
  '',
  'return x;',
  '}',
  '{',
  'x \u2014 y',
  'x - y',
  '\u201cq\u201d',
  'end',
  '@@ not an anchor',
  '*** not a marker',
];
const lines = fc.array(fc.constantFrom(...POOL), { maxLength: 30 });
const genOptions = fc.record<GenOptions>({ context: fc.integer({ min: 0, max: 3 }), anchors: fc.boolean(), endOfFile: fc.boolean() });

function text(ls: readonly string[], finalNewline: boolean, eol = '\n'): string {
  return ls.length === 0 ? '' : ls.join(eol) + (finalNewline ? eol : '');
}

/** Two texts that agree on the final newline (V4A cannot change it). */
const pair = fc.tuple(lines, lines, fc.boolean()).map(([a, b, finalNewline]) => ({ a: text(a, finalNewline), b: text(b, finalNewline) }));

const usable = (a: string, b: string): boolean => a !== b && (b === '' || splitLines(a).finalNewline === splitLines(b).finalNewline);

function update(a: string, b: string, opts: GenOptions): FileOperation {
  return { type: 'update', path: 'f.txt', moveTo: null, hunks: generateHunks(a, b, opts) };
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe(`V4A round trip (fast-check seed ${seed}; replay with AGENTX_TEST_SEED=${seed})`, () => {
  it('diffLines edits turn the first list into the second', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const out = [...a];
        for (const e of [...diffLines(a, b)].reverse()) {
          expect(out.slice(e.oldStart, e.oldStart + e.oldLines.length)).toEqual(e.oldLines);
          out.splice(e.oldStart, e.oldLines.length, ...e.newLines);
        }
        expect(out).toEqual(b);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('an envelope built from the diff turns the first text into the second', () => {
    fc.assert(
      fc.property(pair, genOptions, ({ a, b }, opts) => {
        fc.pre(usable(a, b));
        const [op] = parsePatch(formatPatch([update(a, b, opts)]));
        if (op?.type !== 'update') throw new Error('expected one update');
        expect(applyHunks(a, op.hunks, { path: 'f.txt' }).text).toBe(b);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('the same change as a built-in update_file operation gives the same text', () => {
    fc.assert(
      fc.property(pair, genOptions, ({ a, b }, opts) => {
        fc.pre(usable(a, b));
        const builtin = toBuiltinOperation(update(a, b, opts));
        if (!builtin) throw new Error('an update without a move has a built-in form');
        const op = parseBuiltinOperation(builtin);
        if (op.type !== 'update') throw new Error('expected an update');
        expect(applyHunks(a, op.hunks, { path: 'f.txt' }).text).toBe(b);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('a CRLF file stays CRLF', () => {
    fc.assert(
      fc.property(lines, lines, genOptions, (la, lb, opts) => {
        const [a, b] = [text(la, true, '\r\n'), text(lb, true, '\r\n')];
        fc.pre(a !== b && a !== '');
        const hunks = generateHunks(a, b, opts);
        expect(applyHunks(a, hunks, { path: 'f.txt' }).text).toBe(b);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('on disk: the file becomes the second text, and the patch is then already applied', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentx-patch-prop-'));
    temps.push(root);
    await fc.assert(
      fc.asyncProperty(pair, genOptions, async ({ a, b }, opts) => {
        fc.pre(usable(a, b));
        writeFileSync(join(root, 'f.txt'), a);
        const ops = parsePatch(formatPatch([update(a, b, opts)]));
        const result = await applyPatch(ops, { root, durable: false });
        expect(result.output).not.toMatch(/^Patch not applied/);
        expect(readFileSync(join(root, 'f.txt'), 'utf8')).toBe(b);
        expect((await alreadyApplied(ops, { root })).applied).toBe(true);
      }),
      { seed, numRuns: 80 },
    );
  });
});
