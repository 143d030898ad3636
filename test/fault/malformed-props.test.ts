// Malformed input, property-based (issue 8): whatever bytes sit in a state, checkpoint or config
// file and whatever argv holds, agentx's readers never throw, explain a refusal in one line,
// never lose the original (a refused state file is moved aside byte for byte), and whatever
// they accept can be saved and read back unchanged. fast-check shrinks any counterexample.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.ts';
import { AgentxError, UsageError } from '../../src/cli/errors.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { parseDotenv } from '../../src/config/dotenv.ts';
import { parseCheckpoint, serializeCheckpoint } from '../../src/store/checkpoint.ts';
import { parseState, serializeState } from '../../src/store/parse.ts';
import { loadState, STATE_FILE } from '../../src/store/store.ts';
import { iterations, seedFor, Tally } from './lib/env.ts';

const RUNS = iterations('PROP_RUNS', 150, 10_000);
const seed = seedFor('props');
const tally = new Tally('3a-malformed-props', 'Malformed input, property-based', 'generated input (fast-check)', seed);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  tally.notes.push(`fast-check, ${RUNS} runs per property, seed ${seed} (replay with FAULT_SEED=${seed}).`);
  tally.save();
});

/** Runs one property, counting its runs; a counterexample is recorded and fails the test. */
function property<T>(name: string, arb: fc.Arbitrary<T>, check: (value: T) => void, runs = RUNS): void {
  let n = 0;
  const result = fc.check(
    fc.property(arb, (v) => {
      n++;
      check(v);
    }),
    { numRuns: runs, seed },
  );
  tally.runs += n;
  tally.count(name, n);
  tally.count('assertions', n);
  if (result.failed)
    tally.fail(`${name}: counterexample ${fc.stringify(result.counterexample).slice(0, 300)} (${String(result.errorInstance).split('\n')[0] ?? ''})`);
  expect(result.failed, fc.defaultReportMessage(result) ?? '').toBe(false);
}

const oneLine = (s: string): boolean => s.length > 0 && s.length < 400 && !/[\r\n]/.test(s);

const usage = fc.record({ inputTokens: fc.nat(), cachedTokens: fc.nat(), outputTokens: fc.nat(), reasoningTokens: fc.nat(), turns: fc.nat() });
const id = fc.stringMatching(/^resp_[a-z0-9]{4,12}$/);
/** Plausible states: right shapes, wrong shapes, and anything at all in every field. */
const anyValue = fc.jsonValue({ maxDepth: 4 });
const stateLike = fc.record(
  {
    version: fc.oneof(fc.constant(1), fc.constant(undefined), anyValue),
    response_id: fc.oneof(id, fc.constant(null), anyValue),
    usage: fc.oneof(usage, anyValue),
    last_user_message: fc.oneof(fc.string(), anyValue),
    pending_cli_transcript: fc.oneof(fc.array(fc.record({ command: fc.string(), output: fc.string() })), fc.string(), anyValue),
    pending_tool_calls: fc.oneof(
      fc.array(
        fc.record({
          call_id: fc.string(),
          type: fc.constantFrom('shell_call', 'function_call', 'other'),
          status: fc.constantFrom('pending', 'started', 'completed', 'weird'),
          output: anyValue,
          action: fc.oneof(fc.record({ commands: fc.array(fc.string()) }), anyValue),
        }),
      ),
      anyValue,
    ),
    history: fc.oneof(fc.array(fc.record({ response_id: id, timestamp: fc.string(), usage })), anyValue),
    rollback_backup: fc.oneof(fc.constant(null), anyValue),
    failed_response: fc.oneof(fc.boolean(), anyValue),
    pending_transaction: fc.oneof(fc.record({ input: fc.array(anyValue) }), anyValue),
    transcript: fc.oneof(fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'x'), text: fc.string() })), anyValue),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/** Every way a file can be damaged: valid JSON cut short, bytes flipped, junk, nothing. */
const damaged = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.tuple(stateLike, fc.nat()).map(([s, cut]) => {
    const t = JSON.stringify(s);
    return t.slice(0, cut % (t.length + 1));
  }),
  fc.tuple(stateLike, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([s, at, junk]) => {
    const t = JSON.stringify(s);
    const i = at % (t.length + 1);
    return t.slice(0, i) + junk + t.slice(i + 1);
  }),
  anyValue.map((v) => JSON.stringify(v)),
  fc.constantFrom('', '\uFEFF', '{', 'null', '[]', '"resp_x"', 'resp_1', '\uFEFF{"version":1}', '{"version":2}', '{"__proto__":{"x":1}}'),
);

