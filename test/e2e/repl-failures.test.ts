// Failures in the interactive session (SPEC §3.6), in a real pty against the emulator: what the
// user sees, what the state holds, what was sent. After every failure the message is either
// answered or still offered.
import { readFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoggedRequest } from '../emulator/server.ts';
import { sandbox, type Sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { body, prompt, readCheckpoint, readState, turn, userText, type StateFile, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Fast automatic retries, so a test sees all three attempts without waiting seconds. */
const fastRetries = { AGENTX_RETRY_BASE_MS: '10' };

interface FullState extends StateFile {
  failed_response: { error: string; status?: number } | null;
  pending_transaction: (NonNullable<StateFile['pending_transaction']> & { user_message: string | null }) | null;
}

const state = (sb: Sandbox): FullState => readState(sb) as FullState;
const checkpointBytes = (sb: Sandbox): Buffer => readFileSync(join(sb.cwd, '.agentx_checkpoint'));
const since = (n: number): LoggedRequest[] => suite.emu.requests.slice(n);

/** A turn answered by the default brain; returns its response id. */
async function answered(a: PtyRun, message: string): Promise<string> {
  const n = suite.emu.requests.length;
  await turn(a, message, `You said: ${message}`);
  return since(n).at(-1)?.responseId ?? '';
}

/** Chooses item `n` (1-based) of the menu on screen. */
function choose(a: PtyRun, n: number): void {
  a.write(String(n));
  a.write(KEY.enter);
}

/**
 * A TCP forwarder in front of the emulator that can be switched off (connections refused, open
 * ones cut) and on again at the same port, so the emulator keeps its stored responses.
 */
interface Switch {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
}

async function switchableProxy(targetPort: number): Promise<Switch> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const up = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        track(client);
        track(upstream);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const down = (): Promise<void> =>
    new Promise((resolve) => {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (s) s.close(() => resolve());
      else resolve();
    });
  await up();
  cleanups.push(down);
  return { url: `http://127.0.0.1:${port}/v1`, down, up };
}

describe('a request that keeps failing (503 ×5)', () => {
  it('shows each automatic retry, then the menu; the failure changes nothing; Retry succeeds', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    await prompt(a);
    const head = await answered(a, 'before the outage');
    const cpBefore = checkpointBytes(sb);
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 5 });
    const n = suite.emu.requests.length;
    a.line('through the outage');
    await a.waitFor(/503 [^\n]*retrying in [^\n]*\(attempt 2 of 3\)/);
    await a.waitFor(/503 [^\n]*retrying in [^\n]*\(attempt 3 of 3\)/);
    await a.waitFor('✗ request failed: 503');
    await a.waitFor('Your message is kept: "through the outage"');
    await a.waitFor('What now?');
    expect(since(n).map((r) => r.status)).toEqual([503, 503, 503]);
    const failed = state(sb);
    expect(failed.failed_response?.status).toBe(503);
    expect(failed.pending_transaction).toMatchObject({ previous_response_id: head, user_message: 'through the outage' });
    expect(failed.response_id).toBe(head);
    expect(failed.history).toHaveLength(1);
    expect(checkpointBytes(sb).equals(cpBefore)).toBe(true);

    choose(a, 1);
    // The retry gets the automatic attempts again: two more 503s, then the answer.
    await a.waitFor(/\(attempt 2 of 3\)/);
    await a.waitFor(/\(attempt 3 of 3\)/);
    await a.waitFor('You said: through the outage');
    await prompt(a);
    const sent = since(n);
    expect(sent.map((r) => r.status)).toEqual([503, 503, 503, 503, 503, 200]);
    for (const r of sent) expect(body(r)).toEqual(expect.objectContaining({ previous_response_id: head, input: failed.pending_transaction?.input }));
    const s = state(sb);
    expect(s.pending_transaction).toBeNull();
    expect(s.failed_response).toBeNull();
    expect(s.history).toHaveLength(2);
    expect(readCheckpoint(sb).response_id).toBe(sent.at(-1)?.responseId);
  });
});

