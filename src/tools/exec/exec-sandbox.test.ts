// Exec sessions in the real sandbox (bwrap): a server started with exec_command is reachable by
// the model's later commands (shell tool and exec_command) in the same agentx session, through
// the session's shared network namespace, while the outside network stays off.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FunctionCallItem } from '../../wire/items.ts';
import type { Tool, ToolContext } from '../tool.ts';
import { makeLayout, TEST_KEY, type Layout } from '../../../test/support/sandbox.ts';
import { unexpectedApproval } from '../../../test/support/tools.ts';
import { createCommandRunner, type CommandRunner } from '../sandboxed.ts';
import { createExecTools } from './exec-tool.ts';
import { ExecManager } from './manager.ts';

let box: Layout;
let runner: CommandRunner;
let tools: [Tool, Tool];
const manager = new ExecManager({ graceMs: 300 });
beforeEach(() => {
  box = makeLayout();
  runner = createCommandRunner({
    setting: { mode: 'workspace-write', offIfUnavailable: false, network: false },
    sessionDir: box.workspace,
    tempDir: box.tempDir,
    env: box.env,
    configFile: box.configFile,
    secrets: [TEST_KEY],
    platform: 'linux',
    notice: () => undefined,
  });
  tools = createExecTools({ manager, launch: (c, cwd) => runner.sessionLaunch(c, cwd), redact: (t) => runner.redact(t) }) as [Tool, Tool];
});
afterEach(async () => {
  await manager.stopAll();
  box.remove();
});
afterAll(() => manager.killAllNow());

async function call(tool: Tool, args: Record<string, unknown>): Promise<string> {
  const item: FunctionCallItem = { type: 'function_call', call_id: 'c', name: tool.name, arguments: JSON.stringify(args) };
  const parsed = tool.parse(item);
  if (!parsed.ok) return parsed.error;
  const ctx: ToolContext = {
    cwd: box.workspace,
    workspaceRoot: box.workspace,
    signal: new AbortController().signal,
    retry: false,
    progress: () => undefined,
    approve: unexpectedApproval,
  };
  const r = await tool.run(parsed.call, ctx);
  return r.reply.text;
}

const PORT = 18000 + Math.floor(Math.random() * 1000);

describe('exec sessions in the sandbox', () => {
  it('serves HTTP to later commands of the same session, and nothing reaches outside', async () => {
    await call(tools[0], { cmd: 'echo hello-from-server > index.html' });
    const server = await call(tools[0], { cmd: `python3 -m http.server ${PORT} --bind 127.0.0.1`, yield_time_ms: 1_500 });
    expect(server).toMatch(/Process running with session ID/);
    // The shell tool's command, a separate bwrap, reaches it.
    const r = await runner.run({
      command: `curl -s --retry 10 --retry-connrefused --retry-delay 0 http://127.0.0.1:${PORT}/index.html`,
      cwd: box.workspace,
      timeoutMs: 15_000,
      maxOutputBytes: 65536,
    });
    expect(r.stdout).toBe('hello-from-server\n');
    // So does another exec session.
    const again = await call(tools[0], { cmd: `curl -s http://127.0.0.1:${PORT}/index.html` });
    expect(again).toContain('hello-from-server');
    // The network is still off for the outside world: only loopback exists.
    const out = await runner.run({
      command: 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "',
      cwd: box.workspace,
      timeoutMs: 15_000,
      maxOutputBytes: 65536,
    });
    expect(out.stdout.trim()).toBe('lo');
  }, 30_000);

  it('hides the same paths as the shell tool and keeps the key out', async () => {
    const out = await call(tools[0], { cmd: `cat ${box.configFile} 2>&1; env | grep -c '${TEST_KEY}' || true` });
    expect(out).not.toContain(TEST_KEY);
    expect(out).toMatch(/Process exited with code 0/);
  });

  describe('with a PTY (tty: true) inside bwrap', () => {
    const sessionOf = (text: string): number => Number(/session ID (\d+)/.exec(text)?.[1] ?? NaN);

    it('runs a Python REPL that answers print(6*7) typed with write_stdin', async () => {
      const started = await call(tools[0], { cmd: 'python3 -i -q', tty: true, yield_time_ms: 500 });
      expect(started).toMatch(/Process running with session ID/);
      let answer = await call(tools[1], { session_id: sessionOf(started), chars: 'print(6*7)\n', yield_time_ms: 1_000 });
      // On a busy machine python may still be starting after 1.5 s: poll on (each empty poll waits
      // up to 5 s), as the model would, rather than fail on the machine's speed.
      for (let poll = 0; poll < 3 && !/^42\r?$/m.test(answer); poll++) {
        answer += await call(tools[1], { session_id: sessionOf(started), chars: '', yield_time_ms: 5_000 });
      }
      expect(answer).toMatch(/^42\r?$/m);
    }, 30_000);

    it('shows a read -p prompt and takes the answer typed with write_stdin', async () => {
      const started = await call(tools[0], { cmd: 'bash -c \'read -p "name? " n; echo "hello $n"\'', tty: true, yield_time_ms: 1_000 });
      expect(started).toMatch(/Process running with session ID/);
      expect(started).toContain('name? ');
      const answer = await call(tools[1], { session_id: sessionOf(started), chars: 'bob\n', yield_time_ms: 2_000 });
      expect(answer).toContain('hello bob');
      expect(answer).toMatch(/Process exited with code 0/);
    }, 15_000);

    it('interrupts a foreground sleep 100 with "\\u0003"', async () => {
      const started = await call(tools[0], { cmd: 'echo ready; sleep 100', tty: true, yield_time_ms: 1_000 });
      expect(started).toContain('ready');
      expect(started).toMatch(/Process running with session ID/);
      const after = await call(tools[1], { session_id: sessionOf(started), chars: '\u0003', yield_time_ms: 3_000 });
      // Ended by the interrupt (the shell reports 130 or dies of SIGINT with its child), long before 100 s.
      expect(after).toMatch(/Process exited with code 130|Process was killed by SIGINT/);
    }, 15_000);
  });
});
