// What the REPL tells you while a turn runs and when it ends, in a real pty (issue 26 §1, §5):
// the queued-typing note in the spinner, Esc-Esc taking back what was typed ahead, and the
// turn-finished notification (OSC 9 where the terminal shows one; nothing for a short turn).
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

describe('typing while the model works', () => {
  it('the spinner notes what is queued; Esc-Esc stops the turn and takes it back', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    // No token ever comes: the spinner stays up until the turn is stopped.
    suite.emu.enqueue({ kind: 'hang' });
    a.line('wait for it');
    await a.waitFor('thinking…');
    a.write('next question');
    await a.waitFor('queued: "next question" (Ctrl-U drops it)');
    const n = suite.emu.requests.length;
    // Both escapes in one read, as a quick double tap arrives: the first stops, the second drops the queue.
    a.write(`${KEY.esc}${KEY.esc}`);
    await a.waitFor('interrupted');
    await prompt(a);
    // The prompt comes back empty: Enter sends nothing, and the next message is only what is typed now.
    a.write(KEY.enter);
    // (The answer echoes the interruption note agentx adds before the message, so wait for its usage line.)
    await turn(a, 'fresh words');
    expect(suite.emu.requests.length).toBe(n + 1);
    expect(userText(suite.emu.requests[n])).toContain('fresh words');
    expect(userText(suite.emu.requests[n])).not.toContain('next question');
  });
});

describe('the turn-finished notification', () => {
  it('is OSC 9 in a terminal that shows it, and nothing after a turn shorter than the threshold', async () => {
    const a = start(sandbox(suite.emu.baseUrl, { AGENTX_NOTIFY_AFTER_MS: '0', TERM_PROGRAM: 'WezTerm' }));
    await prompt(a);
    await turn(a, 'notify me', 'You said: notify me');
    expect(a.raw()).toContain('\x1b]9;agentx: the turn has finished\x07');
    // The default threshold is 10 s: a quick turn rings nothing (AGENTX_NOTIFY=bell forces the bell form).
    const b = start(sandbox(suite.emu.baseUrl, { AGENTX_NOTIFY: 'bell' }));
    await prompt(b);
    await turn(b, 'quick', 'You said: quick');
    expect(b.raw()).not.toContain('\x07');
  });
});
