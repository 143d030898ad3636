// Crash fuzz (issue 8, SPEC §3.1/§3.4–3.6): interactive and one-shot turns whose tool commands
// append unique tokens to a ledger are SIGKILLed at random moments (waiting for the server,
// streaming, running a command, rewriting the state, failing), then restarted and resumed with
// each menu choice in turn. Short in `npm test`; `npm run fault` runs FAULT_RUNS (≥ 200) kills.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { sandbox } from '../e2e/harness.ts';
import { FULL, iterations, rngFrom, seedFor, Tally } from './lib/env.ts';
import { scanForSecret } from './lib/checks.ts';
import { Lane } from './lib/lane.ts';

const emulators: Emulator[] = [];
const lanes: Lane[] = [];
afterAll(async () => {
  for (const lane of lanes) lane.repl?.kill();
  await Promise.all(emulators.map((e) => e.close()));
});

const RUNS = iterations('RUNS', 6, 400);
const LANES = Math.max(1, Math.min(RUNS, iterations('LANES', 2, 3)));

it(
  `survives ${RUNS} SIGKILLs at random moments, resuming with every menu choice`,
  async () => {
    const seed = seedFor('crash');
    const tally = new Tally('1-crash', 'Crash fuzz', 'SIGKILL at a random moment, then checks, restart and resume', seed);
    const key = `sk-fault-${randomBytes(12).toString('hex')}`;
    for (let i = 0; i < LANES; i++) {
      const emu = await startEmulator();
      emulators.push(emu);
      // Every other lane talks WebSocket (docs/transport.md): the same journal and recovery must hold on either transport.
      const transport = i % 2 === 1 ? { AGENTX_TRANSPORT: 'websocket' } : {};
      const lane = new Lane(i, emu, sandbox(emu.baseUrl, { AGENTX_API_KEY: key, ...transport }), tally, rngFrom(seed + i * 7919));
      await lane.seed();
      lanes.push(lane);
    }
    await Promise.all(
      lanes.map(async (lane) => {
        const share = Math.floor(RUNS / LANES) + (lane.id < RUNS % LANES ? 1 : 0);
        // Counted per kill (a resumed turn killed again counts too), so stop at the share.
        for (let k = 0; tally.runs < RUNS && k < share; k++) {
          const run = `${lane.id}-${k}`;
          try {
            if (lane.rng() < 0.3) await lane.oneshot(run);
            else await lane.interactive(run);
          } catch (err) {
            tally.fail(`lane ${lane.id} run ${run} broke the harness: ${(err as Error).stack ?? String(err)}`);
            lane.repl?.kill();
            lane.repl = undefined;
          }
        }
        await lane.finish();
      }),
    );
    for (const lane of lanes) {
      // FAULT_DEBUG_DIR keeps every screen of the lane for a post-mortem.
      if (process.env.FAULT_DEBUG_DIR) {
        writeFileSync(
          join(process.env.FAULT_DEBUG_DIR, `lane-${lane.id}.txt`),
          Object.entries(lane.outputs)
            .map(([k, v]) => `===== ${k}\n${v}`)
            .join('\n'),
        );
      }
      scanForSecret(key, [dirname(lane.sb.home)], { ...lane.outputs, 'request bodies': JSON.stringify(lane.emu.requests.map((r) => r.body)) }, tally);
    }
    for (const lane of lanes.filter((l) => l.id % 2 === 1)) {
      // agentx's own requests (the harness seeds the chain over HTTP with another key).
      const posts = lane.emu.requests.filter((r) => r.path === '/v1/responses' && r.headers.authorization === `Bearer ${key}`);
      expect(posts.length).toBeGreaterThan(0);
      expect(posts.every((r) => r.transport === 'websocket')).toBe(true);
    }
    tally.count(
      'ledger tokens that ran twice (each after a Retry of a `started` call)',
      lanes.reduce((n, l) => n + l.repeats, 0),
    );
    tally.notes.push(
      `${LANES} lanes in parallel (odd lanes on the WebSocket transport), each a project directory with its own emulator; seed ${seed} (replay with FAULT_SEED=${seed}).`,
    );
    const report = tally.save();
    expect(report.runs).toBeGreaterThanOrEqual(RUNS);
    expect(report.failures).toEqual([]);
  },
  FULL ? 14 * 60_000 : 180_000,
);
