// Earlier conversations in a real pty: /clear keeps the one it leaves, /resume lists and brings it
// back (the model is chained to it again: the emulator's recorded request shows it), the current
// one is kept in turn, a forged archive entry is refused in one line, `agentx resume --last`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionArchiveDir } from '../../src/paths.ts';
import { sandbox, storedResponse, type Sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { body, prompt, readState, turn, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

function archiveDir(sb: Sandbox): string {
  return sessionArchiveDir(sb.env, sb.home, sb.cwd);
}

async function clear(a: PtyRun): Promise<void> {
  a.line('/clear');
  await a.waitFor('Clear the conversation');
  a.write('y');
  await a.waitFor('cleared');
  await prompt(a);
}

describe('/resume', () => {
  it('brings back a cleared conversation (the model is chained to it), keeping the current one; refuses a forged entry', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const n0 = suite.emu.requests.length;
    await turn(a, 'the parser bug', 'You said: the parser bug');
    expect(suite.emu.requests[n0]?.responseId).toBeDefined();
    // A call that changes a file: the list names it (from the file snapshots, when it was left).
    await turn(a, 'run: echo fixed > parser.txt', /Ran it\. Output:/);
    const parserId = readState(sb).response_id;
    await clear(a);
    await turn(a, 'something else', 'You said: something else');
    const elseId = readState(sb).response_id;

    a.line('/resume');
    await a.waitFor('Resume which conversation?');
    await a.waitFor(/❯ 1\. \d{4}-\d\d-\d\d \d\d:\d\d\s+2 turns, 1 file \(parser\.txt\)\s+"the parser bug" … last: "run: echo fixed > parser\.txt"/);
    a.write(KEY.enter);
    await a.waitFor('resumed the conversation');
    await prompt(a);
    expect(readState(sb).response_id).toBe(parserId);

    // The next message continues the earlier conversation on the server.
    const n = suite.emu.requests.length;
    await turn(a, 'go on', 'You said: go on');
    expect(body(suite.emu.requests[n]).previous_response_id).toBe(parserId);

    // The conversation left by the resume is among the earlier ones now; the resumed one is not.
    expect(readdirSync(archiveDir(sb))).toHaveLength(1);
    // A file agentx did not write (a copy with a changed head): one line, not offered.
    const [kept] = readdirSync(archiveDir(sb));
    const text = readFileSync(join(archiveDir(sb), kept ?? ''), 'utf8');
    writeFileSync(join(archiveDir(sb), '2099-01-01T00-00-00-000Z-forged00.json'), text.replace(String(elseId), 'resp_forged'));
    a.line('/resume');
    await a.waitFor(/⚠ 1 file among the earlier conversations was not written there by agentx[^\n]*forged00\.json\)/);
    await a.waitFor(/❯ 1\. [^\n]*1 turn\s+"something else"/);
    a.write(KEY.esc);
    await a.waitFor('cancelled');
    await prompt(a);
    expect(readState(sb).response_id).not.toBe(elseId);
    // Told once: the planted file is kept aside, no longer among the earlier conversations.
    expect(readdirSync(archiveDir(sb)).sort()).toEqual([kept, '2099-01-01T00-00-00-000Z-forged00.json.refused']);
  });

  it('a rollback keeps the branch it leaves: /resume brings it back', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'alpha', 'You said: alpha');
    await turn(a, 'beta', 'You said: beta');
    const betaId = readState(sb).response_id;
    a.line('/rollback 2');
    await a.waitFor('Rolled back to checkpoint 2');
    await prompt(a);
    expect(readState(sb).response_id).not.toBe(betaId);
    a.line('/resume');
    await a.waitFor(/❯ 1\. [^\n]*2 turns\s+"alpha" … last: "beta"/);
    a.write(KEY.enter);
    await a.waitFor('resumed the conversation');
    await prompt(a);
    expect(readState(sb).response_id).toBe(betaId);
    expect(readState(sb).usage.turns).toBe(2);
  });

  it('/rollback undo brings the branch back and takes its copy out of the earlier conversations', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'alpha', 'You said: alpha');
    await turn(a, 'beta', 'You said: beta');
    a.line('/rollback 2');
    await a.waitFor('Rolled back to checkpoint 2');
    await prompt(a);
    expect(readdirSync(archiveDir(sb))).toHaveLength(1);
    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readState(sb).usage.turns).toBe(2);
    expect(readdirSync(archiveDir(sb))).toEqual([]);
  });

  it('agentx resume --last starts on the newest earlier conversation', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const n = suite.emu.requests.length;
    await turn(a, 'first topic', 'You said: first topic');
    const firstId = suite.emu.requests[n]?.responseId;
    await clear(a);
    a.line('quit');
    await a.exited;

    const b = suite.start(sb, ['resume', '--last']);
    await b.waitFor('resumed the conversation');
    await prompt(b);
    const m = suite.emu.requests.length;
    await turn(b, 'and then?', 'You said: and then?');
    expect(body(suite.emu.requests[m]).previous_response_id).toBe(firstId);
  });

  it('a conversation from a legacy state file (a response id, no message) says so, never last: ""', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const head = await storedResponse(suite.emu, 'an older conversation');
    writeFileSync(join(sb.cwd, '.agentx_responseid'), `${head}\n`);
    const a = suite.start(sb);
    await a.waitFor('Resuming session: 0 turns, last: (no message saved)');
    await prompt(a);
    await clear(a);
    a.line('/resume');
    await a.waitFor(/❯ 1\. \d{4}-\d\d-\d\d \d\d:\d\d\s+0 turns\s+\(no message\)/);
    a.write(KEY.enter);
    await a.waitFor(/resumed the conversation of [^\n]*: 0 turns, last: \(no message saved\)/);
    await prompt(a);
    expect(a.screen()).not.toContain('last: ""');
    expect(readState(sb).response_id).toBe(head);
  });
});

