// Exec sessions in the REPL (real pty): a `sleep 600` the model leaves running does not block the
// next turn, /ps lists what runs, /stop ends it, and quitting agentx ends the rest.
import { describe, expect, it } from 'vitest';
import { processesRunning } from '../support/sandbox.ts';
import { waitFor } from '../support/tools.ts';
import { sandbox } from './harness.ts';
import { prompt, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

describe('exec sessions in the REPL', () => {
  it('runs sleep in the background, lists it with /ps and stops it with /stop; quit ends the others', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const marker = `sleep 6${Math.floor(Math.random() * 90 + 10)}`;
    const other = `sleep 7${Math.floor(Math.random() * 90 + 10)}`;
    suite.emu.enqueue(
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: marker, yield_time_ms: 300 }) },
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: other, yield_time_ms: 300 }) },
      { kind: 'text', text: 'both started' },
    );
    const started = Date.now();
    a.line('start two sleepers');
    await a.waitFor('both started');
    await prompt(a);
    // The turn ended after the yields, not after the sleeps.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(processesRunning(marker).length).toBeGreaterThan(0);
    await turn(a, 'next turn works', 'You said: next turn works');
    a.line('/ps');
    await a.waitFor(marker);
    const id = new RegExp(`(\\d+)\\s+\\d+s\\s+${marker}`).exec(a.screen())?.[1];
    expect(id).toBeDefined();
    a.line(`/stop ${id ?? ''}`);
    await a.waitFor(`stopped exec session ${id ?? ''}`);
    expect(await waitFor(() => processesRunning(marker).length === 0, 5_000)).toBe(true);
    expect(processesRunning(other).length).toBeGreaterThan(0);
    a.line('quit');
    await a.exited;
    expect(await waitFor(() => processesRunning(other).length === 0, 5_000)).toBe(true);
  }, 60_000);
});
