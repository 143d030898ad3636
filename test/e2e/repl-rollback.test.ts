// /rollback in a real pty: by number, by arrows, /usage after it, /rollback undo.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { body, prompt, readCheckpoint, readState, turn, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

/** `/usage` session row: input cached output reasoning. */
async function sessionUsage(a: PtyRun): Promise<number[]> {
  a.line('/usage');
  const row = await a.waitFor(/session\s+\d+\s+\d+\s+\d+\s+\d+/);
  await prompt(a);
  return row.split(/\s+/).slice(1).map(Number);
}

describe('/rollback', () => {
  it('restores a checkpoint chosen by number or by arrows, and undo reverts it', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const ids: string[] = [];
    for (const word of ['one', 'two', 'three']) {
      const n = suite.emu.requests.length;
      await turn(a, word, `You said: ${word}`);
      ids.push(suite.emu.requests[n]?.responseId ?? '');
    }
    const three = readState(sb);
    expect(three.history).toHaveLength(3);

    // By number: 2 = the second newest = "two".
    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?');
    // Each checkpoint shows the context it goes back to (its context_tokens), not billed totals.
    const tokensOf = (i: number): number => (three.history[i] as { context_tokens?: number } | undefined)?.context_tokens ?? -1;
    expect(tokensOf(1)).toBeGreaterThan(1000);
    expect(tokensOf(2)).toBeLessThan(100_000);
    // Shown to a tenth of a thousand (2084 → 2.1k).
    const contextOf = (i: number): string => `${(tokensOf(i) / 1000).toFixed(1)}k`;
    await a.waitFor(`"three" → "You said: three" (context ${contextOf(2)} tokens)`);
    await a.waitFor(`"two" → "You said: two" (context ${contextOf(1)} tokens)`);
    a.write('2');
    a.write(KEY.enter);
    await a.waitFor(`Rolled back to checkpoint 2`);
    await a.waitFor(`2 turns, context ${contextOf(1)} tokens, last: "two"`);
    await a.waitFor('NOT undone');
    await prompt(a);
    const rolled = readState(sb);
    expect(rolled.response_id).toBe(ids[1]);
    expect(rolled.usage).toEqual(three.history[1]?.usage);
    expect(readCheckpoint(sb)).toMatchObject({ response_id: ids[1], source: 'rollback' });
    const u = rolled.usage;
    expect(await sessionUsage(a)).toEqual([u.inputTokens, u.cachedTokens, u.outputTokens, u.reasoningTokens]);

    // The next message continues from "two".
    let n = suite.emu.requests.length;
    await turn(a, 'four', 'You said: four');
    expect(body(suite.emu.requests[n]).previous_response_id).toBe(ids[1]);
    const fourId = suite.emu.requests[n]?.responseId;

    // By arrows: newest first is four, three, two, one → three downs reach "one".
    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?');
    a.write(KEY.down);
    a.write(KEY.down);
    a.write(KEY.down);
    await a.waitFor(/❯ 4\. [^\n]*"one"/);
    a.write(KEY.enter);
    await a.waitFor('Rolled back to checkpoint 4');
    await prompt(a);
    expect(readState(sb).response_id).toBe(ids[0]);
    expect(readState(sb).usage.turns).toBe(1);

    // Esc cancels without changing anything.
    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?');
    a.write(KEY.esc);
    await a.waitFor('cancelled');
    await prompt(a);
    expect(readState(sb).response_id).toBe(ids[0]);

    // Undo goes back to where the last rollback started.
    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readState(sb).response_id).toBe(fourId);
    expect(readCheckpoint(sb)).toMatchObject({ response_id: fourId, source: 'rollback' });
    n = suite.emu.requests.length;
    await turn(a, 'five', 'You said: five');
    expect(body(suite.emu.requests[n]).previous_response_id).toBe(fourId);
    expect(readCheckpoint(sb)).toMatchObject({ source: 'turn', response_id: suite.emu.requests[n]?.responseId });
  });
});

/** Resolves once `found()` is true (polled every millisecond), or rejects after `ms`. */
function when(found: () => boolean, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (found()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error('the restore journal never appeared'));
      }
    }, 1);
  });
}

describe('/rollback killed half-way', () => {
  // Issue 23 §6: the conversation half of "Conversation and files" is journaled with the file
  // restore, so a kill -9 during the restore is finished — both halves — by the next start.
  it('kill -9 during "Conversation and files": the next REPL finishes the files and the conversation, and undo works', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    let a = suite.start(sb);
    await prompt(a);
    await turn(a, 'one', 'You said: one');
    const first = readState(sb).response_id;
    // Many files, so the restore that deletes them takes long enough to be killed in.
    suite.emu.enqueue({ kind: 'shell', commands: ['mkdir -p gen && for i in $(seq 300); do echo $i > gen/f$i.txt; done'] });
    await turn(a, 'make files');
    expect(readdirSync(join(sb.cwd, 'gen'))).toHaveLength(300);
    const second = readState(sb).response_id;

    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?');
    a.write('2');
    a.write(KEY.enter);
    await a.waitFor('❯ 1. Conversation and files');
    const store = join(sb.home, '.local/state/agentx/snapshots');
    const journal = (): string | undefined =>
      readdirSync(store)
        .map((d) => join(store, d, 'restore.json'))
        .find((f) => existsSync(f));
    const killed = when(() => journal() !== undefined, 20_000).then(() => a.kill('SIGKILL'));
    a.write(KEY.enter);
    await killed;
    await a.exited;
    // Killed during the restore: some files may be gone, the conversation has not moved yet.
    expect(journal()).toBeDefined();
    expect(readState(sb).response_id).toBe(second);

    a = suite.start(sb);
    await a.waitFor('Finished the interrupted /rollback to checkpoint 2');
    await prompt(a);
    expect(existsSync(join(sb.cwd, 'gen'))).toBe(false);
    expect(readState(sb).response_id).toBe(first);
    expect(readCheckpoint(sb)).toMatchObject({ response_id: first, source: 'rollback' });

    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readdirSync(join(sb.cwd, 'gen'))).toHaveLength(300);
    expect(readState(sb).response_id).toBe(second);
    a.line('/exit');
    await a.exited;
  }, 60_000);
});
