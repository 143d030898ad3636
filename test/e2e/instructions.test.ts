// What the model is told, inspected in the requests the emulator received: the system prompt
// describes the tools offered (and only them), and the environment context is sent at the
// start, again after cd, /approvals, /model and a compaction, and not when nothing changed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';
import { prompt, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

interface Body {
  instructions: string;
  tools: { type: string; name?: string }[];
  input: { type?: string; role?: string; content?: { text?: string }[] }[];
}
const bodyOf = (r: LoggedRequest | undefined): Body => r?.body as Body;

/** The environment context messages of a request (developer messages holding the block). */
function environmentOf(r: LoggedRequest | undefined): string[] {
  return bodyOf(r)
    .input.filter((i) => i.role === 'developer')
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
    .filter((t) => t.startsWith('<environment_context>'));
}

const offered = (b: Body): string[] => b.tools.map((t) => (t.type === 'function' || t.type === 'custom' ? (t.name ?? '') : t.type));

describe('instructions and environment context', () => {
  it('a one-shot describes each offered tool and sends the environment once', async () => {
    const box = sandbox(suite.emu.baseUrl);
    const before = suite.emu.requests.length;
    const r = await runCli(['run: echo hi'], box);
    expect(r.code).toBe(0);
    const first = bodyOf(suite.emu.requests[before]);
    for (const name of offered(first)) expect(first.instructions).toContain(`\`${name}\``);
    expect(first.instructions).not.toContain('`web_search`');
    expect(first.instructions).not.toContain(box.cwd);
    const env = environmentOf(suite.emu.requests[before]);
    expect(env).toHaveLength(1);
    expect(env[0]).toContain(`<cwd>${box.cwd}</cwd>`);
    expect(env[0]).toContain('<sandbox_mode>workspace-write</sandbox_mode>');
    expect(env[0]).toContain('<network_access>restricted</network_access>');
    // The follow-up with the command's output is the same conversation: not said again.
    expect(environmentOf(suite.emu.requests[before + 1])).toEqual([]);
    expect(bodyOf(suite.emu.requests[before + 1]).instructions).toBe(first.instructions);
  });

  it('the read-only sandbox and a different tool set change what is said', async () => {
    const box = sandbox(suite.emu.baseUrl);
    const before = suite.emu.requests.length;
    const r = await runCli(['--sandbox', 'read-only', '--patch-tool', 'off', 'hello'], box);
    expect(r.code).toBe(0);
    const first = bodyOf(suite.emu.requests[before]);
    expect(offered(first)).not.toContain('apply_patch');
    expect(first.instructions).not.toContain('apply_patch');
    expect(environmentOf(suite.emu.requests[before])[0]).toContain('<sandbox_mode>read-only');
  });

  it('the REPL says it again after cd and after /compact, and not when nothing changed', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    mkdirSync(join(sb.cwd, 'sub'));
    const a = suite.start(sb);
    await prompt(a);
    let n = suite.emu.requests.length;
    await turn(a, 'first', 'You said: first');
    expect(environmentOf(suite.emu.requests[n])[0]).toContain(`<cwd>${sb.cwd}</cwd>`);
    const instructions = bodyOf(suite.emu.requests[n]).instructions;
    n = suite.emu.requests.length;
    await turn(a, 'second', 'You said: second');
    expect(environmentOf(suite.emu.requests[n])).toEqual([]);
    a.line('cd sub');
    await a.waitFor(/project\/sub> /);
    n = suite.emu.requests.length;
    await turn(a, 'third');
    expect(environmentOf(suite.emu.requests[n])[0]).toContain(`<cwd>${join(sb.cwd, 'sub')}</cwd>`);
    // The prompt is the same text on every request: the cache keeps hitting.
    expect(bodyOf(suite.emu.requests[n]).instructions).toBe(instructions);
    a.line('/compact');
    await a.waitFor(/compacted/i);
    await prompt(a);
    n = suite.emu.requests.length;
    await turn(a, 'fourth', 'You said: fourth');
    const sent = suite.emu.requests.slice(n).flatMap((r) => environmentOf(r));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(`<cwd>${join(sb.cwd, 'sub')}</cwd>`);
  });

  it('the REPL says it again after /approvals and after /model, with the new fact', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    let n = suite.emu.requests.length;
    await turn(a, 'first', 'You said: first');
    const start = environmentOf(suite.emu.requests[n])[0] ?? '';
    expect(start).toContain('<model>');
    a.line('/approvals untrusted');
    await a.waitFor('approval mode: untrusted');
    await prompt(a);
    n = suite.emu.requests.length;
    await turn(a, 'second', 'You said: second');
    const afterApprovals = environmentOf(suite.emu.requests[n]);
    expect(afterApprovals).toHaveLength(1);
    expect(afterApprovals[0]).not.toBe(start);
    expect(/<approval_policy>.*<\/approval_policy>/.exec(afterApprovals[0] ?? '')?.[0]).not.toBe(/<approval_policy>.*<\/approval_policy>/.exec(start)?.[0]);
    a.line('/model gpt-4.1');
    await a.waitFor('model for the next requests: gpt-4.1');
    await prompt(a);
    n = suite.emu.requests.length;
    await turn(a, 'third', 'You said: third');
    const afterModel = environmentOf(suite.emu.requests[n]);
    expect(afterModel).toHaveLength(1);
    expect(afterModel[0]).toContain('<model>gpt-4.1</model>');
  });
});
