// Ctrl-C in a real pty: during a streaming answer, during a model command, during a !command.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { body, prompt, readState, toolOutputs, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

/**
 * Processes running `marker` (the test's own commands are unique). The supervisor's watcher,
 * which outlives the command by the kill grace period, is not the command.
 */
function processesWith(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(marker) && !l.includes('agentx-supervisor'));
}

describe('Ctrl-C', () => {
  it('cancels a streaming answer: nothing enters history, the message is kept, the model is told', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    await turn(a, 'first', 'You said: first');
    const before = readState(sb);
    suite.emu.enqueue({ kind: 'text', text: 'slowly streaming words that never finish here', chunks: 8, delayMs: 500 });
    a.line('tell me a long story');
    await a.waitFor('slowly');
    a.write(KEY.ctrlC);
    await a.waitFor('interrupted');
    await prompt(a);
    const after = readState(sb);
    expect(after.history).toHaveLength(1);
    expect(after.response_id).toBe(before.response_id);
    expect(after.usage).toEqual(before.usage);
    expect(after.interrupted_turn?.user_message).toBe('tell me a long story');
    // ↑ brings the message back.
    a.write(KEY.up);
    await a.waitFor('tell me a long story');
    a.write('\x15'); // Ctrl-U: clear the recalled line
    const n = suite.emu.requests.length;
    await turn(a, 'and now?', 'You said: ');
    const req = suite.emu.requests[n];
    expect(body(req).previous_response_id).toBe(before.response_id);
    expect(userText(req)).toContain('interrupted your previous turn');
    expect(userText(req)).toContain('tell me a long story');
    expect(readState(sb).interrupted_turn).toBeNull();
  });

  it('stops a running model command (only it), then the next request answers the call', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const marker = `sleep 29.${process.pid % 1000}1`;
    a.line(`run: ${marker}`);
    await a.waitFor(`$ ${marker}`);
    await expect.poll(() => processesWith(marker).length, { timeout: 5000 }).toBeGreaterThan(0);
    a.write(KEY.ctrlC);
    await a.waitFor('interrupted');
    await prompt(a, 5000);
    expect(processesWith(marker)).toEqual([]);
    const s = readState(sb);
    expect(s.pending_tool_calls).toHaveLength(1);
    expect(s.pending_tool_calls[0]?.status).toBe('completed');
    const n = suite.emu.requests.length;
    await turn(a, 'ok, forget it', 'Ran it');
    const req = suite.emu.requests[n];
    expect(toolOutputs(req)).toHaveLength(1);
    expect(JSON.stringify(toolOutputs(req)[0]?.output)).toContain('interrupted by the user');
    expect(userText(req)).toContain('interrupted your previous turn');
    expect(readState(sb).pending_tool_calls).toHaveLength(0);
  });

  it('Ctrl-T stops a model command too', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const marker = `sleep 28.${process.pid % 1000}2`;
    a.line(`run: ${marker}`);
    await a.waitFor(`$ ${marker}`);
    await expect.poll(() => processesWith(marker).length, { timeout: 5000 }).toBeGreaterThan(0);
    a.write(KEY.ctrlT);
    await a.waitFor('interrupted');
    await prompt(a, 5000);
    expect(processesWith(marker)).toEqual([]);
  });

  it('stops a !command and records it for the model', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const marker = `sleep 27.${process.pid % 1000}3`;
    a.line(`!echo started; ${marker}`);
    await a.waitFor('started');
    await expect.poll(() => processesWith(marker).length, { timeout: 5000 }).toBeGreaterThan(0);
    a.write(KEY.ctrlC);
    await a.waitFor('interrupted');
    await prompt(a, 5000);
    expect(processesWith(marker)).toEqual([]);
    const cli = readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8');
    expect(cli).toContain('interrupted by the user');
    const n = suite.emu.requests.length;
    await turn(a, 'saw that?', 'You said: ');
    expect(userText(suite.emu.requests[n])).toContain(`$ echo started; ${marker}`);
  });
});
