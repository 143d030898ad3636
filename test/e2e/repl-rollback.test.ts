// /rollback in a real pty: by number, by arrows, /usage after it, /rollback undo.
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
