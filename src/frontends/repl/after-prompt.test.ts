import { describe, expect, it } from 'vitest';
import { AfterPrompt } from './after-prompt.ts';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('AfterPrompt', () => {
  it('holds work until the prompt is drawn, then runs it in the next turn of the event loop, once', async () => {
    const after = new AfterPrompt();
    const ran: string[] = [];
    after.add(() => ran.push('a'));
    after.add(() => ran.push('b'));
    await nextTurn();
    expect(ran).toEqual([]);
    after.promptDrawn();
    // The prompt's write finishes first: nothing runs in the same turn.
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['a', 'b']);
    // Later prompts change nothing; work added after the first runs soon, without waiting.
    after.promptDrawn();
    after.add(() => ran.push('c'));
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});
