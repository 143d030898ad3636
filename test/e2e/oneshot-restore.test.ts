// A one-shot opens no snapshot store for itself, yet a restore that a killed session left half
// done (its journal still in the store) is finished, and said, before the one-shot's turn: the
// model must never work on a half-restored tree.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openWorkspaceSnapshots } from '../../src/workspace/index.ts';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

it('a plain one-shot finishes an interrupted restore first, and says so', async () => {
  const box = sandbox(emu.baseUrl);
  writeFileSync(join(box.cwd, 'a.txt'), 'before the turn\n');
  const ws = await openWorkspaceSnapshots({ workspace: box.cwd, env: box.env, homeDir: box.home });
  const from = (await ws.snapshot())?.id ?? '';
  writeFileSync(join(box.cwd, 'a.txt'), 'after the turn\n');
  writeFileSync(join(box.cwd, 'b.txt'), 'created by the turn\n');
  const to = (await ws.snapshot())?.id ?? '';
  expect(from).not.toBe(to);
  const plan = await ws.planRestore([{ from, to }]);
  // What a session killed right after journaling its restore leaves: the journal, no file restored yet.
  const journal = join(ws.storeDir ?? '', 'restore.json');
  writeFileSync(
    journal,
    JSON.stringify({
      version: 1,
      pid: 999_999_999,
      startedAt: '2026-01-02T03:04:05.000Z',
      workspace: plan.workspace,
      startSnapshot: plan.startSnapshot,
      actions: plan.actions,
    }),
  );

  const r = await runCli(['hello'], { cwd: box.cwd, env: box.env });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('agentx: finished a file restore interrupted at 2026-01-02T03:04:05.000Z: 2 files restored');
  expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('before the turn\n');
  expect(existsSync(join(box.cwd, 'b.txt'))).toBe(false);
  expect(existsSync(journal)).toBe(false);
  expect(r.stdout).toContain('You said: hello');

  // Nothing to finish: no word about it.
  const again = await runCli(['hello again'], { cwd: box.cwd, env: box.env });
  expect(again.code).toBe(0);
  expect(again.stderr).not.toContain('restore');
});
