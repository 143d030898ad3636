// Completed tool outputs live in the conversation log, not in the session file (issue 22 §6).
// The journal keeps what the exactly-once rules need — each call's status — and, for a call
// that ran but whose output has not gone to the server yet, where its output is: a log record
// (`output_log`). In memory the journal holds the outputs as before (the engine resends them);
// only the file changes. A session file used to carry up to 2 MiB of outputs and rewrote them
// with every transition of the turn; it now carries a pointer per call.
//
// Order, for kill -9 at any point: the output record is appended (and fsync'd, for the
// interactive session) before the file that points at it is written. A crash in between leaves
// the call `started` in the file with its output in the log: the next start finds the output
// and the call is completed — it is not run again, and its output is not lost. A file pointing at
// a record the log no longer has (the log deleted or damaged) leaves the call `started`, said in
// one line: it may have run, so it runs again only on the person's Retry.
import { LogWriteError, outputRecordId, type ConversationLog } from './log/conversation-log.ts';
import type { SessionState, ToolJournalEntry } from './types.ts';
import type { ToolOutputItem } from '../wire/items.ts';

/** Whether an output answers this call (a record found under the call's id must not answer another). */
function answers(output: ToolOutputItem, callId: string): boolean {
  return (output.type === 'mcp_approval_response' ? output.approval_request_id : output.call_id) === callId;
}

/** What the session store needs of the log: appending an output, and finding one again. */
export type OutputLog = Pick<ConversationLog, 'append' | 'findOutput'>;

export class JournalOutputs {
  /** Log records this process knows hold an output (appended, or found at load), by record id. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly log: OutputLog,
    /** fsync each output record (the interactive session); a one-shot's file is not fsync'd either. */
    private readonly sync: boolean,
    private readonly now: () => Date,
  ) {}

  /**
   * The state as its file holds it: each completed output appended to the log (once) and
   * replaced by a pointer. An output the log cannot take (disk full) stays in the file: the
   * call's output is never lost to save bytes.
   */
  toFile(state: SessionState): SessionState {
    let out = state;
    const calls = this.pointersFor(state.pending_tool_calls, state.response_id);
    if (calls !== state.pending_tool_calls) out = { ...out, pending_tool_calls: calls };
    // A rollback made mid-turn keeps the journal it left in the backup: its outputs go the same way.
    const backup = state.rollback_backup;
    if (backup !== null) {
      const backupCalls = this.pointersFor(backup.pending_tool_calls, backup.response_id);
      if (backupCalls !== backup.pending_tool_calls) out = { ...out, rollback_backup: { ...backup, pending_tool_calls: backupCalls } };
    }
    return out;
  }

  private pointersFor(calls: ToolJournalEntry[], responseId: string | null): ToolJournalEntry[] {
    if (!calls.some((c) => c.output !== undefined)) return calls;
    return calls.map((call) => {
      if (call.status !== 'completed' || call.output === undefined) return call;
      const id = outputRecordId(responseId, call.call_id);
      if (!this.logged.has(id) && !this.append(id, responseId, call)) return call;
      const { output: _inLog, ...pointer } = call;
      return { ...pointer, output_log: id };
    });
  }

  /**
   * The state a loaded file stands for: pointers read back into outputs, and a `started` call
   * whose output reached the log before the crash completed with it. Returns a line for each
   * output that could not be found (the call is then `started`).
   */
  fromFile(state: SessionState): { state: SessionState; notices: string[] } {
    const notices: string[] = [];
    const calls = this.outputsFor(state.pending_tool_calls, state.response_id, notices);
    const backup = state.rollback_backup;
    const backupCalls = backup === null ? [] : this.outputsFor(backup.pending_tool_calls, backup.response_id, notices);
    return {
      state: { ...state, pending_tool_calls: calls, rollback_backup: backup === null ? null : { ...backup, pending_tool_calls: backupCalls } },
      notices,
    };
  }

  private outputsFor(calls: ToolJournalEntry[], responseId: string | null, notices: string[]): ToolJournalEntry[] {
    if (calls.length === 0) return calls;
    return calls.map((call): ToolJournalEntry => {
      if (call.status === 'pending') return call;
      if (call.status === 'completed' && call.output_log === undefined) return call;
      const id = call.output_log ?? outputRecordId(responseId, call.call_id);
      const output = this.log.findOutput(id);
      const { output_log: _pointer, ...rest } = call;
      if (output !== undefined && answers(output, call.call_id)) {
        this.logged.add(id);
        return { ...rest, status: 'completed', output };
      }
      if (call.status === 'started') return call;
      notices.push(
        `the output of tool call ${call.call_id} is not in the conversation log any more (deleted or damaged): the call counts as started, so it runs again only if you choose Retry.`,
      );
      return { ...rest, status: 'started' };
    });
  }

  private append(id: string, responseId: string | null, call: ToolJournalEntry): boolean {
    if (call.output === undefined) return false;
    try {
      this.log.append(
        { prev: responseId, response_id: id, input: [call.output], output: [], stored: false, at: this.now().toISOString() },
        { sync: this.sync },
      );
    } catch (err) {
      if (err instanceof LogWriteError) return false;
      throw err;
    }
    this.logged.add(id);
    return true;
  }
}
