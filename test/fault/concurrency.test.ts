// Concurrency soak (issue 8, SPEC §3.1–3.4): rounds of N one-shots started at once beside a live
// REPL that keeps taking turns. The main state and the checkpoint may only ever show the REPL's
// own turns (sampled all along); every one-shot branches from a REPL checkpoint, succeeds and
// leaves no isolated or temp file; each one-shot command runs exactly once; no lock remains.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, sandbox } from '../e2e/harness.ts';
import { spawnAgentx, type PtyRun } from '../e2e/pty.ts';
import { parseCheckpoint } from '../../src/store/checkpoint.ts';
import { parseState } from '../../src/store/state.ts';
import { FULL, iterations, Tally } from './lib/env.ts';
import { hasStackTrace, isolatedFiles, ledgerCounts, readIf, scanForSecret, tempFiles } from './lib/checks.ts';

const PROMPT = /\S+@\S+:\S*> /;
const ROUNDS = iterations('SOAK_ROUNDS', 1, 4);
const ONESHOTS = iterations('SOAK_ONESHOTS', 8, 50);

let emu: Emulator | undefined;
let repl: PtyRun | undefined;
afterAll(async () => {
  repl?.kill();
  await emu?.close();
});

interface Done {
  code: number | null;
  out: string;
  pid: number;
}

function oneshot(cwd: string, env: NodeJS.ProcessEnv, message: string): Promise<Done> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, message], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out, pid: child.pid ?? -1 }));
  });
}