describe('state files', () => {
  it('parseState never throws; a refusal is one line; whatever it accepts round-trips through a save', () => {
    property(
      'state text parsed',
      fc.oneof(
        damaged,
        stateLike.map((s) => JSON.stringify(s)),
      ),
      (text) => {
        const parsed = parseState(text);
        if (!parsed.ok) {
          expect(oneLine(parsed.reason)).toBe(true);
          return;
        }
        const saved = serializeState(parsed.state);
        const again = parseState(saved);
        expect(again.ok).toBe(true);
        if (again.ok) {
          expect(again.state).toEqual(parsed.state);
          expect(again.warnings).toEqual([]);
          expect(serializeState(again.state)).toBe(saved);
        }
      },
    );
  });

  it('loadState moves an unusable file aside byte for byte and never throws', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-fault-props-'));
    dirs.push(dir);
    const path = join(dir, STATE_FILE);
    property(
      'state files loaded from disk',
      fc.oneof(
        damaged,
        fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
      ),
      (text) => {
        for (const f of readdirSync(dir)) rmSync(join(dir, f));
        const bytes = Buffer.from(text, 'latin1');
        writeFileSync(path, bytes);
        const loaded = loadState(path, new Date());
        for (const n of loaded.notices) expect(oneLine(n)).toBe(true);
        expect(loaded.writable).toBe(true);
        const aside = readdirSync(dir).filter((f) => f.includes('.corrupt-'));
        if (loaded.existed) {
          expect(aside).toEqual([]);
          expect(readFileSync(path).equals(bytes)).toBe(true);
        } else {
          expect(aside).toHaveLength(1);
          expect(readFileSync(join(dir, aside[0] ?? '')).equals(bytes)).toBe(true);
          expect(loaded.notices).toHaveLength(1);
        }
      },
      Math.max(50, Math.floor(RUNS / 3)),
    );
  });
});

describe('checkpoint files', () => {
  it('parseCheckpoint never throws; a refusal is one line; an accepted one round-trips', () => {
    property(
      'checkpoint text parsed',
      fc.oneof(
        damaged,
        stateLike.map((s) => JSON.stringify(s)),
      ),
      (text) => {
        const parsed = parseCheckpoint(text);
        if (!parsed.ok) {
          expect(oneLine(parsed.reason)).toBe(true);
          return;
        }
        const again = parseCheckpoint(serializeCheckpoint(parsed.checkpoint));
        expect(again.ok && again.checkpoint).toEqual(parsed.checkpoint);
      },
    );
  });
});

describe('flags and config', () => {
  const words = fc.oneof(
    fc.constantFrom(
      '-h',
      '-v',
      '-q',
      '-C',
      '-m',
      '-qC',
      '-Cq',
      '-x',
      '--cwd',
      '--model',
      '--base-url',
      '--json',
      '--confirm',
      '--debug',
      '--no-color',
      '--shell-tool',
      '--shell-tool=function',
      '--shell-tool=x',
      '--api-key',
      '--quiet=1',
      '--',
      '-',
      'setup',
      'hello',
      '--=',
      '--base-url=http://h/v1',
      '--base-url=ftp://x',
      '---',
      '-\u0000',
    ),
    fc.string({ maxLength: 12 }),
  );

  it('parseArgs either parses or throws a one-line UsageError', () => {
    property('argv vectors parsed', fc.array(words, { maxLength: 6 }), (argv) => {
      try {
        parseArgs(argv);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        expect(oneLine((err as Error).message)).toBe(true);
      }
    });
  });

  it('a config file of any content either configures or fails with a one-line ConfigError', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-fault-config-'));
    dirs.push(dir);
    const file = join(dir, 'config');
    const line = fc.oneof(
      fc.constantFrom(
        'AGENTX_MODEL=gpt-5',
        'AGENTX_REASONING_EFFORT=high',
        'AGENTX_REASONING_EFFORT=extreme',
        'AGENTX_BASE_URL=not a url',
        'AGENTX_BASE_URL=http://h/v1',
        'AGENTX_SHELL_TOOL=function',
        'AGENTX_SHELL_TOOL=nope',
        'AGENTX_API_KEY="sk-x y"',
        '# c',
        'export A=1',
        '=',
        "K='x",
      ),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    property(
      'config files resolved',
      fc.array(line, { maxLength: 6 }).map((l) => l.join(fc.sample(fc.constantFrom('\n', '\r\n'), 1)[0] ?? '\n')),
      (text) => {
        expect(() => parseDotenv(text)).not.toThrow();
        writeFileSync(file, text);
        try {
          resolveConfig({}, { AGENTX_CONFIG: file, HOME: dir });
        } catch (err) {
          expect(err).toBeInstanceOf(AgentxError);
          expect(oneLine((err as Error).message)).toBe(true);
        }
        expect(readFileSync(file, 'utf8')).toBe(text);
      },
    );
  });
});
