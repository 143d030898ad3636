// Progress of slow MCP calls, end to end: the built CLI against the emulator, which asks for a
// tool of a real stdio MCP server (servers/tools.mjs) that sends `notifications/progress`. The
// reports become throttled `tool_progress` events (a flood stays a handful of lines, the last
// state is shown, hostile text never reaches the output raw), and a call that keeps reporting
// outlives the tool timeout but not the total cap.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from '../e2e/harness.ts';
import { readMarks, STDIO_SERVER } from './helpers.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

function withServer(entry: Record<string, unknown> = {}): Sandbox {
  const box = sandbox(emu.baseUrl, { MCP_TEST_MARK_DIR: '' });
  box.env.MCP_TEST_MARK_DIR = box.cwd;
  mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
  writeFileSync(
    join(box.home, '.config', 'agentx', 'mcp.json'),
    JSON.stringify({ mcpServers: { kit: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'kit', 'progress,ticker,slow'], ...entry } } }),
  );
  return box;
}

type Event = { type: string; [k: string]: unknown };
const events = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Event);

/** Runs one --json turn in which the model calls `tool` with `args` once. */
async function callOnce(
  box: Sandbox,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ code: number | null; stdout: string; stderr: string; events: Event[] }> {
  emu.enqueue({ kind: 'function', name: `mcp__kit__${tool}`, arguments: JSON.stringify(args) }, { kind: 'text', text: 'done' });
  const r = await runCli(['--json', `call ${tool}`], { cwd: box.cwd, env: box.env, timeoutMs: 60_000 });
  return { ...r, events: events(r.stdout) };
}

describe('progress of MCP calls', () => {
  it('a flood of 500 reports becomes a few tool_progress lines with the last state, hostile text and nonsense numbers left out', async () => {
    const box = withServer();
    const r = await callOnce(box, 'progress', { count: 500 });
    expect(r.code).toBe(0);
    expect(readMarks(box.cwd)).toContain('progress-token present');
    const callId = r.events.find((e) => e.type === 'tool_call')?.call_id;
    const progress = r.events.filter((e) => e.type === 'tool_progress');
    const done = r.events.find((e) => e.type === 'mcp_call');
    expect(done).toMatchObject({ status: 'ok', tool: 'progress' });
    // One at once, one a second at most after it, and the waiting one before the result.
    const seconds = Number(done?.duration_ms) / 1000;
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    for (const p of progress) expect(p).toMatchObject({ call_id: callId, tool: 'kit.progress' });
    expect(progress.at(-1)?.message).toBe('500/500 — all done red');
    // The progress lines come before the call's result, none after it.
    const order = r.events.map((e) => e.type);
    expect(order.lastIndexOf('tool_progress')).toBeLessThan(order.indexOf('mcp_call'));
    // Escape sequences were removed (not merely JSON-escaped), nonsense reports ignored.
    expect(r.stdout).not.toMatch(/\x1b|\\u001b|pwned|nonsense|-1\//);
  });

  it('in the terminal the progress line is shown sanitised, with no escape from the server', async () => {
    const box = withServer();
    emu.enqueue({ kind: 'function', name: 'mcp__kit__progress', arguments: JSON.stringify({ count: 200 }) }, { kind: 'text', text: 'done' });
    const r = await runCli(['call progress'], { cwd: box.cwd, env: box.env, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('kit.progress: 200/200 — all done red');
    expect(r.stderr).not.toMatch(/\x1b\]|\x1b\[2J|pwned/);
  });

  it('a call that keeps reporting progress outlives the tool timeout; a silent one does not', async () => {
    const box = withServer({ toolTimeoutMs: 1000, toolTotalTimeoutMs: 6000 });
    const alive = await callOnce(box, 'ticker', { everyMs: 300, forMs: 2500 });
    expect(alive.events.find((e) => e.type === 'mcp_call')).toMatchObject({ status: 'ok' });
    expect(readMarks(box.cwd).some((m) => m.startsWith('ticker-done'))).toBe(true);
    expect(alive.events.filter((e) => e.type === 'tool_progress').length).toBeGreaterThanOrEqual(2);

    const silent = await callOnce(box, 'slow', { ms: 30_000 });
    const done = silent.events.find((e) => e.type === 'mcp_call');
    expect(done).toMatchObject({ status: 'timeout' });
    expect(Number(done?.duration_ms)).toBeLessThan(2500);
  });

  it('a call that reports progress forever ends at the total cap, and the server is told to cancel', async () => {
    const box = withServer({ toolTimeoutMs: 1000, toolTotalTimeoutMs: 3000 });
    const n = emu.requests.length;
    const r = await callOnce(box, 'ticker', { everyMs: 300, forMs: 60_000 });
    const done = r.events.find((e) => e.type === 'mcp_call');
    expect(done).toMatchObject({ status: 'timeout' });
    expect(Number(done?.duration_ms)).toBeGreaterThanOrEqual(3000);
    expect(Number(done?.duration_ms)).toBeLessThan(8000);
    const sent = emu.requests.slice(n).map((q) => q.body as { input?: { type?: string; output?: string }[] });
    const output = sent.flatMap((b) => b.input ?? []).find((i) => i.type === 'function_call_output')?.output;
    expect(output).toMatch(/still running after 3 s, the most a call may take however much progress it reports; the server was asked to cancel the call/);
    // The cancellation reached the server (it marks it when its request's signal aborts).
    const cancelled = await (async () => {
      for (let i = 0; i < 50; i++) {
        const m = readMarks(box.cwd).find((l) => l.startsWith('ticker-cancelled'));
        if (m) return m;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return undefined;
    })();
    expect(cancelled).toBeDefined();
  });
});
