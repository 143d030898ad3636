// The conversation log's prune under concurrent writers and kill -9 (issue 22): several
// processes append chains to one log with a tiny prune limit, so the log is rewritten and its
// old file moved to the archive while others append; some are SIGKILLed at random moments (in
// an append, a prune, a head's publication). After each run: every published head — what a
// session file points at — replays its whole chain from the log and its archive, at most one
// damaged line per kill, and a new writer still appends and prunes.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConversationLog } from '../../src/store/log/conversation-log.ts';
import { between, iterations, rngFrom, seedFor, Tally } from './lib/env.ts';

const SEED = seedFor('8-log-prune');
const RUNS = iterations('LOG_PRUNE_RUNS', 4, 40);
const WRITERS = 4;
/** Every 8th exchange of a writer answers with a compaction item (lib/log-writer.ts). */
const COMPACT_EVERY = 8;
/**
 * How recent an unpinned record a prune keeps (LogOptions.pinGraceMs; the product's is 10
 * minutes). The guarantee: a record whose session file is written within the grace of its time
 * stamp is never pruned before that file pins it. A writer stalled longer between the two (a
 * loaded CI machine, fsync waiting on a busy disk) is outside it: its heads are counted, not checked.
 */
const GRACE_MS = 1000;
const tally = new Tally(
  '8-log-prune',
  'The conversation log pruned under concurrent writers and kill -9',
  `${WRITERS} processes appending chains to one log with a tiny prune limit, some SIGKILLed at a random moment`,
  SEED,
);

let writer = '';
beforeAll(async () => {
  writer = join(mkdtempSync(join(tmpdir(), 'agentx-log-writer-')), 'log-writer.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'lib/log-writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: writer,
    logLevel: 'error',
  });
});

afterAll(() => {
  const report = tally.save();
  process.stdout.write(`[fault 8-log-prune] seed ${SEED}: ${report.runs} runs, ${JSON.stringify(report.counts)}, ${report.failures.length} failures\n`);
});

interface Writer {
  name: string;
  printed: string[];
  /** Milliseconds from each printed record's time stamp to its head's publication. */
  published: Map<string, number>;
  killed: boolean;
  prunes: number;
  reappends: number;
}

function runWriter(args: string[], killAfterMs: number | undefined): Promise<Writer> {
  const [, , name = ''] = args;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [writer, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const lines = out.split('\n').filter((l) => l !== '');
      const summary = /^prunes (\d+) reappends (\d+)$/.exec(lines.at(-1) ?? '');
      if (signal !== 'SIGKILL' && code !== 0) tally.fail(`writer ${name} exited ${code}: ${err.slice(-300)}`);
      const records = lines.filter((l) => !l.startsWith('prunes ')).map((l) => l.split(' '));
      resolve({
        name,
        printed: records.map(([id = '']) => id),
        published: new Map(records.map(([id = '', ms = '0']) => [id, Number(ms)])),
        killed: signal === 'SIGKILL',
        prunes: Number(summary?.[1] ?? 0),
        reappends: Number(summary?.[2] ?? 0),
      });
    });
  });
}

/** Lines of the log that do not read back as records (torn by a kill, or corrupt). */
function damagedLines(path: string): number {
  let damaged = 0;
  new ConversationLog(path, (line) => {
    damaged = Number(/had (\d+) damaged/.exec(line)?.[1] ?? 0);
  }).find('none');
  return damaged;
}

/** Where a replay of `head` breaks: the first record of its chain the log cannot find. */
function missingLink(log: ConversationLog, head: string): string {
  let id: string | null = head;
  let found = 0;
  while (id !== null) {
    const record = log.find(id);
    if (record === undefined) return `${id} not found after ${found} records`;
    found++;
    id = record.prev;
  }
  return 'no missing record';
}

/** The user messages of a replay, as the ids the writer put first in each. */
function chainIds(log: ConversationLog, head: string): string[] | null {
  const items = log.conversation(head);
  if (items === null) return null;
  return items.flatMap((item) => {
    if (item.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) return [];
    const part = item.content[0];
    return part !== undefined && 'text' in part && typeof part.text === 'string' ? [part.text.split(' ')[0] ?? ''] : [];
  });
}

