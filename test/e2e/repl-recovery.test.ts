// Recovery in a real pty: agentx SIGKILLed mid-command then restarted into the pending-calls
// menu (each choice, exactly-once checked on a ledger file), and a failed request's menu.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionArchiveDir } from '../../src/paths.ts';
import { sandbox, type Sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { body, prompt, readState, toolOutputs, turn, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

const ledger = (sb: Sandbox): string => {
  try {
    return readFileSync(join(sb.cwd, 'ledger'), 'utf8');
  } catch {
    return '';
  }
};

/** Whether the command is still running (the supervisor's watcher, which only kills, is not it). */
function alive(marker: string): boolean {
  return execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .some((l) => l.includes(marker) && !l.includes('agentx-supervisor'));
}

/**
 * A turn with two calls: A completes, B starts (appends B-start) and waits for a `go` file; then
 * agentx is SIGKILLed. Its command dies with it; `go` is created afterwards, so any re-run of B
 * would append "B" and any re-run of A a second "A".
 */
async function killedMidTurn(sb: Sandbox): Promise<string> {
  const a = start(sb);
  await prompt(a);
  const marker = `mark-${Math.random().toString(36).slice(2)}`;
  suite.emu.enqueue({
    kind: 'calls',
    calls: [
      { commands: ['echo A >> ledger'] },
      { commands: [`: ${marker}; echo B-start >> ledger; while [ ! -f go ]; do sleep 0.05; done; echo B >> ledger`] },
    ],
  });
  const n = suite.emu.requests.length;
  a.line('do two things');
  await a.waitFor('echo B-start');
  await expect.poll(() => ledger(sb), { timeout: 5000 }).toBe('A\nB-start\n');
  a.kill('SIGKILL');
  await a.exited;
  await expect.poll(() => alive(marker), { timeout: 5000 }).toBe(false);
  writeFileSync(join(sb.cwd, 'go'), '');
  const s = readState(sb);
  expect(s.pending_tool_calls.map((c) => c.status)).toEqual(['completed', 'started']);
  return suite.emu.requests[n]?.responseId ?? '';
}

async function restartAndChoose(sb: Sandbox, choice: string): Promise<PtyRun> {
  const b = start(sb);
  await b.waitFor('The previous session stopped in the middle of a turn ("do two things")');
  await b.waitFor(/echo A >> ledger\s+completed/);
  await b.waitFor(/echo B-start[^\n]*started, did not finish/);
  await b.waitFor('How do you want to go on?');
  b.write(choice);
  b.write(KEY.enter);
  return b;
}

describe('restart after agentx died during a tool call', () => {
  it('Continue: the unfinished call is reported interrupted, nothing re-runs', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const toolResponse = await killedMidTurn(sb);
    const n = suite.emu.requests.length;
    const b = await restartAndChoose(sb, '1');
    await b.waitFor('Ran it');
    await prompt(b);
    const req = suite.emu.requests[n];
    expect(body(req).previous_response_id).toBe(toolResponse);
    const outs = toolOutputs(req);
    expect(outs).toHaveLength(2);
    expect(JSON.stringify(outs[1]?.output)).toContain('agentx stopped while this call was running');
    expect(JSON.stringify(outs[1]?.output)).not.toContain('without asking');
    expect(ledger(sb)).toBe('A\nB-start\n');
    expect(readState(sb).pending_tool_calls).toEqual([]);
    expect(readState(sb).usage.turns).toBe(1);
  });

  it('Continue, ask first: the model is told not to re-run without asking', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    await killedMidTurn(sb);
    const n = suite.emu.requests.length;
    const b = await restartAndChoose(sb, '2');
    await b.waitFor('Ran it');
    await prompt(b);
    expect(JSON.stringify(toolOutputs(suite.emu.requests[n])[1]?.output)).toContain('Do not run it again without asking the user first');
    expect(ledger(sb)).toBe('A\nB-start\n');
  });

  it('Retry: runs only the call that did not complete, reuses the completed one', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const toolResponse = await killedMidTurn(sb);
    const n = suite.emu.requests.length;
    const b = await restartAndChoose(sb, '3');
    await b.waitFor('already ran, sending its recorded output: echo A >> ledger');
    await b.waitFor('Ran it');
    await prompt(b);
    expect(ledger(sb)).toBe('A\nB-start\nB-start\nB\n');
    const req = suite.emu.requests[n];
    expect(body(req).previous_response_id).toBe(toolResponse);
    expect(toolOutputs(req)).toHaveLength(2);
    expect(readState(sb).pending_tool_calls).toEqual([]);
  });

  it('New session: the state is backed up and a fresh session starts; /resume brings the calls back, exactly once', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const toolResponse = await killedMidTurn(sb);
    const n = suite.emu.requests.length;
    const b = await restartAndChoose(sb, '4');
    // A destructive choice waits for an explicit "yes".
    await b.waitFor('Type "yes" to confirm');
    b.line('yes');
    await b.waitFor('new session started');
    await prompt(b);
    expect(suite.emu.requests.length).toBe(n);
    expect(readState(sb).pending_tool_calls).toEqual([]);
    expect(readState(sb).response_id).toBeNull();
    const backups = readdirSync(sb.cwd).filter((f) => f.startsWith('.agentx_responseid.bak-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(sb.cwd, backups[0] ?? ''), 'utf8')).toContain('"status": "started"');
    await turn(b, 'fresh start', 'You said: fresh start');
    expect(body(suite.emu.requests[n]).previous_response_id).toBeUndefined();
    expect(ledger(sb)).toBe('A\nB-start\n');

    // The entry keeps the journal whole: A's output inline, not a pointer into the conversation
    // log, which may be pruned while the entry waits for /resume.
    const [entryName] = readdirSync(sessionArchiveDir(sb.env, sb.home, sb.cwd));
    const entry = JSON.parse(readFileSync(join(sessionArchiveDir(sb.env, sb.home, sb.cwd), entryName ?? ''), 'utf8')) as {
      state: { pending_tool_calls: { call_id: string; status: string; output?: unknown; output_log?: string }[] };
    };
    const [archivedA] = entry.state.pending_tool_calls;
    expect(archivedA?.status).toBe('completed');
    expect(archivedA?.output).toMatchObject({ type: 'shell_call_output', call_id: archivedA?.call_id });
    expect(archivedA?.output_log).toBeUndefined();

    // The abandoned session was kept among the earlier ones: /resume brings it back with its
    // journal, so the same menu is offered again and nothing that completed runs twice.
    const m = suite.emu.requests.length;
    b.line('/resume');
    await b.waitFor('Resume which conversation?');
    await b.waitFor(/❯ 1\. [^\n]*0 turns\s+"do two things"/);
    b.write(KEY.enter);
    await b.waitFor('resumed the conversation');
    await b.waitFor(/echo A >> ledger\s+completed/);
    await b.waitFor('How do you want to go on?');
    b.write('1');
    b.write(KEY.enter);
    await b.waitFor('Ran it');
    await prompt(b);
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(toolResponse);
    expect(JSON.stringify(toolOutputs(suite.emu.requests[m])[1]?.output)).toContain('agentx stopped while this call was running');
    // The resumed conversation still has A's output: sent as recorded, for A's call.
    expect(toolOutputs(suite.emu.requests[m])[0]).toMatchObject({ type: 'shell_call_output', call_id: archivedA?.call_id });
    expect(ledger(sb)).toBe('A\nB-start\n');
  });
});

