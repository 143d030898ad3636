// Session state across processes (SPEC §3.1–§3.4): a session resumed after quitting continues the
// server-side chain with the totals the emulator reported; one-shots fired beside a live REPL
// branch from the checkpoint without touching the interactive files.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iterations } from '../support/iterations.ts';
import { runCli, sandbox } from './harness.ts';
import { type PtyRun } from './pty.ts';
import { body, prompt, readCheckpoint, readState, turn, type StateFile, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

// One-shots fired at once beside the REPL: 8 in `npm test` (each is a node process and a sandboxed
// command on 2 cores); the full 30 under `npm run fault`, or set FAULT_SESSION_ONESHOTS.
const ONESHOTS = iterations('SESSION_ONESHOTS', 8, 30);

interface WireUsage {
  input_tokens: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens: number;
  output_tokens_details?: { reasoning_tokens?: number };
}

/** The usage the emulator reported for a stored response (what the client was sent). */
async function reportedUsage(id: string): Promise<WireUsage> {
  const res = await fetch(`${suite.emu.baseUrl}/responses/${id}`, { headers: { authorization: 'Bearer test' } });
  expect(res.status).toBe(200);
  const response = (await res.json()) as { usage: WireUsage };
  return response.usage;
}

function sumUsage(list: WireUsage[]): Omit<StateFile['usage'], 'turns'> {
  return {
    inputTokens: list.reduce((n, u) => n + u.input_tokens, 0),
    cachedTokens: list.reduce((n, u) => n + (u.input_tokens_details?.cached_tokens ?? 0), 0),
    outputTokens: list.reduce((n, u) => n + u.output_tokens, 0),
    reasoningTokens: list.reduce((n, u) => n + (u.output_tokens_details?.reasoning_tokens ?? 0), 0),
  };
}

/** Sends one message and returns the id of the response that answered it (no tools involved). */
async function answeredTurn(a: PtyRun, message: string): Promise<string> {
  const n = suite.emu.requests.length;
  await turn(a, message, `You said: ${message}`);
  const sent = suite.emu.requests.slice(n);
  expect(sent).toHaveLength(1);
  expect(sent[0]?.status).toBe(200);
  return sent[0]?.responseId ?? '';
}

const isolatedFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('.agentx_responseid.oneshot-'));

describe('interactive session state', () => {
  it('resumes after quit: the third turn chains to the second response, totals match what the server reported', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const first = await answeredTurn(a, 'first question');
    const second = await answeredTurn(a, 'second question');
    a.line('quit');
    expect((await a.exited).exitCode).toBe(0);
    // The checkpoint is published after every successful turn, not only at exit.
    expect(readCheckpoint(sb).response_id).toBe(second);

    const b = start(sb);
    await b.waitFor('Resuming session: 2 turns, last: "second question"');
    await prompt(b);
    const n = suite.emu.requests.length;
    const third = await answeredTurn(b, 'third question');
    const req = body(suite.emu.requests[n]) as { previous_response_id?: string; store?: boolean };
    expect(req.previous_response_id).toBe(second);
    expect(req.store).toBe(true);

    const s = readState(sb);
    expect(s.response_id).toBe(third);
    expect(s.history.map((h) => h.response_id)).toEqual([first, second, third]);
    expect(s.history.map((h) => h.user_preview)).toEqual(['first question', 'second question', 'third question']);
    const reported = await Promise.all([first, second, third].map(reportedUsage));
    const expected = { ...sumUsage(reported), turns: 3 };
    // Chained requests report cached input and the default model reasons: every counter is exercised.
    expect(expected.cachedTokens).toBeGreaterThan(0);
    expect(expected.reasoningTokens).toBeGreaterThan(0);
    expect(s.usage).toEqual(expected);
    // Each history entry holds the session totals at that point.
    expect(s.history[1]?.usage).toEqual({ ...sumUsage(reported.slice(0, 2)), turns: 2 });
    const cp = readCheckpoint(sb);
    expect(cp).toMatchObject({ response_id: third, source: 'turn', usage: expected });
  });

  it(`${ONESHOTS} one-shots with tool calls beside a live REPL: all branch from the checkpoint, each call runs once, the interactive files stay byte-identical`, async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const head = await answeredTurn(a, 'interactive turn');
    // The REPL stays at its prompt holding the session lock while the one-shots run.
    expect(readFileSync(join(sb.cwd, '.agentx_responseid.lock'), 'utf8').split('\n')[0]).toBe(String(a.pid));
    const stateBefore = readFileSync(join(sb.cwd, '.agentx_responseid'));
    const checkpointBefore = readFileSync(join(sb.cwd, '.agentx_checkpoint'));
    expect(readCheckpoint(sb).response_id).toBe(head);

    const n = suite.emu.requests.length;
    // Each one-shot runs a tool call (exactly once: the ledger has each number once) and answers.
    const runs = await Promise.all(Array.from({ length: ONESHOTS }, (_, i) => runCli(['-q', `run: echo ${i} >> ledger.txt`], { ...sb, timeoutMs: 110_000 })));
    for (const [i, r] of runs.entries()) expect({ i, code: r.code, stderr: r.stderr }).toEqual({ i, code: 0, stderr: '' });
    const sent = suite.emu.requests.slice(n).map((q) => q.body as { previous_response_id?: string; store?: boolean; input: { type: string }[] });
    const firsts = sent.filter((b) => b.input.some((i) => i.type === 'message'));
    expect(firsts).toHaveLength(ONESHOTS);
    for (const b of firsts) expect(b).toMatchObject({ previous_response_id: head, store: true });
    const ledger = readFileSync(join(sb.cwd, 'ledger.txt'), 'utf8')
      .trim()
      .split('\n')
      .sort((x, y) => Number(x) - Number(y));
    expect(ledger).toEqual(Array.from({ length: ONESHOTS }, (_, i) => String(i)));

    expect(readFileSync(join(sb.cwd, '.agentx_responseid')).equals(stateBefore)).toBe(true);
    expect(readFileSync(join(sb.cwd, '.agentx_checkpoint')).equals(checkpointBefore)).toBe(true);
    expect(isolatedFiles(sb.cwd)).toEqual([]);
    expect(existsSync(join(sb.cwd, '.agentx_responseid.lock'))).toBe(true);

    // The REPL goes on from its own head, not from any one-shot's branch.
    const m = suite.emu.requests.length;
    await answeredTurn(a, 'still mine');
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(head);
    expect(readState(sb).usage.turns).toBe(2);
  }, 120_000);

  it('a one-shot says so when .agentx_checkpoint is unusable, starts a fresh chain and leaves the file alone', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const bad = '{"version": 1, "response_id": "resp_trunc';
    writeFileSync(join(sb.cwd, '.agentx_checkpoint'), bad);
    const n = suite.emu.requests.length;
    const r = await runCli(['hello'], sb);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: hello\n');
    expect(r.stderr).toMatch(/\.agentx_checkpoint could not be used \(invalid JSON[^\n]*starting fresh/);
    expect(body(suite.emu.requests[n]).previous_response_id).toBeUndefined();
    expect(readFileSync(join(sb.cwd, '.agentx_checkpoint'), 'utf8')).toBe(bad);
    // --quiet keeps stderr empty.
    const q = await runCli(['-q', 'hello'], sb);
    expect(q.code).toBe(0);
    expect(q.stderr).toBe('');
    expect(isolatedFiles(sb.cwd)).toEqual([]);
  });
});
