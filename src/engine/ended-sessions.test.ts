// The registry of live exec sessions and the report after agentx died: real files, real
// processes (a dead pid is one of a child that exited), the real process manager.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { procStartTime } from '../lib/zombie.ts';
import { ExecRegistry, type LiveSessionRecord } from '../store/exec-registry.ts';
import { ExecManager } from '../tools/exec/manager.ts';
import { makeTempDir, waitFor, type TempDir } from '../../test/support/tools.ts';
import { endedSessionsReport, resumeExecSessions } from './ended-sessions.ts';

let dir: TempDir;
const managers: ExecManager[] = [];
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stopAll();
  dir.remove();
});
afterAll(() => {
  for (const m of managers) m.killAllNow();
});

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  return Number(spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
}

const record = (id: number, command: string, last = ''): LiveSessionRecord => ({
  id,
  command,
  tty: false,
  started_at: '2026-12-04T20:00:00.000Z',
  last_output: last,
});

function plant(pid: number, start: string | null, sessions: LiveSessionRecord[]): string {
  const file = join(dir.path, `${pid}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, pid, start, sessions }));
  return file;
}

describe('the registry of live sessions', () => {
  it('claims the sessions of a dead process once, and leaves a live one alone', () => {
    const dead = deadPid();
    const deadFile = plant(dead, '1', [record(1000, 'npm run dev', 'Local: http://localhost:5173\n')]);
    const live = plant(process.ppid, procStartTime(process.ppid) ?? null, [record(1000, 'sleep 9')]);
    const registry = new ExecRegistry(dir.path, process.pid);
    const ended = registry.claimEnded();
    expect(ended).toEqual([{ pid: dead, sessions: [record(1000, 'npm run dev', 'Local: http://localhost:5173\n')] }]);
    expect(existsSync(deadFile)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(registry.claimEnded()).toEqual([]);
  });

  it('takes a file of a live pid with another start time for a dead process (the pid was reused)', () => {
    // The file names the parent's pid, but a start time it never had: an earlier process with that pid.
    plant(process.ppid, '1', [record(1003, 'python3 -m http.server')]);
    // Our own pid, written by an earlier process that had it.
    plant(process.pid, '2', [record(1004, 'make watch')]);
    const ended = new ExecRegistry(dir.path, process.pid).claimEnded();
    expect(ended.flatMap((o) => o.sessions.map((s) => s.id)).sort()).toEqual([1003, 1004]);
  });

  it("ignores what is not a registry file and deletes a dead process's unreadable one", () => {
    const dead = deadPid();
    writeFileSync(join(dir.path, `${dead}.json`), '{ torn');
    writeFileSync(join(dir.path, 'notes.txt'), 'x');
    expect(new ExecRegistry(dir.path, process.pid).claimEnded()).toEqual([]);
    expect(existsSync(join(dir.path, `${dead}.json`))).toBe(false);
    expect(existsSync(join(dir.path, 'notes.txt'))).toBe(true);
  });
});

describe('tracking and the report', () => {
  it('records a session when it starts, its output, and drops it when it ends', async () => {
    const manager = new ExecManager({ graceMs: 200 });
    managers.push(manager);
    const registry = new ExecRegistry(dir.path, process.pid);
    const { report, stop } = resumeExecSessions(manager, registry, () => undefined);
    expect(report).toBeNull();
    const file = join(dir.path, `${process.pid}.json`);
    const started = await manager.start({
      command: 'echo up-and-running; sleep 30',
      argv: ['/bin/sh', '-c', 'echo up-and-running; sleep 30'],
      cwd: dir.path,
      env: process.env,
      tty: false,
    });
    expect(started.ok).toBe(true);
    // Written at the start, before any output.
    expect(existsSync(file)).toBe(true);
    expect(await waitFor(() => readFileSync(file, 'utf8').includes('up-and-running'), 5_000)).toBe(true);
    await manager.stopAll();
    expect(await waitFor(() => !existsSync(file), 2_000)).toBe(true);
    stop();
  });

  it('after a crash: reports each session with its last output, and keeps its id from being reused', async () => {
    plant(deadPid(), null, [record(1001, 'npm run dev', 'compiling\n  ➜  Local: http://localhost:5173/\n'), record(1000, 'python3 -i')]);
    const manager = new ExecManager({ graceMs: 200 });
    managers.push(manager);
    const { report, stop } = resumeExecSessions(manager, new ExecRegistry(dir.path, process.pid), () => undefined);
    stop();
    expect(report?.person[0]).toBe('2 exec sessions ended when the previous agentx process ended (crash, kill or exit); agentx does not restart them:');
    expect(report?.person.slice(1)).toEqual(['  1000  python3 -i', '  1001  npm run dev  — last output:   ➜  Local: http://localhost:5173/']);
    expect(report?.model).toMatch(/^Note: agentx was restarted\. These exec sessions were running/);
    expect(report?.model).toContain(
      '- session 1001: "npm run dev", started 2026-12-04T20:00:00.000Z; its last output:\ncompiling\n  ➜  Local: http://localhost:5173/',
    );
    expect(report?.model).toContain('- session 1000: "python3 -i", started 2026-12-04T20:00:00.000Z, no output');
    expect(manager.endedEarlierCommand(1001)).toBe('npm run dev');
    const next = await manager.start({ command: 'true', argv: ['/bin/sh', '-c', 'true'], cwd: dir.path, env: process.env, tty: false });
    expect(next.ok && next.session.id).toBe(1002);
  });

  it('says nothing when nothing ended', () => {
    expect(endedSessionsReport([])).toBeNull();
    expect(endedSessionsReport([{ pid: 1, sessions: [] }])).toBeNull();
  });
});
