// Stopping commands: timeout, Ctrl-C, leftovers, and agentx dying under them.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killProcessGroup, processGroupExists, signalProcessGroup } from './process-group.ts';
import { isAlive, makeTempDir, run, waitFor, waitForPids } from '../../test/support/tools.ts';
import type { TempDir } from '../../test/support/tools.ts';

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => {
  dir.remove();
});

const allGone = (pids: number[]) => (): boolean => pids.every((p) => !isAlive(p));

describe('runShellCommand: timeout', () => {
  it('stops the whole group on timeout and returns promptly', async () => {
    const pids = dir.file('pids');
    const started = Date.now();
    const r = await run(dir, `echo $$ > ${pids}; sleep 5 & echo $! >> ${pids}; wait`, { timeoutMs: 300 });
    const took = Date.now() - started;
    expect(r).toMatchObject({ timedOut: true, interrupted: false, exitCode: null, signal: 'SIGTERM' });
    expect(took).toBeLessThan(1_500);
    const [shell = 0, sleeper = 0] = await waitForPids(pids, 2);
    expect(await waitFor(allGone([shell, sleeper]), 1_000)).toBe(true);
  });

  it('escalates to SIGKILL after the grace when the command ignores SIGTERM', async () => {
    const started = Date.now();
    const r = await run(dir, "trap '' TERM; while :; do sleep 0.05; done", { timeoutMs: 500, killGraceMs: 300 });
    expect(r).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});

describe('runShellCommand: interrupt', () => {
  it('kills the whole group, grandchildren included, when the signal aborts', async () => {
    const pids = dir.file('pids');
    const ac = new AbortController();
    const pending = run(dir, `sh -c 'echo $$ > ${pids}; sleep 100 & echo $! >> ${pids}; sleep 100 & echo $! >> ${pids}; wait'`, {
      signal: ac.signal,
    });
    const found = await waitForPids(pids, 3);
    expect(found.every(isAlive)).toBe(true);
    const abortedAt = Date.now();
    ac.abort();
    const r = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(r).toMatchObject({ interrupted: true, timedOut: false, exitCode: null });
    expect(await waitFor(allGone(found), 1_000)).toBe(true);
  });

  it('ignores an abort that comes after the command finished', async () => {
    const ac = new AbortController();
    const r = await run(dir, 'echo ok', { signal: ac.signal });
    ac.abort();
    expect(r).toMatchObject({ interrupted: false, exitCode: 0, stdout: 'ok\n' });
  });
});

describe('runShellCommand: background jobs', () => {
  it('resolves when the main command exits, then kills what it left running', async () => {
    const pids = dir.file('pids');
    const started = Date.now();
    const r = await run(dir, `sleep 100 & echo $! > ${pids}; echo done`);
    expect(r).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(Date.now() - started).toBeLessThan(1_500);
    const [bg = 0] = await waitForPids(pids, 1);
    expect(await waitFor(allGone([bg]), 1_000)).toBe(true);
  });

  it('does not wait on a TERM-proof leftover holding stdout, and kills it after the grace', async () => {
    const pids = dir.file('pids');
    const started = Date.now();
    const r = await run(dir, `sh -c 'trap "" TERM; echo $$ > ${pids}; exec sleep 100' & until [ -s ${pids} ]; do sleep 0.01; done; echo done`, {
      killGraceMs: 300,
    });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(Date.now() - started).toBeLessThan(1_500);
    const [bg = 0] = await waitForPids(pids, 1);
    expect(await waitFor(allGone([bg]), 2_000)).toBe(true);
  });
});

describe('killProcessGroup', () => {
  it('SIGTERMs a group, then SIGKILLs what ignored it, and resolves', async () => {
    const child = spawn('/bin/sh', ['-c', "trap '' TERM; sleep 100 & sleep 100 & echo ready; wait"], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pgid = child.pid ?? 0;
    // Signal only once the trap is set, or TERM would win the race and KILL would go untested.
    await new Promise((resolve) => child.stdout?.once('data', resolve));
    expect(processGroupExists(pgid)).toBe(true);
    const started = Date.now();
    await killProcessGroup(pgid, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await waitFor(() => child.exitCode !== null || child.signalCode !== null, 1_000)).toBe(true);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('resolves at once for a group that is gone, and refuses ids that would hit other groups', async () => {
    await killProcessGroup(999_999_999, 1_000);
    for (const id of [0, 1, -5, 2.5, Number.NaN]) expect(signalProcessGroup(id, 0)).toBe(false);
  });
});

describe('orphan-proofing', () => {
  it('kills the running command when the agentx process is SIGKILLed', async () => {
    const bundle = dir.file('shell.mjs');
    await build({
      entryPoints: [new URL('./shell.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
    const pids = dir.file('pids');
    const marker = dir.file('finished');
    const fixture = dir.file('agent.mjs');
    const command = `sleep 30 & echo $! > ${pids}.tmp; echo $$ >> ${pids}.tmp; mv ${pids}.tmp ${pids}; sleep 1; touch ${marker}; wait`;
    writeFileSync(
      fixture,
      [
        `import { runShellCommand } from ${JSON.stringify(bundle)};`,
        `await runShellCommand({ command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(dir.path)}, timeoutMs: 60000, maxOutputBytes: 1000 });`,
      ].join('\n'),
    );
    const agent = spawn(process.execPath, [fixture], { stdio: 'ignore' });
    const found = await waitForPids(pids, 2, 10_000);
    expect(found.every(isAlive)).toBe(true);
    const exited = new Promise((resolve) => agent.once('exit', resolve));
    agent.kill('SIGKILL');
    await exited;
    expect(await waitFor(allGone(found), 2_000)).toBe(true);
    // The shell that would `touch` the marker after 1 s ($$, in `found`) is dead, so the marker
    // can never appear: no need to sleep and see.
    expect(existsSync(marker)).toBe(false);
  }, 30_000);
});
