// kill -9 of the REPL during /rollback and during a replayed chain (issue 22). One REPL session in
// a real pty takes turns whose command appends a token unique to the call to a ledger (outside
// the workspace, so a rollback's file restore cannot touch it), against a server that forgets the
// chain right after the command ran — every such turn is replayed from the conversation log. At a
// random moment of a turn, or of a /rollback, agentx is SIGKILLed, restarted, and any menu it
// shows answered with its default (Continue: the model is told; nothing is run again). After
// every kill: the session files are complete and read back cleanly, the state points at a
// response the server gave (or none), the log reads back with at most one damaged record per
// kill, and no token ran twice. At the end the REPL still takes a turn.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sandbox } from '../e2e/harness.ts';
import { KEY, type PtyRun } from '../e2e/pty.ts';
import { PROMPT, replSuite } from '../e2e/repl-fixtures.ts';
import { ConversationLog } from '../../src/store/log/conversation-log.ts';
import { checkSessionFiles, ledgerCounts } from './lib/checks.ts';
import { between, iterations, rngFrom, seedFor, Tally } from './lib/env.ts';

const SEED = seedFor('6-rollback-replay');
const RUNS = iterations('ROLLBACK_RUNS', 4, 30);
const tally = new Tally(
  '6-rollback-replay',
  'kill -9 during /rollback and replayed chains (REPL)',
  'REPL turn replayed from the log, or a /rollback, SIGKILLed at a random moment or left to finish',
  SEED,
);
const suite = replSuite();
const scratch = mkdtempSync(join(tmpdir(), 'agentx-fault-ledger-'));

afterAll(() => {
  const report = tally.save();
  process.stdout.write(`[fault 6-rollback-replay] seed ${SEED}: ${report.runs} runs, ${JSON.stringify(report.counts)}, ${report.failures.length} failures\n`);
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts the REPL and answers every menu with its default until the prompt shows. */
async function startSettled(start: () => PtyRun): Promise<PtyRun> {
  const a = start();
  for (let i = 0; i < 6; i++) {
    const seen = await a.waitFor(new RegExp(`${PROMPT.source}|❯ 1\\.`), 20_000);
    if (PROMPT.test(seen)) return a;
    tally.count('menus answered after a restart');
    a.write(KEY.enter);
  }
  throw new Error(`no prompt after 6 menus:\n${a.screen().slice(-1500)}`);
}

function damagedIn(home: string): number {
  const dir = join(home, '.local', 'state', 'agentx', 'conversations');
  if (!existsSync(dir)) return 0;
  let damaged = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log'))) {
    new ConversationLog(join(dir, f), (line) => {
      damaged += Number(/had (\d+) damaged/.exec(line)?.[1] ?? 0);
    }).find('resp_none');
  }
  return damaged;
}

it(
  `survives ${RUNS} kills during /rollback and replayed turns (seed ${SEED})`,
  async () => {
    const rng = rngFrom(SEED);
    const sb = sandbox(suite.emu.baseUrl);
    const ledger = join(scratch, 'ledger.txt');
    const emu = suite.emu;
    let kills = 0;
    let a = await startSettled(() => suite.start(sb));
    for (let run = 0; run < RUNS; run++) {
      tally.runs++;
      const rollback = run > 0 && rng() < 0.4;
      const kill = rng() < 0.75;
      const delay = rollback ? between(rng, 0, 250) : between(rng, 20, 900);
      emu.clearQueue();
      if (rollback) {
        a.line('/rollback');
        await a.waitFor('Roll back to which checkpoint?');
        // The numbers are right-aligned once there are 10 checkpoints or more (`❯  1.`).
        await a.waitFor(/❯ +1\./);
        a.write(KEY.enter);
        tally.count('rollbacks');
      } else {
        const token = `tok-${run}-${Math.floor(rng() * 1e9).toString(36)}`;
        emu.enqueue(
          { kind: 'shell', commands: [`echo ${token} >> ${ledger}`] },
          { kind: 'forget' },
          { kind: 'text', text: `done ${token}`, chunks: 6, delayMs: between(rng, 0, 30) },
        );
        a.line(`replayed turn ${run}`);
        tally.count('replayed turns');
      }
      if (kill) {
        await new Promise((r) => setTimeout(r, delay));
        process.kill(a.pid, 'SIGKILL');
        await a.exited;
        kills++;
        tally.count(rollback ? 'killed during /rollback' : 'killed during a replayed turn');
      } else {
        await a.waitFor(rollback ? /Rolled back to checkpoint|NOT undone/ : /done tok-/, 30_000);
        await a.waitFor(PROMPT, 30_000);
      }
      const where = `run ${run} (${rollback ? 'rollback' : 'replay'}${kill ? `, killed after ${delay} ms` : ''})`;
      const state = checkSessionFiles(sb.cwd, tally, where);
      const known = new Set(emu.requests.map((r) => r.responseId).filter((id) => id !== undefined));
      tally.expect(
        `${where}: the state points at a response the server gave`,
        state === undefined || state.response_id === null || known.has(state.response_id),
        String(state?.response_id),
      );
      tally.expect(`${where}: at most one damaged log record per kill`, damagedIn(sb.home) <= kills, `${damagedIn(sb.home)} after ${kills} kills`);
      for (const [t, n] of ledgerCounts(ledger)) tally.expect(`${where}: ${t} ran once`, n === 1, `ran ${n} times`);
      if (kill) a = await startSettled(() => suite.start(sb));
    }
    emu.clearQueue();
    a.line('still there?');
    await a.waitFor('You said: still there?', 30_000);
    await a.waitFor(PROMPT);
    tally.count('tokens in the ledger', ledgerCounts(ledger).size);
    a.line('quit');
    await a.exited;
    expect(tally.failures).toEqual([]);
  },
  15 * 60_000,
);