describe('the server is down', () => {
  it('connection refused: retries, the menu, and Retry succeeds once the server is back', async () => {
    const proxy = await switchableProxy(suite.emu.port);
    const sb = sandbox(proxy.url, fastRetries);
    const a = start(sb);
    await prompt(a);
    const head = await answered(a, 'while it is up');
    await proxy.down();
    const n = suite.emu.requests.length;
    a.line('are you there?');
    await a.waitFor(/connection failed[^\n]*retrying in [^\n]*\(attempt 3 of 3\)/);
    await a.waitFor(/✗ request failed: connection failed: ECONNREFUSED/);
    await a.waitFor('Your message is kept: "are you there?"');
    await a.waitFor('What now?');
    expect(suite.emu.requests.length).toBe(n);
    expect(state(sb).pending_transaction).toMatchObject({ previous_response_id: head, user_message: 'are you there?' });
    expect(state(sb).history).toHaveLength(1);

    await proxy.up();
    a.write(KEY.enter); // 1. Retry is preselected
    await a.waitFor('You said: are you there?');
    await prompt(a);
    expect(since(n)).toHaveLength(1);
    expect(body(suite.emu.requests[n]).previous_response_id).toBe(head);
    const s = state(sb);
    expect(s.pending_transaction).toBeNull();
    expect(s.history).toHaveLength(2);
  });
});

describe('a failure after a tool ran', () => {
  /** A turn whose command runs, then whose follow-up request fails three times: the menu is up. */
  async function toolThenFailure(a: PtyRun, sb: Sandbox): Promise<{ n: number; toolResponse: string; input: unknown[] }> {
    await prompt(a);
    suite.emu.enqueue({ kind: 'shell', commands: ['echo ran >> ledger; echo appended'] }, { kind: 'http_error', status: 500, times: 3 });
    const n = suite.emu.requests.length;
    a.line('do it exactly once');
    await a.waitFor('$ echo ran >> ledger; echo appended');
    await a.waitFor('✗ request failed: 500');
    await a.waitFor('Your message is kept: "do it exactly once"');
    await a.waitFor('What now?');
    expect(since(n).map((r) => r.status)).toEqual([200, 500, 500, 500]);
    const toolResponse = suite.emu.requests[n]?.responseId ?? '';
    expect(ledger(sb)).toBe('ran\n');
    const s = state(sb);
    expect(s.pending_tool_calls.map((c) => c.status)).toEqual(['completed']);
    expect(s.pending_transaction?.previous_response_id).toBe(toolResponse);
    // The file points at the tool output in the conversation log; what is resent is what was sent.
    expect(s.pending_transaction?.input_log?.filter((i) => i.output_log !== undefined)).toHaveLength(1);
    const input = body(suite.emu.requests[n + 1]).input as { type?: string }[];
    expect(input.filter((i) => i.type === 'shell_call_output')).toHaveLength(1);
    expect(s.history).toEqual([]);
    return { n, toolResponse, input };
  }

  const ledger = (sb: Sandbox): string => readFileSync(join(sb.cwd, 'ledger'), 'utf8');

  /** The follow-ups (failed ones and the retry) all carried the same tool output; the turn completed. */
  function expectResentOnce(sb: Sandbox, f: { n: number; toolResponse: string; input: unknown[] }): void {
    const followUps = since(f.n + 1);
    expect(followUps.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    for (const r of followUps) expect(body(r)).toEqual(expect.objectContaining({ previous_response_id: f.toolResponse, input: f.input }));
    expect(ledger(sb)).toBe('ran\n');
    const s = state(sb);
    expect(s.pending_tool_calls).toEqual([]);
    expect(s.pending_transaction).toBeNull();
    expect(s.usage.turns).toBe(1);
    expect(s.history).toHaveLength(1);
  }

  it('Retry resends the recorded tool output; the command ran once', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    const f = await toolThenFailure(a, sb);
    choose(a, 1);
    await a.waitFor('Ran it. Output:\nappended');
    await prompt(a);
    expectResentOnce(sb, f);
  });

  it('after Cancel and a restart, the failed request is offered again (not the tool) and Retry still runs nothing', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    const f = await toolThenFailure(a, sb);
    choose(a, 5);
    await a.waitFor('Kept for later');
    await prompt(a);
    a.line('quit');
    expect((await a.exited).exitCode).toBe(0);

    const b = start(sb);
    await b.waitFor('The last request failed');
    await b.waitFor('Your message is kept: "do it exactly once"');
    await b.waitFor('What now?');
    // The command completed before the failure: no pending-calls menu, nothing to re-run.
    expect(b.screen()).not.toContain('How do you want to go on?');
    choose(b, 1);
    await b.waitFor('Ran it. Output:\nappended');
    await prompt(b);
    expectResentOnce(sb, f);
  });
});

