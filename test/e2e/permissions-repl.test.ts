// A crash between the person's "yes" and the run: the approval is journaled with the call, so
// after kill -9 the call shows as approved and not started, and Retry runs it without asking twice.
// A PreToolUse hook that waits for a `go` file holds the call between the approval and its start.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, readState, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

describe('an approved call survives kill -9', () => {
  it('is journaled approved and not started; Retry runs it without asking again', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const dir = join(sb.home, '.config', 'agentx');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'while [ ! -f go ]; do sleep 0.05; done' }] }] } }));
    const a = suite.start(sb);
    await prompt(a);
    a.line('escalate: echo ran >> ledger');
    await a.waitFor('no (Enter)');
    a.write('y');
    await expect.poll(() => (readState(sb).pending_tool_calls[0] as { approval?: unknown } | undefined)?.approval, { timeout: 5000 }).toEqual({ scope: 'unsandboxed', by: 'person' });
    a.kill('SIGKILL');
    await a.exited;
    const s = readState(sb);
    expect(s.pending_tool_calls[0]?.status).not.toBe('started');
    writeFileSync(join(sb.cwd, 'go'), '');
    const b = suite.start(sb);
    await b.waitFor('How do you want to go on?');
    b.write('3');
    b.write(KEY.enter);
    await b.waitFor(/Ran it/);
    await prompt(b);
    expect(readFileSync(join(sb.cwd, 'ledger'), 'utf8')).toBe('ran\n');
    expect(b.raw()).not.toContain('the model asks to run this outside the sandbox');
  });
});
