// The command runner as the engine uses it, with the real bwrap: modes, the missing-bwrap paths,
// refusals (kept for the tool to ask about), and the runner's own guarantees (timeout, cap, interrupt) inside bwrap.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxSetting } from '../sandbox/policy.ts';
import { makeLayout, processesRunning, TEST_KEY, type Layout } from '../../test/support/sandbox.ts';
import { createCommandRunner, type CommandRunnerSetup } from './sandboxed.ts';
import type { ShellRunOptions } from './shell.ts';
import { waitFor } from '../../test/support/tools.ts';

let box: Layout;
let notices: string[];
beforeEach(() => {
  box = makeLayout();
  notices = [];
});
afterEach(() => {
  box.remove();
});

function runner(setting: Partial<SandboxSetting> = {}, more: Partial<CommandRunnerSetup> = {}) {
  return createCommandRunner({
    setting: { mode: 'workspace-write', offIfUnavailable: false, network: false, ...setting },
    sessionDir: box.workspace,
    tempDir: box.tempDir,
    env: box.env,
    configFile: box.configFile,
    secrets: [TEST_KEY],
    platform: 'linux',
    notice: (m) => notices.push(m),
    ...more,
  });
}

const opts = (command: string, more: Partial<ShellRunOptions> = {}): ShellRunOptions => ({
  command,
  cwd: box.workspace,
  timeoutMs: 15_000,
  maxOutputBytes: 64 * 1024,
  killGraceMs: 300,
  ...more,
});

const outside = (): string => join(box.elsewhere, 'keep.txt');
const writeOutside = (): string => `echo changed > ${outside()}`;

describe('workspace-write (the default)', () => {
  it('writes inside, refuses outside, and tells the model (and the screen) how the person can allow it', async () => {
    const shown: string[] = [];
    const r = await runner().run(opts(`echo in > a.txt; ${writeOutside()}`, { onOutput: (c) => shown.push(c) }));
    expect(readFileSync(join(box.workspace, 'a.txt'), 'utf8')).toBe('in\n');
    expect(readFileSync(outside(), 'utf8')).toBe('original\n');
    expect(r.sandboxDenial?.kind).toBe('write');
    expect(r.stderr).toMatch(/Read-only file system\n\[agentx\] This command was probably refused by the sandbox \(workspace-write, network off\)/);
    expect(r.stderr).toContain('--sandbox danger-full-access');
    expect(shown.join('')).toContain('[agentx] This command was probably refused');
  });

  it("keeps agentx's session files read-only: a command cannot forge the conversation state", async () => {
    writeFileSync(join(box.workspace, '.agentx_responseid'), '{"real":"state"}\n');
    const r = await runner().run(opts('cat .agentx_responseid; echo forged > .agentx_responseid; rm -f .agentx_responseid; echo other > notes.txt'));
    expect(r.stdout).toBe('{"real":"state"}\n');
    expect(readFileSync(join(box.workspace, '.agentx_responseid'), 'utf8')).toBe('{"real":"state"}\n');
    expect(readFileSync(join(box.workspace, 'notes.txt'), 'utf8')).toBe('other\n');
  });

  it('starts commands in the directory it is given (cd from the REPL, workdir of a call)', async () => {
    mkdirSync(join(box.workspace, 'sub'));
    const run = runner();
    expect((await run.run(opts('pwd', { cwd: join(box.workspace, 'sub') }))).stdout).toBe(`${join(box.workspace, 'sub')}\n`);
    expect((await run.run(opts('cd sub && pwd && echo x > here.txt'))).stdout).toBe(`${join(box.workspace, 'sub')}\n`);
    expect(existsSync(join(box.workspace, 'sub/here.txt'))).toBe(true);
  });

  it('tells the model about a network refusal and the setting that allows it', async () => {
    const r = await runner().run(
      opts(`${process.execPath} -e "require('dns').lookup('example.com', (e) => { console.error(e ? e.message : 'resolved'); process.exit(e ? 1 : 0); })"`),
    );
    expect(r.sandboxDenial?.kind).toBe('network');
    expect(r.stderr).toContain('AGENTX_SANDBOX_NETWORK=on');
  });
});

