import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../lib/fsutil.ts';
import { acquireSessionLock, LOCK_FILE } from './lock.ts';
import { procState } from '../lib/zombie.ts';

const hasProc = fs.existsSync('/proc/self/stat');
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

/**
 * A real zombie: `sh` starts a background `sleep`, prints its pid and execs another `sleep`,
 * which never reaps children; killing the background one leaves it a zombie. Resolves once
 * /proc says so (polled, no fixed sleep). Needs /proc (the describe blocks skip without it).
 */
async function makeZombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(parent);
  const line = await new Promise<string>((resolve) => createInterface({ input: parent.stdout ?? process.stdin }).once('line', resolve));
  const pid = Number(line);
  // Only once the parent is `sleep` (exec done): a shell still running could reap the child, and
  // the "zombie" would vanish between two checks (seen with two test files running at once).
  const comm = (): string => {
    try {
      return fs.readFileSync(`/proc/${String(parent.pid)}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  for (let i = 0; i < 10_000 && comm() !== 'sleep'; i++) await new Promise((r) => setImmediate(r));
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 10_000 && procState(pid) !== 'Z'; i++) await new Promise((r) => setImmediate(r));
  return pid;
}

describe('procState', () => {
  it('reads the state after the last parenthesis, whatever the command name holds', () => {
    expect(procState(1, () => '1 (a) b) c) Z 0 0')).toBe('Z');
    expect(
      procState(1, () => {
        throw new Error('gone');
      }),
    ).toBeUndefined();
  });
});

describe.skipIf(!hasProc)('a zombie process', () => {
  it('is not alive, although kill(pid, 0) still succeeds', async () => {
    const pid = await makeZombie();
    expect(procState(pid)).toBe('Z');
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(isPidAlive(pid)).toBe(false);
    expect(isPidAlive(process.pid)).toBe(true);
  });

  it('holding the session lock does not block the directory: the lock is taken over', async () => {
    const pid = await makeZombie();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-zombie-'));
    try {
      fs.writeFileSync(path.join(dir, LOCK_FILE), `${pid}\nsometoken\n`);
      const lock = acquireSessionLock(dir);
      expect(lock.ok).toBe(true);
      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
      if (lock.ok) lock.release();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
