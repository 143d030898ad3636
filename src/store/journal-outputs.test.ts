import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationLog, LogWriteError, outputRecordId } from './log/conversation-log.ts';
import { JournalOutputs } from './journal-outputs.ts';
import { SessionStore } from './session-store.ts';
import { emptyState, MAX_STATE_FILE_BYTES, recordFailure, recordToolCalls, recordTurn, rollbackTo, undoRollback, type SessionState } from './state.ts';
import { markToolCall } from '../engine/journal.ts';
import { loadState, saveState, STATE_FILE } from './store.ts';
import type { ToolOutputItem } from '../wire/items.ts';

let dir: string;
let logPath: string;
let statePath: string;
const warnings: string[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-journal-outputs-'));
  logPath = path.join(dir, 'private', 'conversations', 'project.log');
  statePath = path.join(dir, STATE_FILE);
  warnings.length = 0;
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = new Date('2026-01-02T03:04:05.000Z');
const BIG = 'x'.repeat(300 * 1024);

function output(callId: string, stdout: string): ToolOutputItem {
  return { type: 'shell_call_output', call_id: callId, output: [{ stdout, stderr: '', outcome: { type: 'exit', exit_code: 0 } }] };
}

function withCalls(ids: string[]): SessionState {
  return recordToolCalls(emptyState(), {
    responseId: 'resp_1',
    userMessage: 'run them',
    usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    calls: ids.map((id) => ({ call_id: id, type: 'shell_call' as const, action: { commands: [`echo ${id}`] }, status: 'pending' as const })),
  });
}

function store(initial: SessionState, log = new ConversationLog(logPath)): SessionStore {
  return new SessionStore({
    dir,
    path: statePath,
    initial,
    persistence: 'durable',
    publishesCheckpoint: false,
    warn: (m) => warnings.push(m),
    outputLog: log,
    now: () => NOW,
  });
}

/** The state file as the next start reads it, through a store with a fresh view of the log. */
function reopen(): SessionStore {
  const loaded = loadState(statePath, NOW);
  return store(loaded.state);
}

describe('completed tool outputs live in the conversation log; the state file points at them', () => {
  it('the file holds a pointer per completed call, not the output; the next start reads the outputs back', () => {
    const s = store(withCalls(['c1', 'c2']));
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.stage((st) => markToolCall(st, 'c1', 'completed', output('c1', BIG)));
    s.update((st) => markToolCall(st, 'c2', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c2', 'completed', output('c2', 'small')));
    // In memory, the journal still carries the outputs the engine resends.
    expect(s.state.pending_tool_calls[0]?.output).toEqual(output('c1', BIG));
    const onDisk = fs.readFileSync(statePath, 'utf8');
    expect(onDisk.length).toBeLessThan(4096);
    expect(onDisk).not.toContain('xxxxxxxxxx');
    expect(onDisk).toContain(outputRecordId('resp_1', 'c1'));
    const again = reopen();
    expect(again.state.pending_tool_calls.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(again.state.pending_tool_calls[0]?.output).toEqual(output('c1', BIG));
    expect(again.state.pending_tool_calls[1]?.output).toEqual(output('c2', 'small'));
    expect(again.state.pending_tool_calls[0]).not.toHaveProperty('output_log');
    expect(warnings).toEqual([]);
  });

  it('each output is appended once, however many later writes point at it', () => {
    const log = new ConversationLog(logPath);
    const s = store(withCalls(['c1', 'c2', 'c3']), log);
    for (const id of ['c1', 'c2', 'c3']) {
      s.update((st) => markToolCall(st, id, 'started'), { required: true });
      s.update((st) => markToolCall(st, id, 'completed', output(id, `${id} done`)));
    }
    expect(log.stats.appends).toBe(3);
  });

  it('kill -9 after the output reached the log and before the file said so: the call is completed at the next start, not run again and not lost', () => {
    const s = store(withCalls(['c1']));
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    // The write of the `completed` mark: its first half (the log append) happens, then the process dies.
    const completed = markToolCall(s.state, 'c1', 'completed', output('c1', 'ran once'));
    new JournalOutputs(new ConversationLog(logPath), true, () => NOW).toFile(completed);
    expect(loadState(statePath, NOW).state.pending_tool_calls[0]?.status).toBe('started');
    const again = reopen();
    expect(again.state.pending_tool_calls[0]).toMatchObject({ status: 'completed', output: output('c1', 'ran once') });
  });

  it('a pointer to an output the log no longer has leaves the call started (Retry only), said in one line', () => {
    const s = store(withCalls(['c1']));
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', 'gone')));
    fs.rmSync(logPath);
    const again = reopen();
    expect(again.state.pending_tool_calls[0]?.status).toBe('started');
    expect(again.state.pending_tool_calls[0]).not.toHaveProperty('output');
    expect(again.state.pending_tool_calls[0]).not.toHaveProperty('output_log');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/tool call c1 is not in the conversation log.*Retry/);
  });

  it('a rollback made mid-turn keeps the journal it left in the backup as pointers too; the undo gives the outputs back', () => {
    const done = recordTurn(emptyState(), {
      responseId: 'resp_0',
      userMessage: 'first',
      assistantMessage: 'ok',
      usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      now: NOW,
    });
    const midTurn = recordToolCalls(done, {
      responseId: 'resp_1',
      userMessage: 'run it',
      usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      calls: [{ call_id: 'c1', type: 'shell_call', action: { commands: ['make'] }, status: 'pending' }],
    });
    const s = store(midTurn);
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', BIG)));
    s.update((st) => rollbackTo(st, 1));
    expect(fs.readFileSync(statePath, 'utf8')).not.toContain('xxxxxxxxxx');
    const again = reopen();
    expect(undoRollback(again.state).pending_tool_calls[0]).toMatchObject({ status: 'completed', output: output('c1', BIG) });
  });

  it('an output recorded under another call id is not taken for this call', () => {
    const log = new ConversationLog(logPath);
    log.append({
      prev: 'resp_1',
      response_id: outputRecordId('resp_1', 'c1'),
      input: [output('c9', 'not yours')],
      output: [],
      stored: false,
      at: NOW.toISOString(),
    });
    const s = store(markToolCall(withCalls(['c1']), 'c1', 'started'));
    expect(s.state.pending_tool_calls[0]?.status).toBe('started');
  });

  it('a state file an earlier version wrote, with its outputs inline, still loads; the next write moves them to the log', () => {
    const older = markToolCall(markToolCall(withCalls(['c1']), 'c1', 'started'), 'c1', 'completed', output('c1', BIG));
    saveState(statePath, older, { durable: true });
    const s = reopen();
    expect(s.state.pending_tool_calls[0]).toMatchObject({ status: 'completed', output: output('c1', BIG) });
    s.flush();
    s.update((st) => ({ ...st, last_assistant_message: 'x' }));
    expect(fs.readFileSync(statePath, 'utf8')).not.toContain('xxxxxxxxxx');
    expect(reopen().state.pending_tool_calls[0]?.output).toEqual(output('c1', BIG));
  });

  it('when the log cannot be written, the output stays in the file: never lost to save bytes', () => {
    fs.mkdirSync(path.dirname(path.dirname(logPath)), { recursive: true });
    fs.writeFileSync(path.dirname(logPath), 'a file where the log directory should be');
    const s = store(withCalls(['c1']));
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', 'kept inline')));
    expect(fs.readFileSync(statePath, 'utf8')).toContain('kept inline');
    expect(loadState(statePath, NOW).state.pending_tool_calls[0]?.output).toEqual(output('c1', 'kept inline'));
  });

  it('a prune keeps the outputs of the responses it keeps', () => {
    const log = new ConversationLog(logPath, () => {}, { pruneAtBytes: 64 * 1024 });
    const s = store(withCalls(['c1']), log);
    log.append({ prev: null, response_id: 'resp_1', input: [], output: [], stored: true, at: NOW.toISOString() });
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', 'survives the prune')));
    // Old branches nothing needs any more, until the log passes its prune size.
    for (let i = 0; i < 80; i++) {
      log.append({
        prev: null,
        response_id: `old_${i}`,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'y'.repeat(2000) }] }],
        output: [],
        stored: true,
        at: new Date(NOW.getTime() - 1e6 + i).toISOString(),
      });
    }
    expect(log.stats.prunes ?? 0).toBeGreaterThan(0);
    // In the pruned log itself, not only in the archive the prune keeps beside it.
    fs.rmSync(log.archivePath, { force: true });
    expect(fs.statSync(logPath).size).toBeLessThan(64 * 1024);
    expect(new ConversationLog(logPath).findItem(outputRecordId('resp_1', 'c1'))).toEqual(output('c1', 'survives the prune'));
  });
});

