// Exec sessions end to end below the engine: real processes on pipes and on a real PTY, the
// manager's limits, and the model-facing answers.
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FunctionCallItem } from '../../wire/items.ts';
import type { Tool, ToolContext, ToolProgress } from '../tool.ts';
import { isAlive, makeTempDir, unexpectedApproval, waitFor, waitForPids, type TempDir } from '../../../test/support/tools.ts';
import { createExecTools } from './exec-tool.ts';
import { ExecManager } from './manager.ts';

let dir: TempDir;
const manager = new ExecManager({ graceMs: 300 });
const [execTool, writeTool] = createExecTools({
  manager,
  launch: (command) => Promise.resolve({ ok: true, argv: ['/bin/sh', '-c', command], env: { ...process.env, PS1: '$ ' } }),
  redact: (t) => t.split('sk-test-secret-key').join('[REDACTED]'),
}) as [Tool, Tool];

beforeEach(() => {
  dir = makeTempDir();
});
afterEach(async () => {
  await manager.stopAll();
  dir.remove();
});
afterAll(() => manager.killAllNow());

let n = 0;
function ctx(signal = new AbortController().signal, progress: ToolProgress[] = []): ToolContext {
  return { cwd: dir.path, workspaceRoot: dir.path, signal, retry: false, progress: (ev) => progress.push(ev), approve: unexpectedApproval };
}

async function call(tool: Tool, args: Record<string, unknown>, c: ToolContext = ctx()): Promise<string> {
  const item: FunctionCallItem = { type: 'function_call', call_id: `c${n++}`, name: tool.name, arguments: JSON.stringify(args) };
  const parsed = tool.parse(item);
  if (!parsed.ok) return `parse error: ${parsed.error}`;
  const r = await tool.run(parsed.call, c);
  return r.reply.text;
}

const sessionOf = (text: string): number => Number(/session ID (\d+)/.exec(text)?.[1] ?? NaN);

