// Finding and probing bwrap: the real one works here; missing, planted and broken ones are refused
// with one line that says what to do.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox, findBwrap, unavailableMessage } from './detect.ts';
import { bwrapPath, makeLayout, type Layout } from '../../test/support/sandbox.ts';

let box: Layout;
beforeEach(() => {
  box = makeLayout();
});
afterEach(() => {
  box.remove();
});

const input = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux') => ({
  platform,
  env,
  network: false,
  tempDir: box.tempDir,
  untrustedDirs: [box.workspace, box.tempDir],
});

/** A fake bwrap that records each call and fails like bwrap does without user namespaces. */
function brokenBwrap(dir: string): { path: string; calls: () => number } {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'bwrap');
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho x >> ${log}\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n`);
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

describe('detectSandbox', () => {
  it('finds the installed bwrap and its probe sandbox works', async () => {
    const found = await detectSandbox(input({ PATH: process.env.PATH }));
    expect(found).toEqual({ ok: true, bwrapPath: bwrapPath() });
  });

  it('says bwrap is missing and how to install it (AGENTX_BWRAP pointing nowhere)', async () => {
    const found = await detectSandbox(input({ PATH: process.env.PATH, AGENTX_BWRAP: '/nonexistent/bwrap' }));
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.message).toContain('AGENTX_BWRAP=/nonexistent/bwrap is not an executable file');
      expect(found.message).toContain('apt install bubblewrap');
      expect(found.message).toContain('off-if-unavailable');
      expect(found.message).not.toContain('\n');
    }
  });

  it('says bwrap is not installed when PATH has none', async () => {
    const found = await detectSandbox(input({ PATH: '/nonexistent-dir' }));
    expect(found).toMatchObject({ ok: false, message: expect.stringContaining('bubblewrap (bwrap) is not installed') as unknown });
  });

  it('does not trust a bwrap the model could have planted in the workspace or temp dir', () => {
    const planted = brokenBwrap(join(box.workspace, 'bin'));
    const found = findBwrap({ PATH: `${dirname(planted.path)}:/nonexistent-dir` }, [box.workspace]);
    expect(found.path).toBeUndefined();
    expect(findBwrap({ PATH: `bin:${dirname(bwrapPath())}` }, []).path).toBe(bwrapPath());
  });

  it("reports a bwrap that cannot create namespaces, with bwrap's own complaint, and probes only once", async () => {
    const broken = brokenBwrap(join(box.root, 'fake'));
    const once = input({ PATH: process.env.PATH, AGENTX_BWRAP: broken.path });
    const first = await detectSandbox(once);
    const second = await detectSandbox(once);
    expect(first).toEqual(second);
    expect(broken.calls()).toBe(1);
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.message).toContain('bwrap cannot create a sandbox here (bwrap: setting up uid map: Permission denied)');
  });

  it('is Linux-only: elsewhere it is unavailable, like a missing bwrap', async () => {
    const found = await detectSandbox(input({ PATH: process.env.PATH }, 'darwin'));
    expect(found).toEqual({
      ok: false,
      message:
        'model commands cannot be sandboxed: the sandbox is Linux-only for now (this is darwin). To go on, run with --sandbox danger-full-access, or AGENTX_SANDBOX=off-if-unavailable, to run model commands unsandboxed.',
      problem: 'the sandbox is Linux-only for now (this is darwin)',
    });
  });
});

describe('unavailableMessage', () => {
  it('offers running unsandboxed, except in plan mode, which has only its read-only sandbox', () => {
    expect(unavailableMessage('bwrap is missing', 'apt install bubblewrap')).toMatch(/Fix: apt install bubblewrap \(or run with --sandbox danger-full-access/);
    const plan = unavailableMessage('bwrap is missing', 'apt install bubblewrap', true);
    expect(plan).toBe(
      'model commands cannot be sandboxed: bwrap is missing. Plan mode runs commands only in the read-only sandbox, so none can run until it works (fix: apt install bubblewrap).',
    );
    expect(unavailableMessage('Linux-only', undefined, true)).not.toMatch(/danger-full-access|off-if-unavailable/);
  });
});
