// The REPL and the conversation log, in a real pty: the store and the engine share one log for
// the session (session-startup.ts openConversationLog), so a torn tail is repaired and said once
// — through an engine reconfigured on the way (/plan on and off) too.
import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversationLogPath } from '../../src/paths.ts';
import { sandbox } from './harness.ts';
import { prompt, turn, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

describe('a torn conversation log tail', () => {
  it('is repaired and said once, among the warnings, however many parts of the session use the log', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'first', 'You said: first');
    // Another process died half-way through a record.
    appendFileSync(conversationLogPath(sb.env, sb.home, sb.cwd), '0123456789abcdef {"prev":null,"response_id":"resp_cut');
    a.line('/plan');
    await a.waitFor('✓ plan mode');
    await prompt(a);
    a.line('/plan off');
    await a.waitFor('✓ plan mode off');
    await prompt(a);
    // A command: the engine appends the exchange, the store the command's output.
    await turn(a, 'run: echo hi', /Ran it\. Output:/);
    await turn(a, 'again', 'You said: again');
    expect(a.raw().match(/damaged record/g)).toHaveLength(1);
    expect(a.raw()).toMatch(/⚠ the conversation log .* had 1 damaged record/);
    expect(readFileSync(conversationLogPath(sb.env, sb.home, sb.cwd), 'utf8')).not.toContain('resp_cut');
  });
});
