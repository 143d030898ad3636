import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationLog, outputRecordId } from './log/conversation-log.ts';
import { JournalOutputs } from './journal-outputs.ts';
import { SessionStore } from './session-store.ts';
import { emptyState, recordToolCalls, recordTurn, rollbackTo, undoRollback, type SessionState } from './state.ts';
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
    expect(new ConversationLog(logPath).findOutput(outputRecordId('resp_1', 'c1'))).toEqual(output('c1', 'survives the prune'));
  });
});
