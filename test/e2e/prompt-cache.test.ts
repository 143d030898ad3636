// prompt_cache_key (issue 22 §4): one stable key per conversation on every request — chained,
// replayed from the log after a lost chain, sent whole to a server that stores nothing, from the
// REPL and from a one-shot beside it — and another key for another project's conversation. The
// emulator's prefix cache serves a prompt only under the key it was seen with, so the cached
// tokens the usage line and /usage show are there only because the key stayed the same.
import { describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';
import { prompt, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

type Sent = { store?: boolean; previous_response_id?: string; prompt_cache_key?: string; input?: { type?: string; role?: string }[] };
const sent = (r: LoggedRequest): Sent => r.body as Sent;
const cachedTokens = (r: LoggedRequest): number => r.usage?.input_tokens_details.cached_tokens ?? 0;

describe('prompt_cache_key', () => {
  it('the same key on chained, replayed and stateless requests of one project, REPL and one-shot; another project another key; cached tokens shown', async () => {
    suite.emu.setStateless(false);
    const sb = sandbox(suite.emu.baseUrl);
    const responses = (from: number): LoggedRequest[] => suite.emu.requests.filter((r) => r.path === '/v1/responses' && r.seq > from);
    const start = suite.emu.requests.at(-1)?.seq ?? 0;

    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'remember PET=otter', 'You said: remember PET=otter');
    await turn(a, 'run: echo 1 >> ledger.txt', /Ran it\. Output:/);
    // The server loses the chain: the conversation is resent from the log, under the same key.
    suite.emu.forgetAll();
    a.line('recall: PET');
    await a.waitFor('resending the conversation from the local log');
    await a.waitFor('Recalled: PET=otter');
    // The replayed request hit the prefix the earlier requests left under this key: the usage line says so.
    const usageLine = await a.waitFor(/tokens: \d+ in \(\d+ cached\)/);
    expect(Number(/\((\d+) cached\)/.exec(usageLine)?.[1])).toBeGreaterThan(0);
    await prompt(a);
    a.line('/usage');
    const row = await a.waitFor(/session\s+\d+\s+\d+\s+\d+\s+\d+/);
    await prompt(a);
    const [, , sessionCached] = row.trim().split(/\s+/).map(Number);
    const repl = responses(start);

    // A one-shot beside it, on a server that stores nothing (AGENTX_STORE=off: sent whole, store: false).
    const beforeOneshot = suite.emu.requests.at(-1)?.seq ?? 0;
    const oneshot = await runCli(['recall: PET'], { cwd: sb.cwd, env: { ...sb.env, AGENTX_STORE: 'off' } });
    expect(oneshot).toMatchObject({ code: 0, stdout: 'Recalled: PET=otter\n' });
    expect(oneshot.stderr).toMatch(/tokens: \d+ in \(\d+ cached\)/);
    const stateless = responses(beforeOneshot);

    // Another project: another conversation, another key.
    const other = sandbox(suite.emu.baseUrl);
    const beforeOther = suite.emu.requests.at(-1)?.seq ?? 0;
    expect((await runCli(['hello'], other)).code).toBe(0);
    const elsewhere = responses(beforeOther);

    const key = sent(repl[0]!).prompt_cache_key;
    expect(key).toMatch(/^agentx-[0-9a-f]{16}$/);
    // Every kind of request was made, and every one carried the key.
    const chained = repl.filter((r) => sent(r).previous_response_id !== undefined);
    const replayed = repl.filter(
      (r) => r.status === 200 && sent(r).previous_response_id === undefined && (sent(r).input ?? []).some((i) => i.type === 'shell_call'),
    );
    expect(chained.length).toBeGreaterThanOrEqual(2);
    expect(replayed).toHaveLength(1);
    expect(stateless.length).toBeGreaterThan(0);
    expect(stateless.every((r) => sent(r).store === false && sent(r).previous_response_id === undefined)).toBe(true);
    expect([...repl, ...stateless].map((r) => sent(r).prompt_cache_key)).toEqual([...repl, ...stateless].map(() => key));
    expect(elsewhere.map((r) => sent(r).prompt_cache_key)).toEqual([expect.stringMatching(/^agentx-[0-9a-f]{16}$/)]);
    expect(sent(elsewhere[0]!).prompt_cache_key).not.toBe(key);
    // The cache served the replays under the shared key; the other project started cold but for nothing of ours.
    expect(cachedTokens(replayed[0]!)).toBeGreaterThan(0);
    expect(stateless.every((r) => cachedTokens(r) > 0)).toBe(true);
    expect(sessionCached).toBe(repl.reduce((n, r) => n + cachedTokens(r), 0));
    expect(sessionCached).toBeGreaterThan(0);
  });
});
