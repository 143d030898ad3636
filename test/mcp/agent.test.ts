// MCP tools as ordinary tools, end to end: the built CLI against the emulator, with a real stdio
// MCP server configured by the person. The model calls an MCP tool; it runs once, journaled, and
// its output goes back to the model; --json reports it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from '../e2e/harness.ts';
import { readMarks, RED_PNG, STDIO_SERVER } from './helpers.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

function withServer(): Sandbox {
  const box = sandbox(emu.baseUrl, { MCP_TEST_MARK_DIR: '' });
  box.env.MCP_TEST_MARK_DIR = box.cwd;
  mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
  writeFileSync(
    join(box.home, '.config', 'agentx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        kit: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'kit', 'echo,add,fail'] },
      },
    }),
  );
  return box;
}

const lines = (stdout: string): { type: string; [k: string]: unknown }[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });

describe('MCP tools in a session', () => {
  it('a chain the server forgets after an MCP call: the call ran once and the replay carries it and its output (issue 22)', async () => {
    const box = withServer();
    const n = emu.requests.length;
    emu.enqueue(
      { kind: 'function', name: 'mcp__kit__echo', arguments: JSON.stringify({ text: 'once' }) },
      { kind: 'forget' },
      { kind: 'text', text: 'echoed' },
    );
    const r = await runCli(['echo once'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.stderr).toMatch(/resending the conversation from the local log/);
    expect(r).toMatchObject({ code: 0, stdout: 'echoed\n' });
    expect(readMarks(box.cwd).filter((m) => m.startsWith('called echo'))).toEqual(['called echo once']);
    const sent = emu.requests.slice(n).filter((q) => q.path === '/v1/responses');
    expect(sent.map((q) => q.status)).toEqual([200, 400, 200]);
    const replay = (sent[2]?.body as { input: { type?: string; output?: string }[] }).input;
    // The person's message (and the environment context, when the session sends one), then the call and its output.
    const types = replay.map((i) => i.type);
    expect(types.slice(-2)).toEqual(['function_call', 'function_call_output']);
    expect(types.slice(0, -2).every((t) => t === 'message')).toBe(true);
    expect(replay.at(-1)?.output).toContain('once');
  });

  it('an image from an MCP tool reaches the model as input_image inside the function_call_output, also when the chain is replayed', async () => {
    const box = sandbox(emu.baseUrl, {});
    mkdirSync(join(box.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(
      join(box.home, '.config', 'agentx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          kit: { command: process.execPath, args: [STDIO_SERVER, 'serve', 'kit', 'photo'] },
        },
      }),
    );
    const n = emu.requests.length;
    emu.enqueue({ kind: 'function', name: 'mcp__kit__photo', arguments: '{}' }, { kind: 'forget' }, { kind: 'text', text: 'a red square' });
    const r = await runCli(['look at the photo'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r).toMatchObject({ code: 0, stdout: 'a red square\n' });
    const sent = emu.requests.slice(n).filter((q) => q.path === '/v1/responses');
    expect(sent.map((q) => q.status)).toEqual([200, 400, 200]);
    for (const q of [sent[1], sent[2]]) {
      const input = (q?.body as { input: { type?: string; output?: unknown }[] }).input;
      const output = input.find((i) => i.type === 'function_call_output')?.output;
      expect(output).toEqual([
        { type: 'input_text', text: 'a red square\n[image image/png, 73 bytes: image 1, attached]\n[audio audio/wav, 4 bytes: not shown]' },
        { type: 'input_image', image_url: `data:image/png;base64,${RED_PNG}`, detail: 'auto' },
      ]);
    }
  });

  it('offers the tools, runs a call once and sends its output back; --json has the call', async () => {
    const box = withServer();
    const n = emu.requests.length;
    emu.enqueue({ kind: 'function', name: 'mcp__kit__add', arguments: JSON.stringify({ a: 2, b: 40 }) });
    const r = await runCli(['--json', 'add two numbers'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    const sent = emu.requests.slice(n).map((q) => q.body as { tools: { name?: string }[]; input: { type: string; output?: string }[] });
    expect(sent[0]?.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__kit__add', 'mcp__kit__echo', 'mcp__kit__fail']));
    const output = sent[1]?.input.find((i) => i.type === 'function_call_output');
    expect(output?.output).toContain('42');
    const events = lines(r.stdout);
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_call', tool: 'mcp' }));
    expect(events.find((e) => e.type === 'tool_call')?.title).toMatch(/kit/);
    expect(events).toContainEqual(expect.objectContaining({ type: 'mcp_call', server: 'kit', tool: 'add', status: 'ok', is_error: false }));
    // The server was started for this one-shot and is gone after it.
    expect(readMarks(box.cwd).filter((m) => m.startsWith('server-pid kit'))).toHaveLength(1);
  });

  it('a tool error is an output for the model, not a failure of the turn', async () => {
    const box = withServer();
    emu.enqueue({ kind: 'function', name: 'mcp__kit__fail', arguments: '{}' });
    const r = await runCli(['--json', 'try the failing tool'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toContainEqual(expect.objectContaining({ type: 'mcp_call', tool: 'fail', is_error: true }));
  });

  it('an unapproved project .mcp.json starts nothing in a one-shot and says so in one line', async () => {
    const box = sandbox(emu.baseUrl);
    writeFileSync(join(box.cwd, '.mcp.json'), JSON.stringify({ mcpServers: { proj: { command: 'touch', args: ['started'] } } }));
    const r = await runCli(['hello'], { cwd: box.cwd, env: box.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^agentx: mcp: .*\.mcp\.json is not approved; its servers \(proj\) are not started/m);
    expect(r.stderr.split('\n').filter((l) => l.includes('mcp'))).toHaveLength(1);
  });
});
