// A REPL session on a server that stores nothing (issue 22): the built CLI in a real pty against
// the emulator in stateless mode (every `previous_response_id` is refused with 400
// previous_response_not_found). Ten turns with commands, /compact (our own summary: the server's
// compaction needs stored responses), a restart, a one-shot beside the open session, a /rollback —
// and through all of it at most one refused request, every command run exactly once, and the model
// still knowing what was said before (its memory is what agentx resends from the log).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';
import { body, prompt, readState, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

type Sent = { store?: boolean; previous_response_id?: string; prompt_cache_key?: string };
const sent = (r: LoggedRequest): Sent => r.body as Sent;
const runsOf = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];

describe('a REPL session on a server that stores nothing', () => {
  it('ten turns with commands, /compact, a restart, a one-shot beside it and /rollback: one refused request, nothing run twice', async () => {
    suite.emu.setStateless(true);
    suite.emu.configureContext({ windowTokens: 50_000, contextManagement: false, compactEndpoint: true });
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_CONTEXT_WINDOW: '50000', AGENTX_MODEL: 'gpt-5' });
    const ledger = join(sb.cwd, 'ledger.txt');
    const first = suite.emu.requests.length;

    let a = suite.start(sb);
    await prompt(a);
    await turn(a, 'remember PET=otter', 'You said: remember PET=otter');
    // The second request is the first chained one: refused, the server is taken for one that stores nothing.
    await turn(a, 'run: echo 1 >> ledger.txt', /Ran it\. Output:/);
    await turn(a, 'remember CITY=Oslo', 'You said: remember CITY=Oslo');
    await turn(a, 'run: echo 2 >> ledger.txt', /Ran it\. Output:/);
    await turn(a, 'recall: PET CITY', 'Recalled: PET=otter, CITY=Oslo');

    a.line('/compact');
    await a.waitFor('conversation compacted into a summary by the model');
    await prompt(a);
    await turn(a, 'recall: PET', 'Recalled: PET=otter');
    await turn(a, 'run: echo 3 >> ledger.txt', /Ran it\. Output:/);

    // A restart: the conversation comes back from the log, not from the server.
    a.write('\x04');
    await a.exited;
    a = suite.start(sb);
    await prompt(a);
    await turn(a, 'recall: PET CITY', 'Recalled: PET=otter, CITY=Oslo');
    await turn(a, 'remember TOOL=hammer', 'You said: remember TOOL=hammer');

    // A one-shot beside the open session branches from its checkpoint and replays it too.
    const oneshot = await runCli(['recall: TOOL PET'], sb);
    expect(oneshot.stderr).not.toMatch(/previous_response_not_found|no longer has/);
    expect(oneshot).toMatchObject({ code: 0, stdout: 'Recalled: TOOL=hammer, PET=otter\n' });

    // /rollback to before the compaction: the older conversation is replayed, the newer facts are gone.
    const history = readState(sb).history;
    const rollbackTo = history.length - history.findIndex((h) => h.user_preview.includes('recall: PET CITY'));
    a.line(`/rollback ${rollbackTo}`);
    await a.waitFor('Restore what?');
    a.write('2'); // the conversation only: the ledger keeps its lines, so it still counts the runs
    a.write('\r');
    await a.waitFor(`Rolled back to checkpoint ${rollbackTo}`);
    await prompt(a);
    await turn(a, 'recall: PET CITY TOOL', 'Recalled: PET=otter, CITY=Oslo, TOOL=?');
    await turn(a, 'run: echo 4 >> ledger.txt', /Ran it\. Output:/);

    const requests = suite.emu.requests.slice(first).filter((r) => r.path === '/v1/responses');
    // Refused: the one chain that showed the server stores nothing, and the context-management
    // probe every server without that feature answers once (remembered like the store capability).
    const refused = requests.filter((r) => r.status !== 200 && r.error?.code !== 'unknown_parameter');
    expect(refused.map((r) => r.error?.code)).toEqual(['previous_response_not_found']);
    expect(requests.filter((r) => r.error?.code === 'unknown_parameter')).toHaveLength(1);
    const after = requests.slice(requests.indexOf(refused[0]!) + 1);
    expect(after.length).toBeGreaterThan(10);
    expect(after.every((r) => sent(r).store === false && sent(r).previous_response_id === undefined)).toBe(true);
    // One prompt cache key for all of it: REPL and one-shot, before and after the restart, the summary request too.
    expect([...new Set(requests.map((r) => sent(r).prompt_cache_key))]).toEqual([expect.stringMatching(/^agentx-[0-9a-f]{16}$/)]);
    // Every command ran exactly once, in order, although every request resent the calls that ran.
    expect(runsOf(ledger)).toEqual(['1', '2', '3', '4']);
    expect(JSON.stringify(body(after.at(-1)).input)).toContain('echo 4 >> ledger.txt');
  });

  it("a log missing at start while the state file exists: the new chain starts from the state file's saved context, said once", async () => {
    suite.emu.setStateless(false);
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_MODEL: 'gpt-5' });
    let a = suite.start(sb);
    await prompt(a);
    await turn(a, 'remember PET=otter', 'You said: remember PET=otter');
    await turn(a, 'run: echo 1 >> ledger.txt', /Ran it\. Output:/);
    a.write('\x04');
    await a.exited;
    // The log is gone (deleted by the person, a disk restored from an old backup) and the server forgot.
    const logs = join(sb.home, '.local', 'state', 'agentx', 'conversations');
    for (const f of readdirSync(logs)) rmSync(join(logs, f));
    suite.emu.forgetAll();
    const first = suite.emu.requests.length;
    a = suite.start(sb);
    await prompt(a);
    a.line('recall: PET');
    await a.waitFor('starting a new chain from the saved local context');
    await a.waitFor('Recalled: PET=otter');
    await prompt(a);
    const requests = suite.emu.requests.slice(first).filter((r) => r.path === '/v1/responses');
    expect(requests.map((r) => r.status)).toEqual([400, 200]);
    expect(sent(requests[1]!).previous_response_id).toBeUndefined();
    expect(runsOf(join(sb.cwd, 'ledger.txt'))).toEqual(['1']);
    expect(a.screen().split('starting a new chain from the saved local context')).toHaveLength(2);
  });
});
