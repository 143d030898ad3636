// Daily use of the REPL in a real pty (issue 15): a read-only checkout or a full disk runs the
// session unsaved (with a banner) instead of refusing; a zombie's lock is taken over; git status
// stays clean; `nohup agentx …` answers.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spawn as ptySpawn } from '@lydell/node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { procState } from '../../src/lib/zombie.ts';
import { CLI, sandbox } from './harness.ts';
import { canMount, fillUp, mountTmpfs, type Mounted } from './mounts.ts';
import { KEY, stripAnsi } from './pty.ts';
import { prompt, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;
const mounts: Mounted[] = [];
const children: { kill(signal?: NodeJS.Signals): unknown }[] = [];
afterEach(() => {
  for (const m of mounts.splice(0)) m.unmount();
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
const mountable = canMount(join(sandbox().home, 'probe'));

function mount(path: string, sizeKb: number): Mounted {
  const m = mountTmpfs(path, sizeKb);
  if (!m) throw new Error(`cannot mount a tmpfs at ${path}`);
  mounts.push(m);
  return m;
}

describe.skipIf(!mountable)('nowhere to write', () => {
  it('a read-only directory: the session resumes, runs unsaved with a banner, and leaves the file alone', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    mount(sb.cwd, 1024);
    const a = start(sb);
    await prompt(a);
    await turn(a, 'first while writable', 'You said: first while writable');
    a.write(KEY.ctrlD);
    expect((await a.exited).exitCode).toBe(0);
    const saved = readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8');
    execFileSync('mount', ['-o', 'remount,ro', sb.cwd]);

    const b = start(sb);
    await b.waitFor(/cannot write in \S+ \(read-only file system, EROFS\): this session will NOT be saved/);
    await b.waitFor('Resuming session: 1 turn');
    await prompt(b);
    await turn(b, 'second while read-only', 'You said: second while read-only');
    b.write(KEY.ctrlD);
    expect((await b.exited).exitCode).toBe(0);
    expect(readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8')).toBe(saved);
  });

  it('a full disk: the session runs unsaved with a banner instead of refusing, and leaves no temp files', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    mount(sb.cwd, 64);
    fillUp(sb.cwd);
    const a = start(sb);
    await a.waitFor(/cannot write in \S+ \(no space left on device, ENOSPC\): this session will NOT be saved/);
    await prompt(a);
    await turn(a, 'on a full disk', 'You said: on a full disk');
    a.write(KEY.ctrlD);
    expect((await a.exited).exitCode).toBe(0);
    expect(readdirSync(sb.cwd)).toEqual(['filler']);
  });
});

describe('locks and git', () => {
  it('a lock held by a zombie process is taken over', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(parent);
    const pid = Number(await new Promise<string>((resolve) => createInterface({ input: parent.stdout }).once('line', resolve)));
    // Its parent (`sleep`, exec'd by sh) never reaps it: killed, it stays a zombie.
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 10_000 && procState(pid) !== 'Z'; i++) await new Promise((r) => setImmediate(r));
    expect(procState(pid)).toBe('Z');
    writeFileSync(join(sb.cwd, '.agentx_responseid.lock'), `${pid}\nleft-by-a-zombie\n`);
    const a = start(sb);
    await prompt(a);
    expect(a.screen()).not.toContain('already running');
    a.write(KEY.ctrlD);
    expect((await a.exited).exitCode).toBe(0);
  });

  it('a session in a git repository leaves git status clean and says where the patterns went', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    execFileSync('git', ['init', '-q'], { cwd: sb.cwd });
    const a = start(sb);
    await prompt(a);
    await turn(a, 'hello git', 'You said: hello git');
    expect(a.screen().match(/added \.agentx_responseid\* and \.agentx_checkpoint\* to \S+\.git\/info\/exclude/g)).toHaveLength(1);
    a.write(KEY.ctrlD);
    expect((await a.exited).exitCode).toBe(0);
    expect(existsSync(join(sb.cwd, '.agentx_responseid'))).toBe(true);
    expect(existsSync(join(sb.cwd, '.agentx_checkpoint'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: sb.cwd, encoding: 'utf8' })).toBe('');
    expect(existsSync(join(sb.cwd, '.gitignore'))).toBe(false);
  });
});

describe('without a terminal for agentx', () => {
  it('`nohup agentx "…"` from a terminal answers into nohup.out (its stdin is unreadable: EBADF)', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    // The shell holds the terminal and prints nohup's status (nohup itself lets go of the pty).
    const script = `nohup "$0" "$1" 'hello from nohup'; echo "EXIT=$?"`;
    const p = ptySpawn('sh', ['-c', script, process.execPath, CLI], {
      name: 'xterm-256color',
      cols: 120,
      rows: 30,
      cwd: sb.cwd,
      env: { TERM: 'xterm-256color', ...sb.env },
    });
    children.push(p);
    let screen = '';
    const status = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no exit status; screen: ${screen}`)), 20_000);
      p.onData((d) => {
        screen += d;
        const m = /EXIT=(\d+)/.exec(stripAnsi(screen));
        if (m) {
          clearTimeout(timer);
          resolve(m[1] ?? '');
        }
      });
    });
    expect(stripAnsi(screen)).toContain("nohup: ignoring input and appending output to 'nohup.out'");
    expect(stripAnsi(screen)).not.toMatch(/internal error/);
    expect(status).toBe('0');
    expect(readFileSync(join(sb.cwd, 'nohup.out'), 'utf8')).toContain('You said: hello from nohup');
  });
});