it(
  `${ROUNDS} round(s) of ${ONESHOTS} one-shots at once beside a REPL taking turns`,
  async () => {
    const tally = new Tally('2-concurrency', 'Concurrency soak', 'one-shot started together with the rest of its round');
    const key = `sk-fault-soak-${randomBytes(12).toString('hex')}`;
    emu = await startEmulator();
    const sb = sandbox(emu.baseUrl, { AGENTX_API_KEY: key });
    const dir = sb.cwd;
    const a = spawnAgentx(sb);
    repl = a;
    await a.waitFor(PROMPT, 30_000);

    const replMessages = new Set<string>();
    let replTurns = 0;
    const replTurn = async (): Promise<void> => {
      const message = `repl-turn-${++replTurns}`;
      replMessages.add(message);
      a.line(message);
      await a.waitFor(`You said: ${message}`, 60_000);
      await a.waitFor(PROMPT, 60_000);
    };
    await replTurn();

    // The REPL's final responses are those that answered a repl-turn message.
    const replResponses = (): Set<string> =>
      new Set(emu?.requests.filter((r) => JSON.stringify(r.body).includes('"repl-turn-')).map((r) => r.responseId ?? '') ?? []);

    // Sampler: what the main state and the checkpoint point at, as often as the loop allows.
    const seen = new Set<string>();
    let samples = 0;
    let sampling = true;
    const lockPids = new Set<string>();
    const sampler = (async () => {
      while (sampling) {
        for (const name of ['.agentx_responseid', '.agentx_checkpoint']) {
          const text = readIf(join(dir, name));
          if (text === undefined) continue;
          samples++;
          const id =
            name === '.agentx_checkpoint'
              ? (() => {
                  const p = parseCheckpoint(text);
                  return p.ok ? (p.checkpoint.response_id ?? 'null') : `unparsable ${name}`;
                })()
              : (() => {
                  const p = parseState(text);
                  return p.ok ? (p.state.response_id ?? 'null') : `unparsable ${name}`;
                })();
          seen.add(id);
        }
        const lock = readIf(join(dir, '.agentx_responseid.lock'));
        if (lock !== undefined) lockPids.add(lock.split('\n')[0] ?? '');
        await new Promise((r) => setTimeout(r, 15));
      }
    })();

    for (let round = 0; round < ROUNDS; round++) {
      const n0 = emu.requests.length;
      const tokens = Array.from({ length: ONESHOTS }, (_, i) => `tk-soak-${round}-${i}`);
      // Half run a command (its token must land once), half just talk.
      const runs = tokens.map((t, i) => oneshot(dir, sb.env, i % 2 === 0 ? `oneshot ${t} run: echo ${t} >> ledger` : `oneshot ${t} just talk`));
      let finished = false;
      const all = Promise.all(runs).finally(() => {
        finished = true;
      });
      let during = 0;
      while (!finished) {
        await replTurn();
        during++;
      }
      const results = await all;
      tally.count('REPL turns taken while one-shots ran', during);
      for (const r of results) {
        tally.runs++;
        tally.expect(`round ${round}: one-shot ${r.pid} exits 0`, r.code === 0, r.out.slice(-300));
        tally.expect(`round ${round}: no stack trace`, !hasStackTrace(r.out), r.out.slice(-300));
      }
      tally.expect(`round ${round}: no isolated file left on success`, isolatedFiles(dir).length === 0, isolatedFiles(dir).join(', '));
      tally.expect(`round ${round}: no temp file left`, tempFiles(dir).length === 0, tempFiles(dir).join(', '));
      const repls = replResponses();
      const firsts = emu.requests.slice(n0).filter((r) => JSON.stringify(r.body).includes('"oneshot tk-'));
      tally.expect(`round ${round}: every one-shot's first request reached the server`, firsts.length === ONESHOTS, String(firsts.length));
      for (const r of firsts) {
        const prev = (r.body as { previous_response_id?: string }).previous_response_id;
        tally.expect(`round ${round}: a one-shot branches from a REPL checkpoint`, prev !== undefined && repls.has(prev), String(prev));
      }
      const ledger = ledgerCounts(join(dir, 'ledger'));
      // On a miss, say what that one-shot printed (its answer says whether the command ran, failed or was refused).
      tokens.forEach((t, i) => {
        if (i % 2 !== 0) return;
        tally.expect(
          `round ${round}: ${t} ran exactly once`,
          ledger.get(t) === 1,
          `${String(ledger.get(t))}; its output: ${results[i]?.out.slice(-400) ?? ''}`,
        );
      });
    }

    sampling = false;
    await sampler;
    const repls = replResponses();
    tally.count('samples of the main state and checkpoint', samples);
    for (const id of seen) tally.expect('the main state and checkpoint only ever show REPL turns', repls.has(id), id);
    const state = parseState(readIf(join(dir, '.agentx_responseid')) ?? '');
    tally.expect(
      'the main state counts exactly the REPL turns',
      state.ok && state.state.usage.turns === replTurns,
      state.ok ? String(state.state.usage.turns) : 'unparsable',
    );
    tally.expect('history holds only REPL turns', state.ok && state.state.history.every((h) => h.user_preview.startsWith('repl-turn-')));
    tally.expect(
      'the lock only ever named the REPL',
      [...lockPids].every((p) => p === String(a.pid)),
      [...lockPids].join(', '),
    );

    a.line('quit');
    const exit = await a.exited;
    repl = undefined;
    tally.expect('the REPL quits cleanly', exit.exitCode === 0);
    tally.expect('no lock is left behind', !existsSync(join(dir, '.agentx_responseid.lock')));
    const leftovers = readdirSync(dir).filter((f) => /\.lock|takeover|\.tmp-/.test(f));
    tally.expect('no lock, takeover or temp file is left', leftovers.length === 0, leftovers.join(', '));
    scanForSecret(key, [dirname(sb.home)], { 'REPL screen': a.screen() }, tally);
    tally.notes.push(
      `${ROUNDS} round(s) × ${ONESHOTS} one-shots (half running a command); the REPL took ${replTurns} turns meanwhile; state and checkpoint sampled ${samples} times.`,
    );
    const report = tally.save();
    expect(report.failures).toEqual([]);
  },
  FULL ? 10 * 60_000 : 180_000,
);