describe('Retry of a call a dead session left, interrupted with Ctrl-C', () => {
  it('the file the re-run call wrote is in /diff, and the turn is recorded as interrupted', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    // The call writes out.txt only once `go` exists (after the kill), then keeps running.
    const sleeper = `sleep 26.${process.pid % 1000}4`;
    suite.emu.enqueue({ kind: 'calls', calls: [{ commands: [`while [ ! -f go ]; do sleep 0.05; done; echo written > out.txt; ${sleeper}`] }] });
    a.line('write out.txt');
    await a.waitFor('echo written > out.txt');
    a.kill('SIGKILL');
    await a.exited;
    writeFileSync(join(sb.cwd, 'go'), '');
    expect(readState(sb).pending_tool_calls.map((c) => c.status)).toEqual(['started']);

    const b = start(sb);
    await b.waitFor('How do you want to go on?');
    b.write('3');
    b.write(KEY.enter);
    await expect.poll(() => existsSync(join(sb.cwd, 'out.txt')), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => alive(sleeper), { timeout: 5000 }).toBe(true);
    b.write(KEY.ctrlC);
    await b.waitFor('interrupted');
    await prompt(b, 5000);
    const s = readState(sb);
    expect(s.interrupted_turn?.user_message).toBe('write out.txt');
    expect(s.pending_files).not.toBeNull();

    b.line('/diff');
    await b.waitFor('Files changed by tool calls in the last turn:');
    await b.waitFor(/A out\.txt/);
    await b.waitFor('+written');
    await prompt(b);
  });
});