describe('a failed request kept for Retry: its tool outputs and long messages live in the log too', () => {
  const longPaste = `please look at this log:\n${'L'.repeat(200 * 1024)}`;
  const pasted = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: longPaste }] };
  const short = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: 'and a short note' }] };

  /** The follow-up of a turn whose calls ran (c1 with a big output), failed: the retry data as turn.ts records it. */
  function failedFollowUp(s: SessionStore): void {
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', BIG)));
    s.update((st) =>
      recordFailure(st, {
        error: '500',
        input: [output('c1', BIG), pasted, short],
        previousResponseId: 'resp_1',
        userMessage: 'run them',
        now: NOW,
      }),
    );
  }

  it('the file holds pointers for the outputs and the long paste, the short message inline; the next start resends exactly the same request', () => {
    const s = store(withCalls(['c1']));
    failedFollowUp(s);
    const sent = s.state.pending_transaction?.input;
    const onDisk = fs.readFileSync(statePath, 'utf8');
    expect(onDisk.length).toBeLessThan(4096);
    expect(onDisk).not.toContain('xxxxxxxxxx');
    expect(onDisk).not.toContain('LLLLLLLLLL');
    expect(onDisk).toContain('and a short note');
    const again = reopen();
    expect(again.state.pending_transaction?.input).toEqual(sent);
    expect(again.state.pending_transaction).not.toHaveProperty('input_log');
    expect(again.state.failed_response?.error).toBe('500');
    expect(warnings).toEqual([]);
    // Read back, the items are known to be in the log: a later write appends nothing again.
    const log = new ConversationLog(logPath);
    const later = store(loadState(statePath, NOW).state, log);
    later.update((st) => ({ ...st, last_assistant_message: 'x' }));
    expect(log.stats.appends).toBe(0);
  });

  it('every tool output of the retry data is a pointer, however short (as in the journal); a message under 4 KiB stays in the file', () => {
    const s = store(withCalls(['c1']));
    const note = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: 'n'.repeat(3000) }] };
    s.update((st) => recordFailure(st, { error: '500', input: [output('c1', 'tiny'), note], previousResponseId: 'resp_1', userMessage: 'go', now: NOW }));
    const onDisk = fs.readFileSync(statePath, 'utf8');
    expect(onDisk).not.toContain('tiny');
    expect(onDisk).toContain('nnnnnnnnnn');
    expect(reopen().state.pending_transaction?.input).toEqual([output('c1', 'tiny'), note]);
  });

  it('each item is appended once, however many writes carry the retry data', () => {
    const log = new ConversationLog(logPath);
    const s = store(withCalls(['c1']), log);
    failedFollowUp(s);
    const appends = log.stats.appends;
    for (let i = 0; i < 3; i++) s.update((st) => ({ ...st, last_assistant_message: `write ${i}` }));
    expect(log.stats.appends).toBe(appends);
    // c1's journal output, then the retry data's output and long paste (the output again: it may differ from the journal's, trimmed or capped).
    expect(appends).toBe(3);
  });

  it('retry data whose item the log no longer has is dropped, said in one line; the calls are settled from their journal', () => {
    const s = store(withCalls(['c1']));
    failedFollowUp(s);
    fs.rmSync(logPath);
    const again = reopen();
    expect(again.state.pending_transaction).toBeNull();
    expect(again.state.failed_response).toBeNull();
    // The journal's own pointer is gone too: c1 may have run, so only the person's Retry runs it again.
    expect(again.state.pending_tool_calls[0]?.status).toBe('started');
    expect(warnings).toHaveLength(2);
    expect(warnings.some((w) => /failed request kept for Retry is not whole in the conversation log/.test(w))).toBe(true);
  });

  it('one item object carried by retry data after two different responses is pointed at under each one (the id names prev)', () => {
    const paste = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: 'p'.repeat(8 * 1024) }] };
    const outputs = new JournalOutputs(new ConversationLog(logPath), true, () => NOW);
    const failed = (prev: string): SessionState => ({
      ...emptyState(),
      response_id: prev,
      pending_transaction: { input: [paste], previous_response_id: prev, user_message: null, timestamp: NOW.toISOString() },
    });
    outputs.toFile(failed('resp_a'));
    const file = outputs.toFile(failed('resp_b'));
    const pointers = (file.pending_transaction as unknown as { input_log: { output_log: string }[] }).input_log;
    expect(pointers[0]?.output_log).toContain('resp_b');
    const loaded = new JournalOutputs(new ConversationLog(logPath), true, () => NOW).fromFile(file);
    expect(loaded.notices).toEqual([]);
    expect(loaded.state.pending_transaction?.input).toEqual([paste]);
  });

  it('a record under the pointer that is not the item it named is not resent', () => {
    const s = store(withCalls(['c1']));
    failedFollowUp(s);
    const onDisk = fs.readFileSync(statePath, 'utf8');
    const pointer = /"output_log": "(agentx-output:resp_1:item-[0-9a-f]+)"/.exec(onDisk)?.[1] ?? '';
    expect(pointer).not.toBe('');
    // Another item logged under that id (the log is private, but a record is only trusted for what it names).
    fs.rmSync(logPath);
    new ConversationLog(logPath).append({ prev: 'resp_1', response_id: pointer, input: [short], output: [], stored: false, at: NOW.toISOString() });
    expect(reopen().state.pending_transaction).toBeNull();
  });

  it('a file an earlier version wrote, with the retry data inline, still loads; the next write moves its long paste to the log', () => {
    const older = recordFailure(withCalls(['c1']), { error: '500', input: [pasted], previousResponseId: 'resp_1', userMessage: 'run them', now: NOW });
    saveState(statePath, older, { durable: true });
    expect(fs.readFileSync(statePath, 'utf8')).toContain('LLLLLLLLLL');
    const s = reopen();
    expect(s.state.pending_transaction?.input).toEqual([pasted]);
    s.update((st) => ({ ...st, last_assistant_message: 'x' }));
    expect(fs.readFileSync(statePath, 'utf8')).not.toContain('LLLLLLLLLL');
    expect(reopen().state.pending_transaction?.input).toEqual([pasted]);
  });
});

