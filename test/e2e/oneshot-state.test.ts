// One-shot isolation (SPEC §3.4): branch from the checkpoint, own an isolated file, never touch
// the interactive state; crash and signal behaviour of the isolated journal.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox, storedResponse, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

function writeCheckpoint(dir: string, responseId: string): void {
  const cp = {
    version: 1,
    response_id: responseId,
    timestamp: new Date().toISOString(),
    usage: { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0, turns: 1 },
    source: 'turn',
  };
  writeFileSync(join(dir, '.agentx_checkpoint'), `${JSON.stringify(cp)}\n`, { mode: 0o600 });
}

const isolatedFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('.agentx_responseid.oneshot-'));

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('one-shot isolation', () => {
  it('branches from .agentx_checkpoint and leaves the interactive files byte-identical', async () => {
    const head = await storedResponse(emu);
    writeCheckpoint(box.cwd, head);
    const mainState =
      '{"version":1,"response_id":"resp_interactive","pending_tool_calls":[{"call_id":"c1","type":"shell_call","action":{"commands":["rm -rf /"]},"status":"started"}]}\n';
    writeFileSync(join(box.cwd, '.agentx_responseid'), mainState, { mode: 0o600 });
    const cpBefore = readFileSync(join(box.cwd, '.agentx_checkpoint'));
    const before = emu.requests.length;
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    const body = emu.requests[before]?.body as { previous_response_id?: string; input: { type: string }[] };
    expect(body.previous_response_id).toBe(head);
    // the interactive pending call is not the one-shot's business: only the environment context and the message
    expect(body.input.map((i) => i.type)).toEqual(['message', 'message']);
    expect(readFileSync(join(box.cwd, '.agentx_responseid'), 'utf8')).toBe(mainState);
    expect(readFileSync(join(box.cwd, '.agentx_checkpoint')).equals(cpBefore)).toBe(true);
    expect(isolatedFiles(box.cwd)).toEqual([]);
  });

  it('SIGKILL during a tool command keeps the isolated file with the call started, and the command dies too', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo $$ > cmd.pid; exec sleep 30'] });
    // Unsandboxed: `$$` must be a host pid (sandboxed kills: test/e2e/sandbox.test.ts).
    const child = spawn(process.execPath, [CLI, 'go'], { cwd: box.cwd, env: { ...box.env, AGENTX_SANDBOX: 'danger-full-access' }, stdio: 'ignore' });
    await waitFor(() => existsSync(join(box.cwd, 'cmd.pid')) && readFileSync(join(box.cwd, 'cmd.pid'), 'utf8').trim() !== '');
    const cmdPid = Number(readFileSync(join(box.cwd, 'cmd.pid'), 'utf8'));
    expect(alive(cmdPid)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const files = isolatedFiles(box.cwd);
    expect(files).toHaveLength(1);
    const state = JSON.parse(readFileSync(join(box.cwd, files[0] ?? ''), 'utf8')) as {
      pending_tool_calls: { status: string; action: { commands: string[] } }[];
    };
    expect(state.pending_tool_calls).toHaveLength(1);
    expect(state.pending_tool_calls[0]?.status).toBe('started');
    await waitFor(() => !alive(cmdPid), 5000);
  });

  it('SIGTERM during a tool command stops its process group and exits 130, keeping the journal', async () => {
    emu.enqueue({ kind: 'shell', commands: ['sh -c "echo \\$\\$ > grandchild.pid; exec sleep 30" & echo $$ > cmd.pid; wait'] });
    let pid = -1;
    // Unsandboxed: `$$` must be a host pid (sandboxed kills: test/e2e/sandbox.test.ts).
    const done = runCli(['go'], {
      ...box,
      env: { ...box.env, AGENTX_SANDBOX: 'danger-full-access' },
      onSpawn: (p) => {
        pid = p;
      },
    });
    await waitFor(() => existsSync(join(box.cwd, 'grandchild.pid')) && readFileSync(join(box.cwd, 'grandchild.pid'), 'utf8').trim() !== '');
    const grandchild = Number(readFileSync(join(box.cwd, 'grandchild.pid'), 'utf8'));
    process.kill(pid, 'SIGTERM');
    const r = await done;
    expect(r.code).toBe(130);
    await waitFor(() => !alive(grandchild), 3000);
    const files = isolatedFiles(box.cwd);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(box.cwd, files[0] ?? ''), 'utf8')).toContain('"call_id"');
  });

  it('a failed one-shot exits 1 and keeps its isolated state with the failure and the exact input', async () => {
    emu.enqueue({ kind: 'http_error', status: 500, times: 2 });
    const r = await runCli(['will fail'], box);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request failed/);
    const files = isolatedFiles(box.cwd);
    expect(files).toHaveLength(1);
    const state = JSON.parse(readFileSync(join(box.cwd, files[0] ?? ''), 'utf8')) as {
      failed_response: { status: number };
      pending_transaction: { input: unknown[]; user_message: string };
      history: unknown[];
    };
    expect(state.failed_response.status).toBe(500);
    expect(state.pending_transaction.user_message).toBe('will fail');
    expect(JSON.stringify(state.pending_transaction.input)).toContain('will fail');
    expect(state.history).toEqual([]);
  });
});
