// view_image on a FIFO (issue 23 §6): a sandboxed command can leave a named pipe where the model
// then looks for a screenshot. The blocking open waited for a writer forever, and agentx, stuck in
// a synchronous call, ignored Ctrl-C and SIGTERM. Now the call fails at once with a line for the model.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('view_image on a FIFO', () => {
  it('answers the model at once that it is not a regular file; the one-shot ends normally', async () => {
    const box = sandbox(emu.baseUrl);
    execFileSync('mkfifo', [join(box.cwd, 'shot.png')]);
    const n = emu.requests.length;
    emu.enqueue({ kind: 'function', name: 'view_image', arguments: JSON.stringify({ path: 'shot.png' }) }, { kind: 'text', text: 'no image then' });
    const started = Date.now();
    // Killed after 15 s if it hangs (the old code's fate): then code is null and this fails.
    const r = await runCli(['look at shot.png'], { cwd: box.cwd, env: box.env, timeoutMs: 15_000 });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const follow = emu.requests[n + 1]?.body as { input: { type: string; output?: string }[] };
    const output = follow.input.find((i) => i.type === 'function_call_output')?.output;
    expect(output).toBe(`error: ${join(box.cwd, 'shot.png')}: not a regular file (a named pipe); only image files can be viewed`);
    expect(r.stdout).toContain('no image then');
  });
});
