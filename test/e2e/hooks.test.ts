// Hooks end to end: real hook commands (sandboxed like the model's commands) around one-shots
// against the emulator; what each hook read on stdin is written to a file and checked.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

interface Body {
  input: { type?: string; role?: string; output?: unknown; content?: { text?: string }[] }[];
}
const bodyOf = (i: number): Body => emu.requests[i]?.body as Body;
const userText = (b: Body): string =>
  b.input
    .filter((i) => i.role === 'user')
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
    .join('\n');

function userHooks(box: Sandbox, hooks: unknown): void {
  const dir = join(box.home, '.config', 'agentx');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hooks.json'), typeof hooks === 'string' ? hooks : JSON.stringify({ hooks }));
}

const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('hooks', () => {
  it('a PreToolUse hook blocks an rm with exit 2; the model sees why; the call is journaled as answered', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, 'victim.txt'), 'keep me\n');
    userHooks(box, {
      PreToolUse: [
        {
          matcher: 'shell',
          hooks: [
            { type: 'command', command: 'cat > pre-input.json' },
            { type: 'command', command: 'if grep -q \'"command":"rm \' pre-input.json; then echo "rm is not allowed here" >&2; exit 2; fi' },
          ],
        },
      ],
    });
    const before = emu.requests.length;
    const r = await runCli(['run: rm -f victim.txt'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'victim.txt'), 'utf8')).toBe('keep me\n');
    expect(r.stderr).toContain('blocked by a PreToolUse hook: rm is not allowed here');
    expect(JSON.stringify(bodyOf(before + 1).input)).toContain('blocked by a PreToolUse hook: rm is not allowed here');
    // The conversation log (the local record every resend is built from) holds the blocked call with its reason.
    const logs = readdirSync(box.home, { recursive: true, encoding: 'utf8' }).filter((p) => /conversations\/[^/]+\.log$/.test(p));
    expect(logs).toHaveLength(1);
    const log = readFileSync(join(box.home, logs[0] ?? ''), 'utf8');
    expect(log).toContain('rm -f victim.txt');
    expect(log).toContain('blocked by a PreToolUse hook: rm is not allowed here');
    const seen = json(join(box.cwd, 'pre-input.json'));
    expect(seen).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'shell',
      cwd: box.cwd,
      tool_input: { command: 'rm -f victim.txt', commands: ['rm -f victim.txt'] },
    });
    expect(seen.session_id).toMatch(/^agentx-[0-9a-f]{16}$/);
    expect(typeof seen.tool_use_id).toBe('string');
  });

  it('a PostToolUse hook runs after a patch (a formatter), with the result; Stop gets the answer', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n');
    userHooks(box, {
      PostToolUse: [{ matcher: 'apply_patch|Edit', hooks: [{ type: 'command', command: 'cat > post-input.json; sed -i s/two/TWO/ a.txt' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'cat > stop-input.json' }] }],
    });
    emu.enqueue({ kind: 'patch', patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n' }, { kind: 'text', text: 'Patched it.' });
    const r = await runCli(['patch a.txt'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('TWO\n');
    expect(json(join(box.cwd, 'post-input.json'))).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'apply_patch',
      tool_response: expect.anything() as unknown,
    });
    expect(json(join(box.cwd, 'stop-input.json'))).toMatchObject({ hook_event_name: 'Stop', last_assistant_message: 'Patched it.' });
  });

  it('UserPromptSubmit gets the prompt on stdin and adds context; a hanging hook is killed at its timeout and the turn goes on', async () => {
    const box = sandbox(emu.baseUrl);
    userHooks(box, {
      UserPromptSubmit: [
        {
          hooks: [
            { type: 'command', command: 'cat > prompt-input.json; echo "the build is broken on main"' },
            { type: 'command', command: 'sleep 60', timeout: 1 },
          ],
        },
      ],
    });
    const before = emu.requests.length;
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hello');
    expect(r.stderr).toMatch(/UserPromptSubmit hook sleep 60 timed out after 1 s and was stopped; going on/);
    expect(userText(bodyOf(before))).toContain('the build is broken on main');
    // Claude Code's input shape: the prompt itself, with the session and the directory.
    const seen = json(join(box.cwd, 'prompt-input.json'));
    expect(seen).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'hello', cwd: box.cwd });
    expect(seen.session_id).toMatch(/^agentx-[0-9a-f]{16}$/);
  });

  it('SessionStart: what it prints is context for the first message, with the documented input', async () => {
    const box = sandbox(emu.baseUrl);
    userHooks(box, { SessionStart: [{ hooks: [{ type: 'command', command: 'cat > start-input.json; echo "today: release freeze"' }] }] });
    const before = emu.requests.length;
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(JSON.stringify(bodyOf(before).input)).toContain('today: release freeze');
    expect(json(join(box.cwd, 'start-input.json'))).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', cwd: box.cwd });
  });

  it('a UserPromptSubmit exit 2 blocks the message: nothing is sent', async () => {
    const box = sandbox(emu.baseUrl);
    userHooks(box, { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "no secrets in prompts" >&2; exit 2' }] }] });
    const before = emu.requests.length;
    const r = await runCli(['my password is hunter2'], box);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('a UserPromptSubmit hook blocked the message: no secrets in prompts');
    expect(emu.requests.length).toBe(before);
  });

  it('a project hooks file runs nothing before it is approved; malformed entries are one line each, the rest loads', async () => {
    const box = sandbox(emu.baseUrl);
    mkdirSync(join(box.cwd, '.agentx'));
    writeFileSync(
      join(box.cwd, '.agentx', 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'touch pwned' }] }] } }),
    );
    userHooks(box, {
      Bogus: [],
      PreToolUse: [{ matcher: '(', hooks: [] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'touch mine-ran' }, { type: 'shell' }] }],
    });
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, 'pwned'))).toBe(false);
    expect(r.stderr).toMatch(/\.agentx\/hooks\.json: project hooks not run \(not approved/);
    expect(r.stderr).toMatch(/unknown hook event "Bogus"/);
    expect(r.stderr).toMatch(/matcher "\(" is not a valid regular expression/);
    expect(r.stderr).toMatch(/hooks\.UserPromptSubmit\[0\]\.hooks\[1\] must be \{"type": "command"/);
    expect(existsSync(join(box.cwd, 'mine-ran'))).toBe(true);
  });

  it('a hook that fails is reported in one line, sanitized, and the call still runs', async () => {
    const box = sandbox(emu.baseUrl);
    userHooks(box, { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'printf "bad \\033[31mthing\\n" >&2; exit 1' }] }] });
    const r = await runCli(['run: echo ran > out.txt'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'out.txt'), 'utf8')).toBe('ran\n');
    expect(r.stderr).toMatch(/PreToolUse hook .* failed \(exit 1\): bad .*thing/);
    expect(r.stderr).not.toContain('\x1b[31m');
  });
});