describe('/clear', () => {
  it('a failed first request is a conversation: /clear asks, keeps it for /resume, which brings the failed request back', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = suite.start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 5 });
    a.line('the first words');
    await a.waitFor('What now?');
    a.write('5');
    a.write(KEY.enter);
    await a.waitFor('Kept for later');
    await prompt(a);
    // The failures the retries did not use must not reach the next test (one emulator per file).
    suite.emu.clearQueue();
    // No turn yet and no chain head, but a failed request waits for the recovery menu: not empty.
    expect(readState(sb).usage.turns).toBe(0);
    expect(readState(sb).response_id).toBeNull();
    expect(readState(sb).pending_transaction).not.toBeNull();
    await clear(a);
    expect(a.raw()).not.toContain('Nothing to clear');
    expect(readState(sb).pending_transaction).toBeNull();
    expect(readdirSync(archiveDir(sb))).toHaveLength(1);
    // An empty conversation has nothing to clear.
    a.line('/clear');
    await a.waitFor('Nothing to clear: the conversation is empty.');
    await prompt(a);
    a.line('/resume 1');
    await a.waitFor('resumed the conversation');
    await a.waitFor('Your message is kept: "the first words"');
  });
});

describe('/rollback undo after /clear of a failed first request', () => {
  it('takes the copy /clear kept out of the earlier conversations, though it has no chain head', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = suite.start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 5 });
    a.line('the first words');
    await a.waitFor('What now?');
    a.write('5');
    a.write(KEY.enter);
    await a.waitFor('Kept for later');
    await prompt(a);
    // The failures the retries did not use must not reach the next test (one emulator per file).
    suite.emu.clearQueue();
    await clear(a);
    expect(readdirSync(archiveDir(sb))).toHaveLength(1);
    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readState(sb).pending_transaction).not.toBeNull();
    expect(readdirSync(archiveDir(sb))).toEqual([]);
  });
});

describe('/rollback undo after a restart', () => {
  it('nothing remembered: the copy the rollback kept is found in the list and taken out', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'alpha', 'You said: alpha');
    await turn(a, 'beta', 'You said: beta');
    a.line('/rollback 2');
    await a.waitFor('Rolled back to checkpoint 2');
    await prompt(a);
    a.line('quit');
    await a.exited;
    expect(readdirSync(archiveDir(sb))).toHaveLength(1);
    const b = suite.start(sb);
    await prompt(b);
    b.line('/rollback undo');
    await b.waitFor('Undid the rollback');
    await prompt(b);
    expect(readState(sb).usage.turns).toBe(2);
    expect(readdirSync(archiveDir(sb))).toEqual([]);
  });
});
