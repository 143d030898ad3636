// The conversation log is the source of truth (issue 22): when the server forgets a response
// after a command ran, or stores nothing at all, agentx resends the conversation from its log —
// the calls and their outputs included — so nothing runs twice and the turn ends with the
// model's answer. Real CLI processes against the emulator over HTTP+SSE, real files, real bwrap.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import type { LoggedRequest } from '../emulator/wire.ts';
import { conversationLogPath } from '../../src/paths.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  emu.setStateless(false);
  emu.clearQueue();
  box = sandbox(emu.baseUrl);
});

type Body = { input?: unknown[]; previous_response_id?: string; store?: boolean; include?: string[]; prompt_cache_key?: string };
const bodyOf = (r: LoggedRequest): Body => r.body as Body;
const responses = (from: number): LoggedRequest[] => emu.requests.filter((r) => r.path === '/v1/responses' && r.seq > from);
const lastSeq = (): number => emu.requests.at(-1)?.seq ?? 0;
const runs = (file: string): number =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;
const types = (body: Body): string[] => (body.input ?? []).map((i) => String((i as { type?: unknown }).type));

describe('a chain lost after a command ran', () => {
  it('one-shot: the command ran once, the conversation is resent from the log and the turn ends with the answer', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo ran >> count.txt'] }, { kind: 'forget' }, { kind: 'text', text: 'all done' });
    const from = lastSeq();
    const r = await runCli(['count it'], box);
    expect(r.stderr).toMatch(/resending the conversation from the local log/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('all done\n');
    expect(runs(join(box.cwd, 'count.txt'))).toBe(1);
    const sent = responses(from);
    expect(sent.map((q) => q.status)).toEqual([200, 400, 200]);
    expect(sent[1]?.error?.code).toBe('previous_response_not_found');
    // The replay: no chain, the environment context and the person's message, the call and its output, in order.
    const replay = bodyOf(sent[2]!);
    expect(replay.previous_response_id).toBeUndefined();
    expect(types(replay)).toEqual(['message', 'message', 'shell_call', 'shell_call_output']);
    expect(JSON.stringify(replay.input)).toContain('count it');
    // One prompt cache key for the whole conversation, chained or replayed.
    const keys = new Set(sent.map((q) => bodyOf(q).prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^agentx-[0-9a-f]{16}$/);
  });

  it('one-shot: a chain lost more often than the bound (2 new chains a turn) ends with exit 1 and one line saying so; each command ran once', async () => {
    emu.enqueue(
      { kind: 'shell', commands: ['echo a >> c.txt'] },
      { kind: 'forget' },
      { kind: 'shell', commands: ['echo b >> c.txt'] },
      { kind: 'forget' },
      { kind: 'shell', commands: ['echo c >> c.txt'] },
      { kind: 'forget' },
      { kind: 'text', text: 'never' },
    );
    const from = lastSeq();
    const r = await runCli(['go'], { cwd: box.cwd, env: { ...box.env, AGENTX_STORE: 'on' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const failures = r.stderr.split('\n').filter((l) => l.startsWith('agentx:'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^agentx: request failed: the server lost the conversation 3 times in this turn \(at most 2 new chains a turn\); state kept in .*\.agentx_responseid\.oneshot-/,
    );
    expect(readFileSync(join(box.cwd, 'c.txt'), 'utf8')).toBe('a\nb\nc\n');
    expect(responses(from).map((q) => q.status)).toEqual([200, 400, 200, 400, 200, 400]);
  });

  it('--json: the same, with a chain_restarted event that says the replay was exact', async () => {
    emu.enqueue({ kind: 'shell', commands: ['echo ran >> count.txt'] }, { kind: 'forget' }, { kind: 'text', text: 'json done' });
    const r = await runCli(['--json', 'count it'], box);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; exact?: boolean; text?: string });
    expect(events.find((e) => e.type === 'chain_restarted')?.exact).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'final', text: 'json done' });
    expect(runs(join(box.cwd, 'count.txt'))).toBe(1);
  });

  it('parallel calls: each ran once and the replay carries both calls and both outputs', async () => {
    emu.enqueue(
      { kind: 'calls', calls: [{ commands: ['echo a >> a.txt'] }, { commands: ['echo b >> b.txt'] }] },
      { kind: 'forget' },
      { kind: 'text', text: 'both done' },
    );
    const from = lastSeq();
    const r = await runCli(['two things'], box);
    expect(r.code).toBe(0);
    expect(runs(join(box.cwd, 'a.txt'))).toBe(1);
    expect(runs(join(box.cwd, 'b.txt'))).toBe(1);
    expect(types(bodyOf(responses(from)[2]!))).toEqual(['message', 'message', 'shell_call', 'shell_call', 'shell_call_output', 'shell_call_output']);
  });

  it('apply_patch: applied once, the replay carries the patch call and its output', async () => {
    emu.enqueue(
      { kind: 'patch', patch: '*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n' },
      { kind: 'forget' },
      { kind: 'text', text: 'patched' },
    );
    const from = lastSeq();
    const r = await runCli(['add notes'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('patched\n');
    expect(readFileSync(join(box.cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect(types(bodyOf(responses(from)[2]!))).toEqual(['message', 'message', 'apply_patch_call', 'apply_patch_call_output']);
  });

  it('a log that cannot be written: the answer is not acted on (no command runs), one line, exit 1', async () => {
    // The private store's conversations directory is a file: every append fails, like a full disk.
    mkdirSync(join(box.home, '.local', 'state', 'agentx'), { recursive: true });
    writeFileSync(join(box.home, '.local', 'state', 'agentx', 'conversations'), 'not a directory');
    emu.enqueue({ kind: 'shell', commands: ['echo ran >> count.txt'] });
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/could not write the conversation log .*no tool call ran/);
    expect(runs(join(box.cwd, 'count.txt'))).toBe(0);
  });
});

describe('a server that stores nothing', () => {
  it('is detected at the first refused chain, remembered, and later one-shots replay with store:false', async () => {
    emu.setStateless(true);
    const from = lastSeq();
    for (let i = 1; i <= 3; i++) {
      emu.enqueue({ kind: 'shell', commands: [`echo ${i} >> count.txt`] }, { kind: 'text', text: `turn ${i} done` });
      const r = await runCli([`turn ${i}`], box);
      expect(r.stdout, r.stderr).toBe(`turn ${i} done\n`);
      expect(r.code).toBe(0);
    }
    expect(readFileSync(join(box.cwd, 'count.txt'), 'utf8')).toBe('1\n2\n3\n');
    const sent = responses(from);
    // One refused request in all: the first chain; from then on every request carries the conversation.
    expect(sent.filter((q) => q.status !== 200)).toHaveLength(1);
    const after = sent.slice(sent.findIndex((q) => q.status !== 200) + 1);
    expect(after.every((q) => bodyOf(q).store === false && bodyOf(q).previous_response_id === undefined)).toBe(true);
    // The last request of each one-shot carries its message, the call and its output (the emulator checks every call is answered).
    expect(types(bodyOf(sent.at(-1)!))).toEqual(['message', 'message', 'shell_call', 'shell_call_output']);
    expect(JSON.stringify(bodyOf(sent.at(-1)!).input)).toContain('echo 3 >> count.txt');
  });

  it('AGENTX_STORE=off never chains: no refused request at all', async () => {
    emu.setStateless(true);
    const from = lastSeq();
    emu.enqueue({ kind: 'shell', commands: ['echo x >> count.txt'] }, { kind: 'text', text: 'off done' });
    const r = await runCli(['go'], { cwd: box.cwd, env: { ...box.env, AGENTX_STORE: 'off' } });
    expect(r.code).toBe(0);
    expect(runs(join(box.cwd, 'count.txt'))).toBe(1);
    const sent = responses(from);
    expect(sent.map((q) => q.status)).toEqual([200, 200]);
    expect(sent.every((q) => bodyOf(q).store === false)).toBe(true);
  });

  it('a bad AGENTX_STORE is one clear line', async () => {
    const r = await runCli(['go'], { cwd: box.cwd, env: { ...box.env, AGENTX_STORE: 'maybe' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/AGENTX_STORE must be on, off or auto/);
  });
});

/** The project's conversation log, with a last line a crash cut short (no newline, no valid checksum). */
function tearLogTail(sb: Sandbox): void {
  appendFileSync(conversationLogPath(sb.env, sb.home, sb.cwd), '0123456789abcdef {"prev":null,"response_id":"resp_cut');
}

describe('a torn log tail (one log per session: the store and the engine share it)', () => {
  it('--json: repaired and said once, as a context_notice line; nothing on stderr', async () => {
    emu.enqueue({ kind: 'text', text: 'first' });
    expect((await runCli(['start'], box)).code).toBe(0);
    tearLogTail(box);
    emu.enqueue({ kind: 'shell', commands: ['echo ran >> count.txt'] }, { kind: 'text', text: 'json done' });
    const r = await runCli(['--json', 'count it'], box);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message?: string });
    const repaired = events.filter((e) => /damaged record/.test(JSON.stringify(e)));
    expect(repaired).toHaveLength(1);
    expect(repaired[0]).toMatchObject({
      type: 'context_notice',
      message: expect.stringMatching(/had 1 damaged record .*repaired to its last good record/) as unknown,
    });
    expect(r.stderr).not.toMatch(/damaged record/);
    expect(readFileSync(conversationLogPath(box.env, box.home, box.cwd), 'utf8')).not.toContain('resp_cut');
    expect(runs(join(box.cwd, 'count.txt'))).toBe(1);
  });
});