describe('the key and the terminal, in every mode', () => {
  for (const mode of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
    it(`${mode}: no variable holds the key, and git commit without -m fails at once instead of opening an editor`, async () => {
      const run = runner({ mode }, { env: { ...box.env, OPENAI_API_KEY: TEST_KEY, COPY: `Bearer ${TEST_KEY}` } });
      const env = await run.run(opts('env; cat /proc/$PPID/environ | tr "\\0" "\\n"'));
      expect(env.stdout).not.toContain(TEST_KEY);
      expect(env.stdout).toContain('GIT_EDITOR=false');
      expect(env.stdout).toContain('PAGER=cat');
      const repo = mode === 'read-only' ? box.tempDir : box.workspace;
      // The repository is made outside the sandbox in read-only mode; the commit then fails anyway.
      execFileSync('git', ['init', '-q', repo]);
      execFileSync('sh', ['-c', 'echo x > f && git add f'], { cwd: repo });
      const gitEnv = { ...box.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
      const commit = await runner({ mode }, { env: gitEnv }).run(opts('git commit', { cwd: repo }));
      expect(commit.exitCode).not.toBe(0);
      expect(commit.timedOut).toBe(false);
      if (mode !== 'read-only') expect(commit.stderr).toMatch(/problem with the editor/);
    });
  }
});

describe('bwrap missing or unusable', () => {
  const missing = { ...process.env, AGENTX_BWRAP: '/nonexistent/bwrap' };

  it('fails every command with the fix, says so to the person once, and runs nothing', async () => {
    const run = runner({}, { env: { ...box.env, AGENTX_BWRAP: missing.AGENTX_BWRAP } });
    const shown: string[] = [];
    const first = await run.run(opts('echo ran > ran.txt', { onOutput: (c) => shown.push(c) }));
    const second = await run.run(opts('echo ran > ran.txt'));
    expect(first.exitCode).toBe(127);
    expect(first.stderr).toMatch(
      /^agentx: model commands cannot be sandboxed: AGENTX_BWRAP=\/nonexistent\/bwrap is not an executable file\. Fix: apt install bubblewrap/,
    );
    expect(second.stderr).toBe(first.stderr);
    expect(shown.join('')).toBe(first.stderr);
    expect(existsSync(join(box.workspace, 'ran.txt'))).toBe(false);
    expect(notices).toHaveLength(1);
  });

  it('with off-if-unavailable runs unsandboxed after a single warning', async () => {
    const run = runner({ offIfUnavailable: true }, { env: { ...box.env, AGENTX_BWRAP: missing.AGENTX_BWRAP } });
    const r = await run.run(opts(writeOutside()));
    await run.run(opts('true'));
    expect(r.exitCode).toBe(0);
    expect(readFileSync(outside(), 'utf8')).toBe('changed\n');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^warning: model commands cannot be sandboxed: .* Running model commands WITHOUT a sandbox/);
  });

  it('danger-full-access can read the config file, but the key is redacted from what is kept and sent', async () => {
    const r = await runner({ mode: 'danger-full-access' }).run(opts(`cat ${box.configFile}`));
    expect(r.stdout).toBe('AGENTX_API_KEY=[REDACTED]\n');
  });

  it('danger-full-access never needs bwrap and writes anywhere', async () => {
    const run = runner({ mode: 'danger-full-access' }, { env: { ...box.env, AGENTX_BWRAP: missing.AGENTX_BWRAP } });
    expect((await run.run(opts(writeOutside()))).exitCode).toBe(0);
    expect(readFileSync(outside(), 'utf8')).toBe('changed\n');
    expect(notices).toEqual([]);
  });
});

describe('a sandbox refusal', () => {
  it('keeps the refusal and the note for the model, and runs nothing again (the tool asks the engine)', async () => {
    const r = await runner({}).run(opts(writeOutside()));
    expect(r.sandboxDenial?.kind).toBe('write');
    expect(readFileSync(outside(), 'utf8')).toBe('original\n');
  });
});

describe("the runner's guarantees hold inside bwrap", () => {
  it('stops a command at its timeout and leaves nothing running', async () => {
    const marker = `${process.pid}.${Date.now() % 100000}1`;
    const r = await runner().run(opts(`sleep ${marker} & sleep ${marker}`, { timeoutMs: 300 }));
    expect(r).toMatchObject({ timedOut: true, exitCode: null });
    // Already gone when the result arrives, not just soon after (shell.ts sandboxDrainMs).
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  });

  it('stops a command when interrupted and leaves nothing running', async () => {
    const marker = `${process.pid}.${Date.now() % 100000}2`;
    const ac = new AbortController();
    const pending = runner().run(opts(`sleep ${marker}`, { signal: ac.signal }));
    expect(await waitFor(() => processesRunning(`sleep ${marker}`).length > 0, 5_000)).toBe(true);
    ac.abort();
    expect(await pending).toMatchObject({ interrupted: true, exitCode: null });
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  });

  it('leaves nothing running whenever the interrupt lands, even while bwrap is still starting', async () => {
    // Aborting at 0..11 ms after the start hits every stage: the supervisor, bwrap's setup, its
    // init, the command. Once, an init in its own session survived here (see bwrap.ts).
    const markers: string[] = [];
    for (let delay = 0; delay < 12; delay++) {
      const marker = `${process.pid}.${Date.now() % 100000}${delay}3`;
      markers.push(marker);
      const ac = new AbortController();
      const pending = runner().run(opts(`sleep ${marker}`, { signal: ac.signal }));
      await new Promise((resolve) => setTimeout(resolve, delay));
      ac.abort();
      await pending;
      expect(processesRunning(`sleep ${marker}`)).toEqual([]);
    }
  }, 30_000);

  it('caps the output, keeping head and tail', async () => {
    const r = await runner().run(opts('yes abcdefgh | head -c 300000; echo TAIL-END', { maxOutputBytes: 2_000 }));
    expect(r.truncatedBytes).toBeGreaterThan(290_000);
    expect(r.stdout.startsWith('abcdefgh')).toBe(true);
    expect(r.stdout).toContain('TAIL-END');
  });

  it('reports the exit status of the command itself', async () => {
    expect((await runner().run(opts('exit 7'))).exitCode).toBe(7);
  });
});