it(
  `keeps every published head's chain through ${RUNS} runs of concurrent prunes and kills (seed ${SEED})`,
  async () => {
    const rng = rngFrom(SEED);
    for (let run = 0; run < RUNS; run++) {
      tally.runs++;
      const dir = mkdtempSync(join(tmpdir(), 'agentx-log-prune-'));
      const path = join(dir, 'project.log');
      const heads = join(dir, 'heads');
      mkdirSync(heads);
      const limit = between(rng, 16, 48) * 1024;
      const writers = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) => {
          const kill = rng() < 0.5 ? between(rng, 100, 900) : undefined;
          // The first is the REPL gone idle: a few exchanges, then the others' newer and bigger
          // branches push it past the newest-branches byte cap: only its pin keeps it.
          const records = w === 0 ? between(rng, 3, 12) : between(rng, 40, 100);
          return runWriter(
            [path, heads, `w${run}x${w}`, String(records), String(limit), String(between(rng, 2000, 6000)), String(COMPACT_EVERY), String(GRACE_MS)],
            kill,
          );
        }),
      );
      const kills = writers.filter((w) => w.killed).length;
      tally.count('writers SIGKILLed', kills);
      tally.count(
        'prunes by writers that finished',
        writers.reduce((n, w) => n + w.prunes, 0),
      );
      tally.count(
        'records appended again after their file was replaced (by writers that finished)',
        writers.reduce((n, w) => n + w.reappends, 0),
      );
      tally.count(
        'records acknowledged',
        writers.reduce((n, w) => n + w.printed.length, 0),
      );
      const log = new ConversationLog(path);
      for (const w of writers) {
        let head: string | undefined;
        try {
          head = readFileSync(join(heads, w.name), 'utf8');
        } catch {
          head = undefined;
        }
        const last = w.printed.at(-1);
        if (head === undefined) {
          tally.expect(`run ${run}: ${w.name} printed nothing it did not publish`, last === undefined);
          continue;
        }
        const n = Number(head.split('-').at(-1));
        // Published before printed: the head is the last printed id, or the one after it (killed in between).
        tally.expect(
          `run ${run}: ${w.name}'s head is what it printed last, or one more`,
          last === head || (w.killed && Number(last?.split('-').at(-1) ?? -1) === n - 1),
          `${head} vs ${last}`,
        );
        const ids = chainIds(log, head);
        // A replay starts at the last compaction item: the exchange that answered with it (its
        // message came before it) is the last one not replayed.
        const from = Math.floor((n + 1) / COMPACT_EVERY) * COMPACT_EVERY;
        const expected = Array.from({ length: n + 1 - from }, (_, i) => `${w.name}-${from + i}`);
        // A head killed before it was printed has no figure: it is checked.
        if (expected.some((id) => (w.published.get(id) ?? 0) > GRACE_MS)) {
          tally.count(`heads published more than ${GRACE_MS} ms after their record (outside the grace: not checked)`);
          continue;
        }
        if (
          tally.expect(
            `run ${run}: ${w.name}'s head ${head} replays its whole chain`,
            JSON.stringify(ids) === JSON.stringify(expected),
            `${ids?.length ?? 'null'} of ${expected.length}${ids === null ? `; ${missingLink(log, head)}` : ''}`,
          )
        )
          tally.count('published heads replayed whole');
      }
      tally.expect(`run ${run}: at most one damaged line per kill`, damagedLines(path) <= kills, `${damagedLines(path)} damaged after ${kills} kills`);
      // The log still takes a writer: appends and (unless a kill left the prune lock) prunes.
      const after = await runWriter([path, heads, `w${run}after`, '20', String(limit), '2000', String(COMPACT_EVERY), String(GRACE_MS)], undefined);
      tally.expect(`run ${run}: a writer after the kills appends all its records`, after.printed.length === 20);
      if (readdirSync(dir).includes('project.log.1')) tally.count('runs whose log was pruned');
      if (readdirSync(dir).includes('project.log.pruning')) tally.count('runs where a kill left the prune lock (prunes wait 60 s)');
    }
    expect(tally.failures).toEqual([]);
  },
  15 * 60_000,
);
