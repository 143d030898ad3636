// update_plan and plan mode end to end: scripted function_call items from the emulator, the
// built CLI (one-shot and the REPL in a pty), and the files on disk checked before and after.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { LoggedRequest } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, readState, replSuite, toolOutputs, userText } from './repl-fixtures.ts';

const suite = replSuite();

interface Body {
  instructions: string;
  tools: { type: string; name?: string }[];
  input: { type?: string; role?: string; content?: { text?: string }[] }[];
}
const bodyOf = (r: LoggedRequest | undefined): Body => r?.body as Body;
const offered = (r: LoggedRequest | undefined): string[] =>
  bodyOf(r).tools.map((t) => (t.type === 'function' || t.type === 'custom' ? (t.name ?? '') : t.type));

const PLAN = {
  explanation: 'fix the \x1b[31mparser\x1b[0m',
  plan: [
    { step: 'read parse.ts', status: 'completed' },
    { step: 'patch the\nloop', status: 'in_progress' },
    { step: 'run the tests', status: 'pending' },
  ],
};

/** A Notification hook is not awaited (the question is shown at once): its file appears soon after. */
async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 200 && !(existsSync(path) && readFileSync(path, 'utf8').endsWith('}')); i++) await new Promise((r) => setTimeout(r, 25));
}

