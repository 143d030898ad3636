// A sandbox that fails while it is being set up is set up again; a command that started is never
// run again. Real bwrap, real files: the race is the one a concurrency soak found (the REPL renames
// .agentx_checkpoint while a one-shot's bwrap bind-mounts it read-only), reproduced here on purpose,
// and a wrapper around the real bwrap that fails its first setups the way bwrap does.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { bwrapPath, makeLayout, type Layout } from '../../test/support/sandbox.ts';
import { runShellCommand, SANDBOX_SETUP_RETRY_MS, type ShellRunOptions } from './shell.ts';

let box: Layout;
beforeEach(() => {
  box = makeLayout();
});
afterEach(() => {
  box.remove();
});

const run = (command: string, bwrap: string, more: Partial<ShellRunOptions> = {}) =>
  runShellCommand({
    command,
    cwd: box.workspace,
    timeoutMs: 15_000,
    maxOutputBytes: 64 * 1024,
    killGraceMs: 300,
    env: box.env,
    sandbox: { bwrapPath: bwrap, policy: box.policy() },
    ...more,
  });

/** A bwrap that fails its first `failures` setups with bwrap's own message, then is the real one. */
function flakyBwrap(failures: number): { path: string; calls: () => number } {
  const counter = join(box.root, 'bwrap-calls');
  const path = join(box.root, 'flaky-bwrap');
  writeFileSync(counter, '');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo x >> '${counter}'`,
      `if [ "$(wc -l < '${counter}')" -le ${failures} ]; then`,
      '  echo "bwrap: Can\'t bind mount /oldroot/x on /newroot/x: Unable to remount destination \\"/newroot/x\\" with correct flags: Invalid argument" >&2',
      '  exit 1',
      'fi',
      `exec '${bwrapPath()}' "$@"`,
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

const ledger = (): string[] => {
  try {
    return readFileSync(join(box.workspace, 'ledger'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

it('sets the sandbox up again after a setup failure, runs the command once, and shows no setup error', async () => {
  const bwrap = flakyBwrap(2);
  const shown: string[] = [];
  const r = await run('echo once >> ledger; echo done', bwrap.path, { onOutput: (c) => shown.push(c) });
  expect(bwrap.calls()).toBe(3);
  expect(ledger()).toEqual(['once']);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe('done\n');
  expect(r.stderr).toBe('');
  expect(shown.join('')).toBe('done\n');
});

it("gives up after a few setups and reports bwrap's error, the command never having run", async () => {
  const bwrap = flakyBwrap(100);
  const shown: string[] = [];
  const r = await run('echo once >> ledger', bwrap.path, { onOutput: (c) => shown.push(c) });
  expect(bwrap.calls()).toBe(6);
  expect(ledger()).toEqual([]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^bwrap: Can't bind mount/);
  expect(shown.join('')).toMatch(/^bwrap: Can't bind mount/);
});

it('never runs again a command that started, even one that fails like a sandbox setup', async () => {
  const bwrap = flakyBwrap(0);
  const r = await run('echo once >> ledger; echo "bwrap: Can\'t bind mount /x on /y" >&2; exit 1', bwrap.path);
  expect(bwrap.calls()).toBe(1);
  expect(ledger()).toEqual(['once']);
  expect(r.exitCode).toBe(1);
});

it('runs every command exactly once while the checkpoint it protects is replaced by rename all along', async () => {
  const checkpoint = join(box.workspace, '.agentx_checkpoint');
  writeFileSync(checkpoint, '{"v":0}\n');
  // The policy names the checkpoint as a read-only file (the interactive session's state).
  expect(box.policy().readOnly).toContain(checkpoint);
  let replacing = true;
  let renames = 0;
  const replacer = (async () => {
    while (replacing) {
      const tmp = `${checkpoint}.tmp`;
      writeFileSync(tmp, `{"v":${++renames}}\n`);
      renameSync(tmp, checkpoint);
      // About a thousand renames a second: far more often than a session publishes a checkpoint.
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  const results = [];
  const COMMANDS = 40;
  for (let i = 0; i < COMMANDS; i++) results.push(await run(`echo ${i} >> ledger`, bwrapPath()));
  replacing = false;
  await replacer;
  expect(results.filter((r) => r.exitCode !== 0).map((r) => r.stderr)).toEqual([]);
  expect(ledger()).toEqual(Array.from({ length: COMMANDS }, (_, i) => String(i)));
  expect(renames).toBeGreaterThan(COMMANDS);
});

it('a sandbox that does not pass the marker fd on runs nothing (a missing marker must mean "never ran")', async () => {
  const path = join(box.root, 'fd-dropping-bwrap');
  writeFileSync(path, `#!/bin/sh\nexec '${bwrapPath()}' "$@" 4>&-\n`);
  chmodSync(path, 0o755);
  const r = await run('echo once >> ledger; exit 3', path);
  expect(ledger()).toEqual([]);
  expect(r.exitCode).toBe(125);
  expect(r.stderr).toContain('the sandbox did not pass fd 4 on; command not run');
});

it('Ctrl-C during the pause between two setups: nothing runs, and the result says interrupted', async () => {
  const bwrap = flakyBwrap(1);
  const ac = new AbortController();
  const realSetTimeout = globalThis.setTimeout;
  // The first pause between setups is SANDBOX_SETUP_RETRY_MS long: abort as it starts.
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation((fn, ms) => {
    if (ms === SANDBOX_SETUP_RETRY_MS) ac.abort();
    return realSetTimeout(fn, ms);
  });
  try {
    const r = await run('echo ran >> ledger', bwrap.path, { signal: ac.signal });
    expect(r.interrupted).toBe(true);
    expect(r.exitCode).toBeNull();
  } finally {
    spy.mockRestore();
  }
  expect(bwrap.calls()).toBe(1);
  expect(ledger()).toEqual([]);
});

it('Ctrl-C while a sandbox is being set up: nothing runs, and the result says interrupted', async () => {
  // A setup that takes a while and then fails; the abort lands in the middle of it.
  const path = join(box.root, 'slow-failing-bwrap');
  writeFileSync(path, `#!/bin/sh\ntouch '${join(box.root, 'setting-up')}'\nsleep 0.3\necho "bwrap: Can't bind mount" >&2\nexit 1\n`);
  chmodSync(path, 0o755);
  const ac = new AbortController();
  const pending = run('echo ran >> ledger', path, { signal: ac.signal });
  while (!existsSync(join(box.root, 'setting-up'))) await new Promise((r) => setTimeout(r, 10));
  ac.abort();
  const r = await pending;
  expect(r.interrupted).toBe(true);
  expect(r.exitCode).toBeNull();
  expect(ledger()).toEqual([]);
});
