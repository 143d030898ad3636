// A crash between the person's "yes" and the run: the approval is journaled with the call, so
// after kill -9 the call shows as approved and not started, and Retry runs it without asking twice.
// A PreToolUse hook that waits for a `go` file holds the call between the approval and its start.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
    writeFileSync(
      join(dir, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'while [ ! -f go ]; do sleep 0.05; done' }] }] } }),
    );
    const a = suite.start(sb);
    await prompt(a);
    a.line('escalate: echo ran >> ledger');
    await a.waitFor('no (Enter)');
    a.write('y');
    await expect
      .poll(() => (readState(sb).pending_tool_calls[0] as { approval?: unknown } | undefined)?.approval, { timeout: 5000 })
      .toEqual({ scope: 'unsandboxed', by: 'person' });
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

describe('/approvals governs patch confirmation (issue 24 audit)', () => {
  it('a patch asks after /approvals untrusted and runs freely again after /approvals on-request', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    a.line('/approvals untrusted');
    await a.waitFor('approval mode: untrusted');
    await prompt(a);
    const patch = (name: string): string => `*** Begin Patch\n*** Add File: ${name}\n+hello\n*** End Patch\n`;
    suite.emu.enqueue({ kind: 'patch', patch: patch('one.txt') }, { kind: 'text', text: 'Declined.' });
    a.line('write one.txt');
    await a.waitFor('[y]es / [n]o / [a]lways');
    a.write('n');
    await a.waitFor('Declined.');
    await prompt(a);
    expect(existsSync(join(sb.cwd, 'one.txt'))).toBe(false);
    a.line('/approvals on-request');
    await a.waitFor('approval mode: on-request');
    await prompt(a);
    suite.emu.enqueue({ kind: 'patch', patch: patch('two.txt') }, { kind: 'text', text: 'Wrote two.' });
    a.line('write two.txt');
    await a.waitFor('Wrote two.');
    await prompt(a);
    expect(readFileSync(join(sb.cwd, 'two.txt'), 'utf8')).toBe('hello\n');
    expect(a.raw().split('[y]es / [n]o / [a]lways')).toHaveLength(2);
  });
});

describe('/permissions', () => {
  it("lists the mode, each rule with its source, and the project's allow rules waiting for approval", async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const dir = join(sb.home, '.config', 'agentx');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rules.json'), JSON.stringify({ commands: [{ prefix: ['pytest'], decision: 'allow' }] }));
    mkdirSync(join(sb.cwd, '.agentx'), { recursive: true });
    writeFileSync(
      join(sb.cwd, '.agentx', 'rules.json'),
      JSON.stringify({
        commands: [
          { prefix: ['rm', '-rf'], decision: 'deny' },
          { prefix: ['npm', 'test'], decision: 'allow' },
        ],
      }),
    );
    const a = suite.start(sb);
    await prompt(a);
    a.line('/permissions');
    await a.waitFor('"always allow" saves to');
    const screen = a.raw();
    expect(screen).toMatch(/approval mode: .*on-request/);
    expect(screen).toMatch(/\{"prefix":\["pytest"\],"decision":"allow"\}.*\.config\/agentx\/rules\.json/);
    expect(screen).toMatch(/\{"prefix":\["rm","-rf"\],"decision":"deny"\}.*\.agentx\/rules\.json/);
    expect(screen).toMatch(/\{"prefix":\["npm","test"\],"decision":"allow"\}.*\(not approved: \/permissions approve\)/);
  });
});