describe('fsyncs: one for a batch of outputs, and power loss', () => {
  /** A log that remembers how much of its file an fsync has made durable (what a power loss keeps). */
  class DurableSizeLog extends ConversationLog {
    durableBytes = 0;
    override append(record: Parameters<ConversationLog['append']>[0], options: { sync?: boolean } = {}): void {
      super.append(record, options);
      if (options.sync !== false) this.durableBytes = fs.statSync(this.path).size;
    }
    override sync(): void {
      super.sync();
      this.durableBytes = fs.statSync(this.path).size;
    }
  }

  it('three calls in a row: one log fsync for their outputs, before the write that precedes sending them', () => {
    const log = new DurableSizeLog(logPath);
    const s = store(withCalls(['c1', 'c2', 'c3']), log);
    for (const id of ['c1', 'c2', 'c3']) {
      s.update((st) => markToolCall(st, id, 'started'), { required: true });
      s.stage((st) => markToolCall(st, id, 'completed', output(id, `${id} done`)));
    }
    expect(log.stats.fsyncs).toBe(0);
    // executePending's flush: every output durable before any is sent.
    s.flush();
    expect(log.stats.fsyncs).toBe(1);
    expect(log.durableBytes).toBe(fs.statSync(logPath).size);
    expect(reopen().state.pending_tool_calls.map((c) => c.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('no fsync of its own when the log was fsync-ed since (the next response record covers the outputs)', () => {
    const log = new DurableSizeLog(logPath);
    const s = store(withCalls(['c1', 'c2']), log);
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.stage((st) => markToolCall(st, 'c1', 'completed', output('c1', 'one')));
    s.update((st) => markToolCall(st, 'c2', 'started'), { required: true });
    log.append({ prev: 'resp_1', response_id: 'resp_2', input: [], output: [], stored: true, at: NOW.toISOString() });
    s.update((st) => markToolCall(st, 'c2', 'completed', output('c2', 'two')));
    // One for the response record, one for c2's output (appended after it); c1's was covered by the first.
    expect(log.stats.fsyncs).toBe(2);
  });

  it('power loss right after the next call was marked started: the previous output is lost with the page cache, the call loads as started (Retry only), said in one line', () => {
    const log = new DurableSizeLog(logPath);
    const s = store(withCalls(['c1', 'c2']), log);
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.stage((st) => markToolCall(st, 'c1', 'completed', output('c1', 'ran once')));
    // The urgent write: c2 must not wait for the log, so c1's record is not synced yet.
    s.update((st) => markToolCall(st, 'c2', 'started'), { required: true });
    expect(fs.readFileSync(statePath, 'utf8')).toContain(outputRecordId('resp_1', 'c1'));
    // Power loss: the state file was fsync-ed (durable write); the log keeps only what was synced.
    fs.truncateSync(logPath, log.durableBytes);
    const again = reopen();
    expect(again.state.pending_tool_calls.map((c) => c.status)).toEqual(['started', 'started']);
    expect(warnings).toEqual([expect.stringMatching(/tool call c1 is not in the conversation log.*Retry/)]);
  });

  it('a write that is not urgent never points at a record a power loss could take', () => {
    const log = new DurableSizeLog(logPath);
    const s = store(withCalls(['c1']), log);
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', 'kept')));
    fs.truncateSync(logPath, log.durableBytes);
    expect(reopen().state.pending_tool_calls[0]).toMatchObject({ status: 'completed', output: output('c1', 'kept') });
    expect(warnings).toEqual([]);
  });

  it('kill -9 right after the next call was marked started, then a power loss later: the next start syncs the records it found before a write points at them again', () => {
    const first = new DurableSizeLog(logPath);
    const s = store(withCalls(['c1', 'c2']), first);
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.stage((st) => markToolCall(st, 'c1', 'completed', output('c1', 'ran once')));
    s.update((st) => markToolCall(st, 'c2', 'started'), { required: true });
    // kill -9: c1's record is in the page cache, not on disk. The next start finds it.
    const log = new DurableSizeLog(logPath);
    const again = store(loadState(statePath, NOW).state, log);
    expect(again.state.pending_tool_calls[0]).toMatchObject({ status: 'completed' });
    // A write that is not urgent (nothing new appended): it must not point at c1's record unsynced.
    again.update((st) => ({ ...st, last_user_message: 'next' }));
    expect(log.stats.fsyncs).toBe(1);
    fs.truncateSync(logPath, log.durableBytes);
    expect(reopen().state.pending_tool_calls[0]).toMatchObject({ status: 'completed', output: output('c1', 'ran once') });
  });

  it('a sync after another process renamed the log aside (its prune) also syncs the archive, where this process’s records are', () => {
    const log = new ConversationLog(logPath);
    log.append(
      { prev: 'resp_1', response_id: 'agentx-output:resp_1:c1', input: [output('c1', 'x')], output: [], stored: false, at: NOW.toISOString() },
      { sync: false },
    );
    // Another process's prune: the old file becomes the archive, a new file takes the path.
    fs.renameSync(logPath, log.archivePath);
    fs.writeFileSync(logPath, '');
    log.sync();
    expect(log.stats.fsyncs).toBe(2);
    log.sync();
    expect(log.stats.fsyncs).toBe(3);
  });

  it('a log that cannot be synced keeps the outputs of a write that is not urgent in the file', () => {
    class UnsyncableLog extends ConversationLog {
      override sync(): void {
        throw new LogWriteError('EIO');
      }
    }
    const s = store(withCalls(['c1']), new UnsyncableLog(logPath));
    s.update((st) => markToolCall(st, 'c1', 'started'), { required: true });
    s.update((st) => markToolCall(st, 'c1', 'completed', output('c1', 'inline after all')));
    expect(fs.readFileSync(statePath, 'utf8')).toContain('inline after all');
  });
});

describe('a state over the size limit with its retry data in the log', () => {
  it('is fitted on save (the person’s long texts cut), and its retry data still resends the whole paste', () => {
    const paste = 'P'.repeat(8 * 1024 * 1024);
    const pasted = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: paste }] };
    const s = store({ ...emptyState(), response_id: 'resp_1', last_user_message: paste, interrupted_turn: { user_message: paste, timestamp: 't' } });
    s.update((st) => recordFailure(st, { error: '500', input: [pasted], previousResponseId: 'resp_1', userMessage: paste, now: NOW }));
    expect(warnings).toEqual([]);
    expect(fs.statSync(statePath).size).toBeLessThan(MAX_STATE_FILE_BYTES);
    const again = reopen();
    expect(again.state.pending_transaction?.input).toEqual([pasted]);
    expect(again.state.last_user_message?.length).toBeLessThan(64 * 1024);
  });
});

describe('retry data of a request that started a chain (no previous response)', () => {
  it('survives a prune of the log: its records are as recent as what the prune keeps', () => {
    const log = new ConversationLog(logPath, () => {}, { pruneAtBytes: 64 * 1024 });
    const paste = { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: `first words ${'w'.repeat(8 * 1024)}` }] };
    const old = (i: number): Parameters<ConversationLog['append']>[0] => ({
      prev: null,
      response_id: `old_${i}`,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'y'.repeat(2000) }] }],
      output: [],
      stored: true,
      at: new Date(NOW.getTime() - 1e6 + i).toISOString(),
    });
    // Old branches, then the session's failed first request, then more branches until the log is pruned.
    for (let i = 0; i < 20; i++) log.append(old(i));
    const s = store(emptyState(), log);
    s.update((st) => recordFailure(st, { error: '500', input: [paste], previousResponseId: null, userMessage: 'first words', now: NOW }));
    for (let i = 0; i < 60; i++) log.append({ ...old(100 + i), at: new Date(NOW.getTime() + 1000 + i).toISOString() });
    expect(log.stats.prunes ?? 0).toBeGreaterThan(0);
    // In the pruned log itself, not only in the archive the prune keeps beside it.
    fs.rmSync(log.archivePath, { force: true });
    expect(reopen().state.pending_transaction?.input).toEqual([paste]);
    expect(warnings).toEqual([]);
  });
});