/** The directory's files and their contents (the state files aside): what "nothing changed" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) if (!name.startsWith('.agentx')) out[name] = readFileSync(join(dir, name), 'utf8');
  return out;
}

describe('update_plan', () => {
  it('is a plan line in --json and a sanitized checklist on stderr', async () => {
    const box = sandbox(suite.emu.baseUrl);
    suite.emu.enqueue({ kind: 'function', name: 'update_plan', arguments: JSON.stringify(PLAN) });
    const r = await runCli(['--json', 'fix it'], box);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.find((l) => l.type === 'plan')).toEqual({
      type: 'plan',
      call_id: expect.any(String) as unknown,
      explanation: PLAN.explanation,
      plan: [
        { step: 'read parse.ts', status: 'completed' },
        { step: 'patch the\nloop', status: 'in_progress' },
        { step: 'run the tests', status: 'pending' },
      ],
    });

    suite.emu.enqueue({ kind: 'function', name: 'update_plan', arguments: JSON.stringify(PLAN) });
    const shown = await runCli(['fix it'], box);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('☰ plan 1/3 done');
    expect(shown.stderr).toContain('✓ read parse.ts');
    expect(shown.stderr).toContain('▸ patch the');
    expect(shown.stderr).toContain('□ run the tests');
    // The model's escape sequences never reach the terminal.
    expect(shown.stderr).not.toContain('\x1b[31m');
  });

  it('answers two steps in progress with an error for the model and shows no plan', async () => {
    const box = sandbox(suite.emu.baseUrl);
    suite.emu.enqueue({
      kind: 'function',
      name: 'update_plan',
      arguments: JSON.stringify({
        plan: [
          { step: 'a', status: 'in_progress' },
          { step: 'b', status: 'in_progress' },
        ],
      }),
    });
    const before = suite.emu.requests.length;
    const r = await runCli(['--json', 'go'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('"type":"plan"');
    const out = toolOutputs(suite.emu.requests[before + 1])[0];
    expect(out?.output).toMatch(/at most one step can be in_progress/);
  });
});

describe('plan mode', () => {
  it('--plan: no edit tool, read-only commands, the model is told; nothing on disk changes', async () => {
    const box = sandbox(suite.emu.baseUrl);
    writeFileSync(join(box.cwd, 'keep.txt'), 'original\n');
    const before = snapshot(box.cwd);
    const patch = '*** Begin Patch\n*** Update File: keep.txt\n@@\n-original\n+changed\n*** End Patch\n';
    suite.emu.enqueue(
      { kind: 'shell', commands: ['echo changed > keep.txt; touch new.txt'] },
      { kind: 'function', name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
      { kind: 'text', text: 'Plan: change keep.txt.' },
    );
    const from = suite.emu.requests.length;
    const r = await runCli(['--plan', 'change keep.txt'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Plan: change keep.txt.');
    expect(offered(suite.emu.requests[from])).not.toContain('apply_patch');
    expect(bodyOf(suite.emu.requests[from]).instructions).toMatch(/You are in plan mode/);
    expect(JSON.stringify(bodyOf(suite.emu.requests[from]).input)).toMatch(/<sandbox_mode>read-only.*<mode>plan/s);
    // The command ran read-only (it failed), the patch was refused as an unknown tool.
    expect(toolOutputs(suite.emu.requests[from + 2])[0]?.output).toMatch(/unknown tool "apply_patch"/);
    expect(snapshot(box.cwd)).toEqual(before);
  });

  it('--plan never suggests more rights: a refused write, a missing sandbox and the REPL greeting speak of plan mode', async () => {
    const box = sandbox(suite.emu.baseUrl);
    suite.emu.enqueue({ kind: 'shell', commands: ['touch new.txt'] }, { kind: 'text', text: 'Planned.' });
    const from = suite.emu.requests.length;
    const refused = await runCli(['--plan', '--sandbox', 'danger-full-access', 'plan it'], box);
    expect(refused.code).toBe(0);
    const note = JSON.stringify(toolOutputs(suite.emu.requests[from + 1]));
    // stderr folds the tool output to 80 columns: unfolded, it says what the model was told.
    const unfold = (text: string): string => text.replace(/\n {2}/g, '');
    for (const said of [unfold(refused.stderr), note]) {
      expect(said).toMatch(/refused by the sandbox \(plan mode: read-only, network off\): writing files is not allowed/);
      expect(said).toMatch(/Plan mode changes nothing/);
      expect(said).not.toMatch(/danger-full-access|Writable:/);
    }

    suite.emu.enqueue({ kind: 'shell', commands: ['ls'] }, { kind: 'text', text: 'Planned.' });
    const missing = await runCli(['--plan', 'plan it'], { ...box, env: { ...box.env, AGENTX_BWRAP: '/nonexistent/bwrap' } });
    expect(missing.code).toBe(0);
    expect(unfold(missing.stderr)).toMatch(
      /model commands cannot be sandboxed: .*Plan mode runs commands only in the read-only sandbox, so none can run until it works \(fix: apt install bubblewrap\)/,
    );
    expect(unfold(missing.stderr)).not.toMatch(/danger-full-access|off-if-unavailable/);

    const a = suite.start(box, ['--plan', '--sandbox', 'danger-full-access']);
    await a.waitFor('sandbox read-only (plan mode), network off');
    await prompt(a);
    expect(a.screen()).not.toContain('danger-full-access');
    a.write(KEY.ctrlD);
    await a.exited;
  });

  it('/plan under --sandbox danger-full-access: commands run read-only, a session started before plan mode cannot be typed into, /plan approve typed carries the plan out', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'keep.txt'), 'original\n');
    const a = suite.start(sb, ['--sandbox', 'danger-full-access']);
    await prompt(a);
    // Before plan mode: an interactive shell session (unsandboxed, like every command here).
    suite.emu.enqueue(
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: 'sh', yield_time_ms: 250 }) },
      { kind: 'text', text: 'Shell started.' },
    );
    a.line('start a shell');
    await a.waitFor('Shell started.');
    await prompt(a);
    const session = /session ID (\d+)/.exec(JSON.stringify(toolOutputs(suite.emu.requests.at(-1))))?.[1];
    expect(session).toBeDefined();
    expect(a.raw()).toContain('sandbox danger-full-access');
    a.line('/plan');
    await a.waitFor('✓ plan mode');
    // The status line shows the mode commands really run with, not the one the session started with.
    await a.waitFor('sandbox read-only');
    const before = snapshot(sb.cwd);
    suite.emu.enqueue(
      { kind: 'shell', commands: ['touch x'] },
      { kind: 'function', name: 'write_stdin', arguments: JSON.stringify({ session_id: Number(session), chars: 'touch y\n', yield_time_ms: 300 }) },
      { kind: 'text', text: 'Planned.' },
    );
    const from = suite.emu.requests.length;
    a.line('plan it');
    await a.waitFor('Planned.');
    expect(snapshot(sb.cwd)).toEqual(before);
    expect(JSON.stringify(toolOutputs(suite.emu.requests[from + 2]))).toMatch(/nothing was typed into exec session \d+: it was started before plan mode/);
    await a.waitFor('approve this plan');
    a.write('n');
    await prompt(a);
    // Typed instead of the menu: /plan approve leaves plan mode and the plan is carried out with the session's own rights.
    suite.emu.enqueue({ kind: 'shell', commands: ['touch done.txt'] }, { kind: 'text', text: 'Carried out.' });
    const approvedAt = suite.emu.requests.length;
    a.line('/plan approve');
    await a.waitFor('✓ plan approved');
    await a.waitFor('Carried out.');
    await prompt(a);
    expect(existsSync(join(sb.cwd, 'done.txt'))).toBe(true);
    expect(userText(suite.emu.requests[approvedAt])).toContain('The user approved your plan');
    expect(offered(suite.emu.requests[approvedAt])).toContain('apply_patch');
    // Out of plan mode the status line shows the session's own mode again. It is drawn under the
    // prompt, and may reach the pty in a later chunk than the prompt prompt() waited for.
    await vi.waitFor(() => expect(a.raw().lastIndexOf('sandbox danger-full-access')).toBeGreaterThan(a.raw().lastIndexOf('sandbox read-only')), {
      timeout: 5_000,
    });
    a.line('quit');
    await a.exited;
  });

  it('/plan in the REPL: read-only until approved in the menu, then the work starts with the edit tool; the plan survives a restart', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    // A Notification hook hears that agentx waits for the person (the approval menu).
    mkdirSync(join(sb.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(
      join(sb.home, '.config', 'agentx', 'hooks.json'),
      JSON.stringify({ hooks: { Notification: [{ hooks: [{ type: 'command', command: 'cat > notified.json' }] }] } }),
    );
    const a = suite.start(sb);
    await prompt(a);
    a.line('/plan');
    await a.waitFor('✓ plan mode');
    await a.waitFor(/\[plan\] \S+@\S+:\S*> /);
    suite.emu.enqueue(
      { kind: 'function', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'look around', status: 'in_progress' }] }) },
      { kind: 'function', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'make the file', status: 'pending' }] }) },
      { kind: 'shell', commands: ['touch made.txt'] },
      { kind: 'text', text: 'The plan is ready.' },
    );
    const from = suite.emu.requests.length;
    a.line('plan making a file');
    await a.waitFor('□ make the file');
    // Two updates in a row: the second redraws the first checklist in place (2 rows up, cleared).
    expect(a.raw()).toContain('\x1b[2A\r\x1b[J');
    await a.waitFor('The plan is ready.');
    await a.waitFor('approve this plan');
    expect(existsSync(join(sb.cwd, 'made.txt'))).toBe(false);
    await waitForFile(join(sb.cwd, 'notified.json'));
    expect(JSON.parse(readFileSync(join(sb.cwd, 'notified.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'Notification',
      message: 'agentx waits for your approval of the plan',
    });
    expect(offered(suite.emu.requests[from])).not.toContain('apply_patch');
    const approvedAt = suite.emu.requests.length;
    a.write('y');
    await a.waitFor('✓ plan approved');
    await a.waitFor(/tokens: /);
    await prompt(a);
    expect(a.rest()).not.toContain('[plan]');
    expect(userText(suite.emu.requests[approvedAt])).toContain('The user approved your plan');
    expect(offered(suite.emu.requests[approvedAt])).toContain('apply_patch');
    expect(JSON.stringify(bodyOf(suite.emu.requests[approvedAt]).input)).toContain('<sandbox_mode>workspace-write');
    expect(readState(sb)).toMatchObject({ plan: { plan: [{ step: 'make the file', status: 'pending' }] } });
    a.write(KEY.ctrlD);
    await a.exited;

    const b = suite.start(sb);
    await prompt(b);
    b.line('/plan show');
    await b.waitFor('□ make the file');
  });
});