describe('a failure after a tool with a long output ran, then kill -9', () => {
  it('the retry data points into the conversation log; after SIGKILL at the menu the next start offers it again and Retry resends the same request: the command ran once', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'shell', commands: ['echo ran >> ledger; seq 100000 102000'] }, { kind: 'http_error', status: 500, times: 3 });
    const n = suite.emu.requests.length;
    a.line('a long listing, once');
    await a.waitFor('What now?');
    const toolResponse = suite.emu.requests[n]?.responseId ?? '';
    const failedInput = body(suite.emu.requests[n + 1]).input as { type: string; output?: { stdout: string }[] }[];
    const stdout = failedInput.find((i) => i.type === 'shell_call_output')?.output?.[0]?.stdout ?? '';
    expect(stdout).toContain('101999');
    // The file holds a pointer, not the output (issue 22 §6): the log has it.
    const raw = readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8');
    expect(raw).toContain('"input_log"');
    expect(raw).not.toContain('101999');
    a.kill('SIGKILL');
    await a.exited;

    const b = start(sb);
    await b.waitFor('The last request failed');
    await b.waitFor('Your message is kept: "a long listing, once"');
    await b.waitFor('What now?');
    expect(b.screen()).not.toContain('How do you want to go on?');
    choose(b, 1);
    await b.waitFor('Ran it. Output:');
    await prompt(b);
    const followUps = since(n + 1);
    expect(followUps.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    for (const r of followUps) expect(body(r)).toEqual(expect.objectContaining({ previous_response_id: toolResponse, input: failedInput }));
    expect(readFileSync(join(sb.cwd, 'ledger'), 'utf8')).toBe('ran\n');
    expect(state(sb).pending_transaction).toBeNull();
  });
});

describe('the server lost the conversation', () => {
  it('expired chain: the next turn succeeds on a new chain carrying the conversation from the log, and the user is told', async () => {
    // AGENTX_STORE=on: the server stores responses and this loss is an expiry (auto would take it for a server that stores nothing).
    const sb = sandbox(suite.emu.baseUrl, { ...fastRetries, AGENTX_STORE: 'on' });
    const a = start(sb);
    await prompt(a);
    await answered(a, 'my name is Zorblax');
    await answered(a, 'I like green tea');
    suite.emu.forgetAll();
    const n = suite.emu.requests.length;
    a.line('what do you know about me?');
    await a.waitFor('previous response not found');
    await a.waitFor('resending the conversation from the local log');
    await a.waitFor('You said: what do you know about me?');
    await prompt(a);
    const sent = since(n);
    expect(sent.map((r) => r.status)).toEqual([400, 200]);
    expect(sent[0]?.error?.code).toBe('previous_response_not_found');
    const rebuilt = sent[1];
    expect(body(rebuilt).previous_response_id).toBeUndefined();
    expect((rebuilt?.body as { store?: boolean }).store).toBe(true);
    const text = JSON.stringify(body(rebuilt).input);
    for (const earlier of [
      'my name is Zorblax',
      'You said: my name is Zorblax',
      'I like green tea',
      'You said: I like green tea',
      'what do you know about me?',
    ]) {
      expect(text).toContain(earlier);
    }
    const s = state(sb);
    expect(s.response_id).toBe(rebuilt?.responseId);
    expect(s.history).toHaveLength(3);
    expect(s.pending_transaction).toBeNull();
    expect(readCheckpoint(sb).response_id).toBe(rebuilt?.responseId);

    // The conversation goes on from the new chain.
    const m = suite.emu.requests.length;
    await answered(a, 'and now?');
    expect(since(m).map((r) => r.status)).toEqual([200]);
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(rebuilt?.responseId);
  });

  it('New chain chosen from the recovery menu sends the local context without previous_response_id', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    await prompt(a);
    await answered(a, 'remember the number 4711');
    suite.emu.enqueue({ kind: 'http_error', status: 502, times: 3 });
    const n = suite.emu.requests.length;
    a.line('which number was it?');
    await a.waitFor('What now?');
    choose(a, 2);
    await a.waitFor('You said: which number was it?');
    await prompt(a);
    const sent = since(n);
    expect(sent.map((r) => r.status)).toEqual([502, 502, 502, 200]);
    const fresh = sent[3];
    expect(body(fresh).previous_response_id).toBeUndefined();
    expect(userText(fresh)).toContain('remember the number 4711');
    expect(userText(fresh)).toContain('which number was it?');
    const s = state(sb);
    expect(s.response_id).toBe(fresh?.responseId);
    expect(s.history).toHaveLength(2);
    expect(s.pending_transaction).toBeNull();

    const m = suite.emu.requests.length;
    await answered(a, 'thanks');
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(fresh?.responseId);
  });
});

