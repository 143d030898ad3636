// The conversation log under kill -9 (issue 22): one-shots whose server forgets the chain after
// each command (so every turn replays from the log), some against a server that stores nothing,
// SIGKILLed at a random moment — while the server has not answered, while a command runs, while
// the log is appended, while the replay is sent. After every run: the log reads back with at most
// one damaged (torn) record per kill, every completed turn's conversation replays from it whole
// (its command and output included), no command ran twice, and the next one-shot works.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from '../e2e/harness.ts';
import { ConversationLog } from '../../src/store/log/conversation-log.ts';
import { between, iterations, rngFrom, seedFor, Tally } from './lib/env.ts';
import { ledgerCounts } from './lib/checks.ts';

const SEED = seedFor('5-log');
const RUNS = iterations('LOG_RUNS', 8, 80);
const tally = new Tally(
  '5-log',
  'The conversation log under kill -9',
  'one-shot turn whose chain the server forgets after the command (replayed from the log), SIGKILLed at a random moment or left to finish',
  SEED,
);

let emu: Emulator;
let box: Sandbox;
beforeAll(async () => {
  emu = await startEmulator({ latencyMs: 15 });
  box = sandbox(emu.baseUrl);
});
afterAll(async () => {
  await emu.close();
  const report = tally.save();
  process.stdout.write(`[fault 5-log] seed ${SEED}: ${report.runs} runs, ${JSON.stringify(report.counts)}, ${report.failures.length} failures\n`);
});

function logFile(): string | undefined {
  const dir = join(box.home, '.local', 'state', 'agentx', 'conversations');
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir).filter((f) => f.endsWith('.log'));
  return files.length === 1 ? join(dir, files[0] ?? '') : undefined;
}

/** Lines of the log that do not read back as records (torn by a kill, or corrupt). */
function damagedLines(path: string): number {
  let damaged = 0;
  new ConversationLog(path, (line) => {
    damaged = Number(/had (\d+) damaged/.exec(line)?.[1] ?? 0);
  }).find('resp_none');
  return damaged;
}

it(
  `survives ${RUNS} runs of kill -9 during appends and replays (seed ${SEED})`,
  async () => {
    const rng = rngFrom(SEED);
    const ledger = join(box.cwd, 'ledger.txt');
    let kills = 0;
    const completed: { responseId: string; token: string }[] = [];
    for (let run = 0; run < RUNS; run++) {
      tally.runs++;
      const token = `tok-${run}-${Math.floor(rng() * 1e9).toString(36)}`;
      const stateless = rng() < 0.3;
      const kill = rng() < 0.7;
      const delay = between(rng, 20, 700);
      emu.clearQueue();
      emu.setStateless(stateless);
      emu.enqueue(
        { kind: 'shell', commands: [`echo ${token} >> ${ledger}`] },
        { kind: 'forget' },
        { kind: 'text', text: `done ${token}`, chunks: 8, delayMs: between(rng, 0, 30) },
      );
      let timer: NodeJS.Timeout | undefined;
      const result = await runCli(['--json', `log fault run ${run}`], {
        cwd: box.cwd,
        env: { ...box.env, ...(stateless && rng() < 0.5 ? { AGENTX_STORE: 'off' } : {}) },
        timeoutMs: 30_000,
        onSpawn: (pid) => {
          if (kill)
            timer = setTimeout(() => {
              try {
                process.kill(pid, 'SIGKILL');
              } catch {
                /* already gone */
              }
            }, delay);
        },
      });
      if (timer) clearTimeout(timer);
      const killed = result.signal === 'SIGKILL';
      if (killed) {
        kills++;
        tally.count('killed');
      } else {
        tally.count(stateless ? 'finished (stateless server)' : 'finished (chain forgotten)');
        const final = result.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; response_id?: string })
          .find((e) => e.type === 'final');
        if (
          tally.expect(
            `run ${run}: a finished one-shot exits 0 with its answer`,
            result.code === 0 && final?.response_id !== undefined,
            result.stderr.slice(-300),
          )
        ) {
          completed.push({ responseId: final?.response_id ?? '', token });
        }
      }
      const path = logFile();
      if (path === undefined) {
        tally.expect(`run ${run}: the log exists once any turn finished`, completed.length === 0);
        continue;
      }
      tally.expect(`run ${run}: at most one damaged record per kill`, damagedLines(path) <= kills, `${damagedLines(path)} damaged after ${kills} kills`);
      // No command ran twice: each token at most once in the ledger.
      for (const [t, n] of ledgerCounts(ledger)) tally.expect(`token ${t} ran once`, n === 1, `ran ${n} times`);
    }
    // Every finished turn replays whole from the log: its message, its call and the call's output.
    const path = logFile();
    const log = path === undefined ? undefined : new ConversationLog(path);
    for (const { responseId, token } of completed) {
      const items = log?.conversation(responseId);
      const text = JSON.stringify(items ?? null);
      tally.expect(
        `the turn of ${token} replays from the log`,
        items != null && text.includes(`echo ${token}`) && text.includes('shell_call_output') && text.includes(`done ${token}`),
      );
      tally.count('finished turns replayed whole');
    }
    // The log still takes appends: a last one-shot against a server that stores responses.
    emu.setStateless(false);
    emu.clearQueue();
    const last = await runCli(['one more'], { cwd: box.cwd, env: box.env });
    tally.expect('a one-shot after all the kills works', last.code === 0, last.stderr.slice(-300));
    tally.count('kills', 0);
    expect(tally.failures).toEqual([]);
  },
  15 * 60_000,
);
