// Exec sessions in the REPL (real pty): a `sleep 600` the model leaves running does not block the
// next turn, /ps lists what runs, /stop ends it, and quitting agentx ends the rest. After kill -9
// of agentx nothing of a session is left (its background children included), and the next start
// reports the sessions as ended, to the person and to the model, and never reuses their ids.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY } from './pty.ts';
import { processesRunning } from '../support/sandbox.ts';
import { waitFor } from '../support/tools.ts';
import { sandbox } from './harness.ts';
import { body, prompt, readState, replSuite, toolOutputs, turn, userText } from './repl-fixtures.ts';

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

  it('kill -9: the session and its children die with agentx; the next start reports them to the person and the model', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const child = `sleep 5${Math.floor(Math.random() * 90 + 10)}`;
    const fg = `sleep 4${Math.floor(Math.random() * 90 + 10)}`;
    // One that leaves the session's process group and session (setsid): the sandbox's PID namespace still ends it.
    const escaped = `sleep 3${Math.floor(Math.random() * 90 + 10)}`;
    const mark = `ready-${Math.random().toString(36).slice(2, 8)}`;
    suite.emu.enqueue(
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: `${child} & setsid ${escaped} & echo ${mark}; ${fg}`, yield_time_ms: 500 }) },
      { kind: 'text', text: 'server started' },
    );
    await turn(a, 'start it', 'server started');
    const session = /session ID (\d+)/.exec(JSON.stringify(suite.emu.requests.at(-1)?.body))?.[1];
    expect(session).toBeDefined();
    expect(processesRunning(child).length).toBeGreaterThan(0);
    expect(processesRunning(fg).length).toBeGreaterThan(0);
    expect(processesRunning(escaped).length).toBeGreaterThan(0);
    process.kill(a.pid, 'SIGKILL');
    await a.exited;
    // The lifeline: the foreground command and the child it left in the background, both gone.
    expect(await waitFor(() => [child, fg, escaped].every((m) => processesRunning(m).length === 0), 5_000)).toBe(true);

    const b = suite.start(sb);
    await b.waitFor('1 exec session ended when the previous agentx process ended');
    await b.waitFor(mark);
    await prompt(b);
    const n = suite.emu.requests.length;
    suite.emu.enqueue(
      { kind: 'function', name: 'write_stdin', arguments: JSON.stringify({ session_id: Number(session), chars: '' }) },
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo fresh' }) },
      { kind: 'text', text: 'noted' },
    );
    await turn(b, 'is it still up?', 'noted');
    const first = suite.emu.requests[n];
    const told = [userText(first), JSON.stringify(body(first).input)].join('\n');
    expect(told).toContain('agentx was restarted');
    expect(told).toContain(`session ${session ?? ''}`);
    expect(told).toContain(mark);
    const outputs = toolOutputs(suite.emu.requests[n + 1]).map((o) => String(o.output));
    expect(outputs[0]).toMatch(/no longer exists: it ended when the agentx process that started it ended/);
    // Started after the report, a new session never takes the old id.
    const fresh = toolOutputs(suite.emu.requests[n + 2]).map((o) => String(o.output))[0] ?? '';
    expect(fresh).toMatch(/Process exited with code 0/);
    // Told once: a restart after a clean quit with nothing running says nothing.
    b.line('quit');
    await b.exited;
    const c = suite.start(sb);
    await prompt(c);
    expect(c.screen()).not.toContain('exec session');
  }, 90_000);

  it("kill -9 within an exec_command's yield: Retry does not start it again, and the old process is gone", async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const sleeper = `sleep 8${Math.floor(Math.random() * 90 + 10)}`;
    // A 30 s yield: agentx is still inside the call (journaled `started`) when it is killed.
    suite.emu.enqueue({ kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: `echo ran >> marker; ${sleeper}`, yield_time_ms: 30_000 }) });
    a.line('run it');
    const marker = join(sb.cwd, 'marker');
    expect(await waitFor(() => existsSync(marker) && processesRunning(sleeper).length > 0, 15_000)).toBe(true);
    expect(readState(sb).pending_tool_calls[0]?.status).toBe('started');
    process.kill(a.pid, 'SIGKILL');
    await a.exited;
    expect(await waitFor(() => processesRunning(sleeper).length === 0, 5_000)).toBe(true);

    const n = suite.emu.requests.length;
    suite.emu.enqueue({ kind: 'text', text: 'understood' });
    const b = suite.start(sb);
    await b.waitFor('How do you want to go on?');
    b.write('3');
    b.write(KEY.enter);
    await b.waitFor('understood');
    await prompt(b);
    // Created once: the retried call told the model it is not started again instead of running it.
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(processesRunning(sleeper).length).toBe(0);
    expect(String(toolOutputs(suite.emu.requests[n])[0]?.output)).toMatch(/it is not started again/);
    b.line('quit');
    await b.exited;
  }, 60_000);

  it('files a session writes during the turn are in /diff and put back by /rollback', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'keep.txt'), 'keep\n');
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'hello');
    const sleeper = `sleep 9${Math.floor(Math.random() * 90 + 10)}`;
    // The session writes after its call has answered (it runs in the background); the turn's
    // next command waits for the file, so the write happens during the turn, by the session alone.
    suite.emu.enqueue(
      {
        kind: 'function',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: `sleep 0.3; echo session > bg.txt; echo changed > keep.txt; ${sleeper}`, yield_time_ms: 250 }),
      },
      { kind: 'shell', commands: ['while [ ! -s keep.txt ] || ! grep -q changed keep.txt; do sleep 0.05; done; cat bg.txt'] },
      { kind: 'text', text: 'written in the background' },
    );
    await turn(a, 'write in the background', 'written in the background');
    expect(readFileSync(join(sb.cwd, 'bg.txt'), 'utf8')).toBe('session\n');
    a.line('/diff');
    await a.waitFor('Files changed by tool calls in the last turn:');
    await a.waitFor(/A bg\.txt/);
    await a.waitFor(/M keep\.txt/);
    await prompt(a);
    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?');
    a.write('2');
    a.write(KEY.enter);
    await a.waitFor('Restore what?');
    a.write(KEY.enter);
    await a.waitFor('Rolled back to checkpoint 2');
    await prompt(a);
    expect(existsSync(join(sb.cwd, 'bg.txt'))).toBe(false);
    expect(readFileSync(join(sb.cwd, 'keep.txt'), 'utf8')).toBe('keep\n');
    a.line('quit');
    await a.exited;
    expect(await waitFor(() => processesRunning(sleeper).length === 0, 5_000)).toBe(true);
  }, 60_000);
});