describe('a failed request', () => {
  it('offers the recovery menu; Cancel keeps it for the next start, where Retry resends it exactly', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = start(sb);
    await prompt(a);
    await turn(a, 'before the outage', 'You said: before the outage');
    const head = readState(sb).response_id;
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 5 });
    a.line('please work');
    await a.waitFor('retrying');
    await a.waitFor('request failed');
    await a.waitFor('What now?');
    const failed = readState(sb).pending_transaction;
    expect(failed?.previous_response_id).toBe(head);
    expect(readState(sb).history).toHaveLength(1);
    a.write('5');
    a.write(KEY.enter);
    await a.waitFor('Kept for later');
    await prompt(a);
    a.line('quit');
    await a.exited;
    expect(existsSync(join(sb.cwd, '.agentx_checkpoint'))).toBe(true);

    const b = start(sb);
    await b.waitFor('The last request failed');
    await b.waitFor('Your message is kept: "please work"');
    await b.waitFor('What now?');
    const n = suite.emu.requests.length;
    b.write('1');
    b.write(KEY.enter);
    await b.waitFor('You said: please work');
    await prompt(b);
    const ok = suite.emu.requests.at(-1);
    expect(suite.emu.requests.length).toBe(n + 3);
    expect(body(ok).input).toEqual(failed?.input);
    expect(body(ok).previous_response_id).toBe(head);
    const s = readState(sb);
    expect(s.pending_transaction).toBeNull();
    expect(s.history).toHaveLength(2);
  });

  it('a turn whose calls ran before the request failed: Retry after a restart keeps their lines in the turn', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'calls', calls: [{ commands: ['echo ran-before-failure'] }] }, { kind: 'http_error', status: 503, times: 5 });
    a.line('run then fail');
    await a.waitFor('What now?');
    expect(readState(sb).pending_transaction?.tool_summaries?.join('\n')).toContain('echo ran-before-failure');
    a.write('5');
    a.write(KEY.enter);
    await a.waitFor('Kept for later');
    await prompt(a);
    a.line('quit');
    await a.exited;

    const b = start(sb);
    await b.waitFor('What now?');
    b.write('1');
    b.write(KEY.enter);
    await b.waitFor('Ran it');
    await prompt(b);
    const s = readState(sb);
    expect(s.pending_transaction).toBeNull();
    const turnLines = s.transcript.map((e) => `${e.role}: ${e.text}`);
    expect(turnLines[0]).toBe('user: run then fail');
    expect(turnLines.some((l) => l.startsWith('tool: ') && l.includes('echo ran-before-failure'))).toBe(true);
  });
});
