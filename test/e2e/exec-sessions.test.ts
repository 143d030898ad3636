// Exec sessions through the built CLI (issue 25): a server the model starts with exec_command is
// reached by its later shell command in the same agentx session (shared network namespace), the
// --json stream reports the session, and nothing of it survives agentx — also after kill -9.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { processesRunning } from '../support/sandbox.ts';
import { waitFor } from '../support/tools.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

const port = (): number => 20000 + Math.floor(Math.random() * 20000);
const serverCall = (p: number): { kind: 'function'; name: string; arguments: string } => ({
  kind: 'function',
  name: 'exec_command',
  arguments: JSON.stringify({ cmd: `python3 -m http.server ${p} --bind 127.0.0.1`, yield_time_ms: 1000 }),
});

describe('exec sessions in a one-shot', () => {
  it('serves a later curl in the same session, reports the session in --json, and is gone when agentx exits', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, 'index.html'), 'hello-from-session\n');
    const p = port();
    const n = emu.requests.length;
    emu.enqueue(
      serverCall(p),
      { kind: 'shell', commands: [`curl -s --retry 20 --retry-connrefused --retry-delay 0 --max-time 10 http://127.0.0.1:${p}/index.html`] },
      { kind: 'function', name: 'write_stdin', arguments: JSON.stringify({ session_id: 999_999, chars: 'x' }) },
      { kind: 'text', text: 'served' },
    );
    const r = await runCli(['--json', 'start a server and fetch from it'], { cwd: box.cwd, env: box.env, timeoutMs: 40_000 });
    expect(r.code).toBe(0);
    type Line = { type: string; command?: string; session_id?: number; call_id?: string; tool?: string; stopped?: boolean; stderr?: string };
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const start = lines.find((l) => l.type === 'exec_session_start');
    expect(start?.command).toContain(`http.server ${p}`);
    // The server's log of the GET arrives as (batched) output, and its end — agentx stopped it
    // when the one-shot finished — is reported before agentx exits.
    expect(lines.some((l) => l.type === 'exec_output' && l.session_id === start?.session_id)).toBe(true);
    expect(lines.find((l) => l.type === 'exec_session_exit' && l.session_id === start?.session_id)?.stopped).toBe(true);
    // A write_stdin the tool refuses (no such session) is reported like any other tool's answer.
    const write = lines.find((l) => l.type === 'tool_call' && l.tool === 'write_stdin');
    expect(write).toBeDefined();
    expect(lines.find((l) => (l.type === 'tool_output' || l.type === 'tool_error') && l.call_id === write?.call_id)?.stderr).toMatch(/no exec session 999999/);
    const first = JSON.stringify(emu.requests[n + 1]?.body);
    expect(first).toMatch(/Process running with session ID \d+/);
    const second = JSON.stringify(emu.requests[n + 2]?.body);
    expect(JSON.stringify(emu.requests[n + 3]?.body)).toContain('no exec session 999999');
    expect(second).toContain('hello-from-session');
    expect(await waitFor(() => processesRunning(`http.server ${p}`).length === 0, 5_000)).toBe(true);
  }, 60_000);

  it('dies with agentx on kill -9', async () => {
    const box = sandbox(emu.baseUrl);
    const p = port();
    emu.enqueue(serverCall(p), { kind: 'hang' });
    let pid = -1;
    const run = runCli(['start a server'], {
      cwd: box.cwd,
      env: box.env,
      timeoutMs: 40_000,
      onSpawn: (x) => {
        pid = x;
      },
    });
    expect(await waitFor(() => processesRunning(`http.server ${p}`).length > 0, 15_000)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await run.catch(() => undefined);
    expect(await waitFor(() => processesRunning(`http.server ${p}`).length === 0, 5_000)).toBe(true);
  }, 60_000);
});
