// apply_patch through the product: the built CLI against the emulator, in each of the three
// forms; edits land exactly, failures leave files byte-identical, --json reports each edit, and a
// call journaled `started` by an agentx that died is answered "already applied" on Retry.
import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

const PATCH = [
  '*** Begin Patch',
  '*** Update File: app.sh',
  '@@',
  ' #!/bin/sh',
  '-echo old',
  '+echo new',
  '*** Add File: notes/todo.md',
  '+# Todo',
  '+- ship it',
  '*** End Patch',
  '',
].join('\n');

type Line = { type: string; [k: string]: unknown };
const lines = (stdout: string): Line[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('apply_patch and what the sandbox hides', () => {
  it('started in the home directory, a patch may not touch ~/.ssh or ~/.agentx (agentx writes it, outside the sandbox)', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.home, '.agentx'), 'AGENTX_MODEL=gpt-5.1\n');
    for (const patch of [
      '*** Begin Patch\n*** Add File: .ssh/authorized_keys\n+ssh-ed25519 AAAA attacker\n*** End Patch\n',
      '*** Begin Patch\n*** Update File: .agentx\n@@\n-AGENTX_MODEL=gpt-5.1\n+AGENTX_BASE_URL=https://evil.example/v1\n*** End Patch\n',
    ]) {
      emu.enqueue({ kind: 'patch', patch });
      const before = emu.requests.length;
      const r = await runCli(['edit'], { cwd: box.home, env: box.env });
      expect(r.code).toBe(0);
      const follow = JSON.stringify((emu.requests[before + 1]?.body as { input: unknown[] }).input);
      expect(follow).toContain('is hidden by the sandbox');
    }
    expect(() => statSync(join(box.home, '.ssh', 'authorized_keys'))).toThrow();
    expect(readFileSync(join(box.home, '.agentx'), 'utf8')).toBe('AGENTX_MODEL=gpt-5.1\n');
    // An ordinary file of the same workspace is still edited.
    emu.enqueue({ kind: 'patch', patch: '*** Begin Patch\n*** Add File: notes.txt\n+fine\n*** End Patch\n' });
    expect((await runCli(['edit'], { cwd: box.home, env: box.env })).code).toBe(0);
    expect(readFileSync(join(box.home, 'notes.txt'), 'utf8')).toBe('fine\n');
  });
});

describe('apply_patch in a one-shot', () => {
  it.each(['builtin', 'function', 'custom'])('%s form: the edit lands, the mode stays, --json reports it', async (form) => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, 'app.sh'), '#!/bin/sh\necho old\n');
    chmodSync(join(box.cwd, 'app.sh'), 0o755);
    const n = emu.requests.length;
    emu.enqueue({ kind: 'patch', patch: PATCH });
    const r = await runCli(['--json', '--patch-tool', form, 'edit the files'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'app.sh'), 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect(statSync(join(box.cwd, 'app.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(box.cwd, 'notes/todo.md'), 'utf8')).toBe('# Todo\n- ship it\n');
    // At the turn's end, from the workspace snapshots: what the turn's tool calls changed.
    const workspace = lines(r.stdout).find((l) => l.type === 'workspace_changed');
    expect(workspace?.changes).toEqual(
      expect.arrayContaining([
        { status: 'M', path: 'app.sh' },
        { status: 'A', path: 'notes/todo.md' },
      ]),
    );
    const changed = lines(r.stdout).filter((l) => l.type === 'files_changed');
    const files = changed.flatMap((l) => (Array.isArray(l.files) ? (l.files as unknown[]) : []));
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'app.sh', moved_to: null, operation: 'update', added: 1, removed: 1 },
        { path: 'notes/todo.md', moved_to: null, operation: 'create', added: 2, removed: 0 },
      ]),
    );
    const tools = (emu.requests[n]?.body as { tools: { type: string; name?: string }[] }).tools;
    expect(tools.some((t) => (form === 'builtin' ? t.type === 'apply_patch' : t.name === 'apply_patch'))).toBe(true);
  });

  it('a hunk that does not match changes nothing and tells the model what it found', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, 'app.sh'), '#!/bin/sh\necho something else\n');
    const n = emu.requests.length;
    emu.enqueue({ kind: 'patch', patch: PATCH });
    const r = await runCli(['--patch-tool', 'function', 'edit'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'app.sh'), 'utf8')).toBe('#!/bin/sh\necho something else\n');
    expect(() => statSync(join(box.cwd, 'notes/todo.md'))).toThrow();
    const answer = JSON.stringify(emu.requests[n + 1]?.body);
    expect(answer).toMatch(/app\.sh/);
  });

  it('refuses a path outside the workspace', async () => {
    const box = sandbox(emu.baseUrl);
    emu.enqueue({ kind: 'patch', patch: '*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch\n' });
    const r = await runCli(['--json', '--patch-tool', 'custom', 'escape'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(() => statSync(join(box.cwd, '..', 'escape.txt'))).toThrow();
    expect(lines(r.stdout)).toContainEqual(expect.objectContaining({ type: 'files_changed', ok: false }));
  });

  it('--patch-tool off offers no edit tool', async () => {
    const box = sandbox(emu.baseUrl);
    const n = emu.requests.length;
    const r = await runCli(['--patch-tool', 'off', 'hello'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    const tools = (emu.requests[n]?.body as { tools: { type: string; name?: string }[] }).tools;
    expect(tools.some((t) => t.type === 'apply_patch' || t.name === 'apply_patch')).toBe(false);
  });
});