describe('a fatal error', () => {
  it('401: one clear line, no retry loop, the message is kept and answered later', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    await prompt(a);
    const head = await answered(a, 'hello');
    const cpBefore = checkpointBytes(sb);
    suite.emu.enqueue({ kind: 'http_error', status: 401, message: 'Incorrect API key provided: sk-test***6789.', code: 'invalid_api_key' });
    const n = suite.emu.requests.length;
    a.line('the secret plan');
    await a.waitFor('✗ request failed: authentication failed (401): check your API key');
    await a.waitFor('your message is kept (↑ recalls it)');
    await prompt(a);
    expect(since(n)).toHaveLength(1);
    expect(a.screen()).not.toMatch(/retrying|What now\?/);
    expect(a.screen()).not.toContain('sk-test-e2e-secret');
    const failed = state(sb);
    expect(failed.failed_response?.status).toBe(401);
    expect(failed.pending_transaction).toMatchObject({ previous_response_id: head, user_message: 'the secret plan' });
    expect(failed.response_id).toBe(head);
    expect(failed.history).toHaveLength(1);
    expect(checkpointBytes(sb).equals(cpBefore)).toBe(true);

    // ↑ recalls it in this session…
    a.write(KEY.up);
    await a.waitFor('the secret plan');
    a.write('\x15'); // Ctrl-U: clear the line again
    a.line('quit');
    expect((await a.exited).exitCode).toBe(0);

    // …and the next start offers it again.
    const b = start(sb);
    await b.waitFor(/The last request failed \(authentication failed \(401\)/);
    await b.waitFor('Your message is kept: "the secret plan"');
    await b.waitFor('What now?');
    const m = suite.emu.requests.length;
    choose(b, 1);
    await b.waitFor('You said: the secret plan');
    await prompt(b);
    expect(since(m)).toHaveLength(1);
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(head);
    expect(state(sb).pending_transaction).toBeNull();
    expect(state(sb).history).toHaveLength(2);
  });
});

describe('a cut stream', () => {
  it('the partial text is marked as cut and the retry answer is what the history keeps', async () => {
    const sb = sandbox(suite.emu.baseUrl, fastRetries);
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'cut', afterText: 'PARTIAL-ANSWER' }, { kind: 'text', text: 'the complete answer' });
    a.line('tell me');
    await a.waitFor('PARTIAL-ANSWER');
    await a.waitFor('response cut off');
    await a.waitFor('the complete answer');
    await prompt(a);
    const s = state(sb);
    expect(s.history).toHaveLength(1);
    expect((s.history[0] as { assistant_preview?: string }).assistant_preview).toBe('the complete answer');
  });
});

describe('the retry countdown', () => {
  it('counts down in place and Ctrl-C cancels the wait; the message is kept', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const head = await answered(a, 'first');
    suite.emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 30, message: 'Rate limit reached for requests' });
    const n = suite.emu.requests.length;
    a.line('slow down please');
    await a.waitFor('Rate limit reached for requests — retrying in 30.0 s (attempt 2 of 3)');
    await a.waitFor(/retrying in 2\d\.0 s \(attempt 2 of 3\)/);
    a.write(KEY.ctrlC);
    await a.waitFor('interrupted');
    await prompt(a);
    expect(since(n)).toHaveLength(1);
    const s = state(sb);
    expect(s.response_id).toBe(head);
    expect(s.history).toHaveLength(1);
    expect(s.interrupted_turn?.user_message).toBe('slow down please');
    // The queued 429 was used up; the recalled message goes through, with the interruption noted.
    a.write(KEY.up);
    await a.waitFor('slow down please');
    const m = suite.emu.requests.length;
    a.write(KEY.enter);
    await a.waitFor('You said: Note: the user interrupted your previous turn (their message: "slow down please")');
    await a.waitFor(/tokens: /);
    await prompt(a);
    expect(since(m).map((r) => r.status)).toEqual([200]);
    expect(userText(suite.emu.requests[m]).endsWith('slow down please')).toBe(true);
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(head);
    expect(state(sb).history).toHaveLength(2);
  });
});