describe('exec_command with pipes', () => {
  it('answers a command that exits at once with its exit code and output, without waiting the yield', async () => {
    const started = Date.now();
    const out = await call(execTool, { cmd: 'echo hello; echo oops >&2; exit 3' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(out).toMatch(/Process exited with code 3/);
    expect(out).toMatch(/Output:\n[\s\S]*hello/);
    expect(out).toContain('oops');
    expect(manager.runningCount()).toBe(0);
  });

  it('answers an interactive prompt (read -p) typed with write_stdin', async () => {
    const first = await call(execTool, { cmd: 'read -p "name? " name; echo "hello $name"', yield_time_ms: 500 });
    expect(first).toMatch(/Process running with session ID \d+/);
    const id = sessionOf(first);
    const second = await call(writeTool, { session_id: id, chars: 'bob\n', yield_time_ms: 2_000 });
    expect(second).toContain('hello bob');
    expect(second).toMatch(/Process exited with code 0/);
    // Reported once: the session is then gone, and the model is told so clearly.
    const third = await call(writeTool, { session_id: id, chars: 'x' });
    expect(third).toMatch(/^error: no exec session \d+ is running/);
  });

  it('keeps a background command running across calls and stops it', async () => {
    const pids = dir.file('pids');
    const first = await call(execTool, { cmd: `echo $$ > ${pids}; sleep 600`, yield_time_ms: 250 });
    const id = sessionOf(first);
    const [pid = 0] = await waitForPids(pids, 1);
    expect(isAlive(pid)).toBe(true);
    expect(manager.list().map((s) => s.id)).toContain(id);
    expect(await manager.stop(id)).toBe(true);
    expect(await waitFor(() => !isAlive(pid), 2_000)).toBe(true);
    const after = await call(writeTool, { session_id: id, chars: '' });
    expect(after).toMatch(/Process was stopped/);
  });

  it('clamps yield_time_ms, rejects bad arguments and unknown sessions with clear answers', async () => {
    const started = Date.now();
    const out = await call(execTool, { cmd: 'sleep 5', yield_time_ms: 1 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(out).toMatch(/session ID/);
    expect(await call(execTool, { cmd: '' })).toMatch(/"cmd" must be a non-empty string/);
    expect(await call(execTool, { cmd: 'true', yield_time_ms: 'soon' })).toMatch(/"yield_time_ms" must be a number/);
    expect(await call(writeTool, { session_id: 'abc' })).toMatch(/"session_id" must be the number/);
    expect(await call(writeTool, { session_id: 424242, chars: 'hi' })).toMatch(/no exec session 424242 is running.*never restarted/);
  });

  it('makes an empty poll wait at least 5 s unless the session ends', async () => {
    const first = await call(execTool, { cmd: 'sleep 0.8; echo done', yield_time_ms: 250 });
    const started = Date.now();
    const polled = await call(writeTool, { session_id: sessionOf(first), chars: '' });
    expect(polled).toContain('done');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('makes an empty poll of a running session wait at least 5 s, whatever yield it asks for', async () => {
    const first = await call(execTool, { cmd: 'sleep 600', yield_time_ms: 250 });
    const started = performance.now();
    const polled = await call(writeTool, { session_id: sessionOf(first), chars: '', yield_time_ms: 250 });
    // A behavioural floor (the poll is held back), not a speed measurement.
    expect(performance.now() - started).toBeGreaterThanOrEqual(5_000);
    expect(polled).toMatch(/Process running with session ID/);
  }, 10_000);

  it('closes stdin on "\\u0004" (Ctrl-D), so a program reading to the end of input finishes', async () => {
    const first = await call(execTool, { cmd: 'wc -c', yield_time_ms: 250 });
    expect(first).toMatch(/Process running with session ID/);
    const out = await call(writeTool, { session_id: sessionOf(first), chars: 'abc\u0004', yield_time_ms: 2_000 });
    expect(out).toMatch(/Process exited with code 0/);
    // Three bytes: the Ctrl-D ended the input and was not itself written.
    expect(out).toMatch(/Output:\n\s*3\s*$/);
  });

  it('answers random bytes with a note of their size, not replacement characters and raw control bytes', async () => {
    const out = await call(execTool, { cmd: 'head -c 4096 /dev/urandom' });
    expect(out).toMatch(/Process exited with code 0/);
    expect(out).toContain('[binary output: 4096 bytes not shown]');
    expect(out).not.toMatch(/[\u0000\u001b\uFFFD]/);
  });

  it('redacts the key from output and refuses escalation with a clear answer', async () => {
    const out = await call(execTool, { cmd: 'echo sk-test-secret-key' });
    expect(out).toContain('[REDACTED]');
    expect(out).not.toContain('sk-test-secret-key');
    expect(await call(execTool, { cmd: 'true', sandbox_permissions: 'require_escalated', justification: 'why?' })).toMatch(
      /^error: escalation is not available here/,
    );
  });

  it('does not end the session when the turn is interrupted (Ctrl-C stops the turn, not the session)', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const out = await call(execTool, { cmd: 'sleep 600' }, ctx(ac.signal));
    expect(out).toMatch(/session ID/);
    expect(out).toMatch(/the session keeps running/);
    expect(manager.runningCount()).toBe(1);
  });

  it('keeps a flood of output bounded and says how much was dropped', async () => {
    const first = await call(execTool, { cmd: 'head -c 50000000 /dev/zero | tr "\\0" a; echo; echo END', yield_time_ms: 20_000, max_output_tokens: 100 });
    expect(first).toMatch(/Process exited with code 0/);
    expect(first).toMatch(/Note: \d+ bytes from the middle of the output were dropped/);
    expect(first).toContain('END');
    expect(first.length).toBeLessThan(2_000);
  }, 30_000);

  it('leaves no descriptor open once sessions have ended (pipes come in batches of 8)', async () => {
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const eight = async (): Promise<void> => {
      for (let i = 0; i < 8; i++) expect(await call(execTool, { cmd: 'echo done' })).toMatch(/Process exited with code 0/);
    };
    await eight();
    const after8 = fds();
    await eight();
    expect(fds()).toBe(after8);
  });

  it('refuses a 65th session', async () => {
    const big = new ExecManager({ graceMs: 100 });
    try {
      for (let i = 0; i < 64; i++)
        expect((await big.start({ command: 'sleep 60', argv: ['/bin/sh', '-c', 'exec sleep 60'], cwd: dir.path, env: process.env, tty: false })).ok).toBe(true);
      const extra = await big.start({ command: 'sleep 60', argv: ['sleep', '60'], cwd: dir.path, env: process.env, tty: false });
      expect(extra.ok ? '' : extra.error).toMatch(/too many exec sessions: 64/);
    } finally {
      await big.stopAll();
      big.killAllNow();
    }
  }, 30_000);
});

describe('after a crash', () => {
  it('never starts again an exec_command that was journaled started when agentx died', async () => {
    const marker = dir.file('ran');
    const c = { ...ctx(), retry: true };
    const out = await call(execTool, { cmd: `touch ${marker}` }, c);
    expect(out).toMatch(/^error: agentx stopped while this command was being started.*not started again/);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(marker)).toBe(false);
    expect(manager.runningCount()).toBe(0);
  });
});

describe('exec_command with a PTY', () => {
  it('drives a Python REPL: print(6*7) typed with write_stdin answers 42', async () => {
    const first = await call(execTool, { cmd: 'python3 -i -q', tty: true, yield_time_ms: 1_500 });
    const id = sessionOf(first);
    expect(Number.isInteger(id)).toBe(true);
    const answer = await call(writeTool, { session_id: id, chars: 'print(6*7)\n', yield_time_ms: 1_500 });
    expect(answer).toMatch(/^42\r?$/m);
    const bye = await call(writeTool, { session_id: id, chars: '\u0004', yield_time_ms: 3_000 });
    expect(bye).toMatch(/Process exited with code 0/);
  }, 15_000);

  it('interrupts the foreground program with \\u0003', async () => {
    const script = 'import time\ntry:\n    print("ready", flush=True); time.sleep(600)\nexcept KeyboardInterrupt:\n    print("interrupted", flush=True)\n';
    const first = await call(execTool, { cmd: `python3 -c '${script}'`, tty: true, yield_time_ms: 1_500 });
    // On a loaded machine python may take longer than the yield to start: poll until it is ready.
    let seen = first;
    for (let i = 0; i < 4 && !seen.includes('ready'); i++) seen = await call(writeTool, { session_id: sessionOf(first), chars: '' });
    expect(seen).toContain('ready');
    const after = await call(writeTool, { session_id: sessionOf(first), chars: '\u0003', yield_time_ms: 3_000 });
    expect(after).toContain('interrupted');
    // The program caught it; the shell around it may die of the same SIGINT.
    expect(after).toMatch(/Process (exited with code 0|was killed by SIGINT)/);
  }, 40_000);

  it('keeps a session whose process closed its PTY but runs on, until it exits or is stopped', async () => {
    const pids = dir.file('pty-pids');
    // Closes every descriptor on the terminal, keeps running, then exits with a code of its own.
    const closing = `echo before-close; echo $$ > ${pids}; exec </dev/null >/dev/null 2>&1; sleep 2; exit 4`;
    const first = await call(execTool, { cmd: closing, tty: true, yield_time_ms: 1_000 });
    expect(first).toContain('before-close');
    expect(first).toMatch(/Process running with session ID \d+/);
    const [pid = 0] = await waitForPids(pids, 1);
    expect(isAlive(pid)).toBe(true);
    expect(manager.list().map((s) => s.id)).toContain(sessionOf(first));
    const end = await call(writeTool, { session_id: sessionOf(first), chars: '', yield_time_ms: 10_000 });
    expect(end).toMatch(/Process exited with code 4/);
    // One that never exits is stopped like any other, its process gone.
    const stays = await call(execTool, { cmd: `echo $$ > ${pids}-2; exec </dev/null >/dev/null 2>&1; sleep 600`, tty: true, yield_time_ms: 500 });
    const [stayPid = 0] = await waitForPids(`${pids}-2`, 1);
    expect(stays).toMatch(/Process running with session ID \d+/);
    expect(await manager.stop(sessionOf(stays))).toBe(true);
    expect(await waitFor(() => !isAlive(stayPid), 3_000)).toBe(true);
  }, 30_000);

  it('is a terminal for the command', async () => {
    const out = await call(execTool, { cmd: 'test -t 0 && test -t 1 && echo is-a-tty', tty: true, yield_time_ms: 3_000 });
    expect(out).toContain('is-a-tty');
    const piped = await call(execTool, { cmd: 'test -t 0 || echo not-a-tty' });
    expect(piped).toContain('not-a-tty');
  }, 15_000);
});

describe('write_stdin in plan mode', () => {
  // The same manager, as in agentx (one per process): the plan-mode pair sees sessions started before.
  const [planExec, planWrite] = createExecTools({
    manager,
    planMode: true,
    launch: (command) => Promise.resolve({ ok: true, argv: ['/bin/sh', '-c', command], env: process.env, readOnly: true }),
    redact: (t) => t,
  }) as [Tool, Tool];

  it('types nothing into a session started outside the read-only sandbox (polling still reads it); a read-only one is typed into', async () => {
    // A shell reading its input (what was typed would run at once), ended by `timeout` after 3 s:
    // the empty poll then answers when it ends instead of waiting out the 5 s floor of a poll.
    const before = sessionOf(await call(execTool, { cmd: 'timeout 3 sh', yield_time_ms: 100 }));
    const refused = await call(planWrite, { session_id: before, chars: `touch ${dir.file('y')}\n`, yield_time_ms: 300 });
    expect(refused).toMatch(/^error: nothing was typed into exec session \d+: it was started before plan mode/);
    expect(await call(planWrite, { session_id: before, chars: '' })).toMatch(/Process exited with code 124/);
    expect(existsSync(dir.file('y'))).toBe(false);
    const planned = sessionOf(await call(planExec, { cmd: 'cat', yield_time_ms: 100 }));
    expect(await call(planWrite, { session_id: planned, chars: 'echoed\n', yield_time_ms: 300 })).toContain('echoed');
  });
});
