// Failure handling of one-shots (SPEC §3.6): one automatic retry of a retryable failure, a new
// chain when the server lost the conversation, fatal errors reported once, nothing re-run.
import { createServer } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, storedResponse, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

const isolatedFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('.agentx_responseid.oneshot-'));
const since = (n: number) => emu.requests.slice(n);

describe('one-shot recovery', () => {
  it('honours Retry-After on a 429 and succeeds on the retry', async () => {
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 1, message: 'Rate limit reached' });
    const n = emu.requests.length;
    const started = Date.now();
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.stderr).toMatch(/retrying in 1\.0 s/);
    expect(r.stdout).toBe('You said: hello\n');
    expect(since(n).map((q) => q.status)).toEqual([429, 200]);
  });

  it('retries a 500 once, then gives up with exit 1 and a one-line reason', async () => {
    emu.enqueue({ kind: 'http_error', status: 500 });
    const ok = await runCli(['hello'], box);
    expect(ok.code).toBe(0);
    emu.enqueue({ kind: 'http_error', status: 502, times: 2 });
    const n = emu.requests.length;
    const bad = await runCli(['hello'], box);
    expect(bad.code).toBe(1);
    expect(since(n)).toHaveLength(2);
    expect(bad.stderr.split('\n').filter((l) => l.startsWith('agentx: request failed'))).toHaveLength(1);
    expect(isolatedFiles(box.cwd)).toHaveLength(1);
  });

  it('does not retry a 401 and says what is wrong', async () => {
    emu.enqueue({ kind: 'http_error', status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' });
    const n = emu.requests.length;
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(1);
    expect(since(n)).toHaveLength(1);
    expect(r.stderr).toMatch(/authentication failed \(401\)/);
    expect(r.stderr).not.toContain('sk-test-e2e-secret');
  });

  it('a cut stream is retried and only the complete answer reaches stdout', async () => {
    emu.enqueue({ kind: 'cut', afterText: 'PARTIAL-' }, { kind: 'text', text: 'the full answer' });
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('the full answer\n');
    expect(r.stderr).toMatch(/cut off/);
  });

  it('starts a new chain with the local context when the server forgot the conversation', async () => {
    const head = await storedResponse(emu);
    writeFileSync(
      join(box.cwd, '.agentx_checkpoint'),
      JSON.stringify({
        version: 1,
        response_id: head,
        timestamp: new Date().toISOString(),
        usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0, turns: 1 },
        source: 'turn',
      }),
    );
    emu.forgetAll();
    const n = emu.requests.length;
    const r = await runCli(['still there?'], box);
    expect(r.code).toBe(0);
    const reqs = since(n);
    expect(reqs[0]?.status).toBe(400);
    expect((reqs[1]?.body as { previous_response_id?: string }).previous_response_id).toBeUndefined();
    expect(r.stderr).toMatch(/new chain/);
  });

  it('a failure after a tool ran resends the same output without running the command again', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo once >> ledger.txt'] }, { kind: 'http_error', status: 503 });
    const n = emu.requests.length;
    const r = await runCli(['go'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'ledger.txt'), 'utf8')).toBe('once\n');
    const reqs = since(n);
    expect(reqs.map((q) => q.status)).toEqual([200, 503, 200]);
    expect(JSON.stringify((reqs[2]?.body as { input: unknown }).input)).toBe(JSON.stringify((reqs[1]?.body as { input: unknown }).input));
  });

  it('exits 1 when the server is down, after one retry', async () => {
    const port = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
    const b = sandbox(`http://127.0.0.1:${port}/v1`);
    const r = await runCli(['hello'], b);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/retrying/);
    expect(r.stderr).toMatch(/connection/i);
  });

  it('reports a rate limit with a far reset time instead of retrying into it', async () => {
    emu.enqueue({ kind: 'http_error', status: 429, retryAfter: 3600, message: 'Usage limit reached' });
    const n = emu.requests.length;
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(1);
    expect(since(n)).toHaveLength(1);
    expect(r.stderr).toMatch(/wait until .*3600 s/);
  });
});
