// What the session file does not need to carry lives in the conversation log (issue 22 §6): the
// completed tool outputs of the journal, and the tool outputs and long pasted messages of a
// failed request's retry data (`pending_transaction`). The journal keeps what the
// exactly-once rules need — each call's status — and, for a call that ran but whose output has
// not gone to the server yet, where its output is: a log record (`output_log`). The retry data
// keeps its short messages and a pointer for each other item (`input_log`, in order, so Retry
// resends the same request). In memory the state holds the items as before (the engine resends them); only
// the file changes. A session file used to carry up to 2 MiB of outputs and rewrote them with
// every transition of the turn; it now carries a pointer per item.
//
// Order, for kill -9 at any point: the record is written to the log before the file that points
// at it. A crash in between leaves the call `started` in the file with its output in the log: the
// next start finds the output and the call is completed — it is not run again, and its output is
// not lost. A file pointing at a record the log no longer has (the log deleted or damaged) leaves
// the call `started`, said in one line: it may have run, so it runs again only on the person's
// Retry; retry data with an item missing cannot be resent exactly and is dropped, said in one line.
//
// Power loss (the page cache lost, unlike kill -9): the interactive session fsyncs the log once
// for all the records a write points at, before that write — except for a write that guards an
// effect (`urgent`: the next call's `started` mark), which must not wait. That write carries the
// previous call's pointer to a record not yet synced; the next write that is not urgent (before
// the outputs are sent, before any wait for the person or a hook) syncs the log first, and so
// does the next model response's record. A power loss in that window can leave a pointer whose
// record is gone: the call loads as `started`, the safe degradation above (never run again
// without Retry; its output is lost although the call finished — the price of one fsync per batch).
// Records found at load may be ones a killed process never synced: they count as unsynced too
// (the log knows which records an fsync of its covered: ConversationLog.isDurable).
// Nothing is sent to the server before the records it carries are synced. One fsync per batch of calls
// instead of one per call (BENCHMARKS.md, State I/O). A one-shot's file is not fsync'd, nor are
// its records.
import { nodeCrypto } from '../lib/builtins.ts';
import { LogWriteError, outputRecordId, type ConversationLog } from './log/conversation-log.ts';
import type { LoggedItem, PendingTransaction, SessionSnapshot, SessionState, ToolJournalEntry } from './types.ts';
import { isInputItem, isToolOutputItem, type InputItem, type ToolOutputItem } from '../wire/items.ts';

/**
 * Other items of the retry data (messages) go to the log from this size on: a long paste. The
 * person's usual message, and the environment context, stay readable in the file.
 */
const LOGGED_MESSAGE_MIN_BYTES = 4 * 1024;

/** Whether an output answers this call (a record found under the call's id must not answer another). */
function answers(output: ToolOutputItem, callId: string): boolean {
  return (output.type === 'mcp_approval_response' ? output.approval_request_id : output.call_id) === callId;
}

/** What the session store needs of the log: appending a record, syncing, knowing it synced, and finding an item again. */
export type OutputLog = Pick<ConversationLog, 'append' | 'sync' | 'isDurable' | 'findItem'>;

export interface ToFileOptions {
  /** The write guards an effect (a call's `started` mark): it does not wait for the log's fsync (see the header). */
  urgent?: boolean;
}

/** Called for each item the file may point at instead of holding it: whether it does. */
type Point = (id: string, prev: string | null, item: InputItem) => boolean;

export class JournalOutputs {
  /** Log records this process knows hold an item (appended, or found at load), by record id. */
  private readonly logged = new Set<string>();
  /**
   * Content hashes of the retry data's items (null: it stays inline); the state's items are
   * immutable. Only the hash: the record id also names `prev`, and one item object may be resent
   * after another response.
   */
  private readonly itemHashes = new WeakMap<InputItem, string | null>();

  constructor(
    private readonly log: OutputLog,
    /** fsync the records (the interactive session); a one-shot's file is not fsync'd either. */
    private readonly sync: boolean,
    private readonly now: () => Date,
  ) {}

  /**
   * The state as its file holds it: each completed output and each output and long message of the retry data
   * appended to the log (once) and replaced by a pointer. An item the log cannot take (disk full)
   * stays in the file: it is never lost to save bytes.
   */
  toFile(state: SessionState, options: ToFileOptions = {}): SessionState {
    const pointed: string[] = [];
    const out = this.rewrite(state, (id, prev, item) => {
      const logged = this.ensureLogged(id, prev, item);
      if (logged) pointed.push(id);
      return logged;
    });
    if (options.urgent === true || !this.sync) return out;
    const durable = (): boolean => pointed.every((id) => this.log.isDurable(id));
    // One fsync for every record this write points at (none when the log was fsync'd since, by any append).
    if (durable()) return out;
    try {
      this.log.sync();
    } catch (err) {
      if (!(err instanceof LogWriteError)) throw err;
    }
    // A log that could not be synced: the items it holds unsynced stay in this write.
    return durable() ? out : this.rewrite(state, (id) => this.logged.has(id) && this.log.isDurable(id));
  }

  /**
   * The state a loaded file stands for: pointers read back into items, and a `started` call
   * whose output reached the log before the crash completed with it. Returns a line for each
   * item that could not be found (the call is then `started`; retry data is dropped).
   */
  fromFile(state: SessionState): { state: SessionState; notices: string[] } {
    const notices: string[] = [];
    const live = this.snapshotFromFile(state, notices);
    const backup = state.rollback_backup === null ? null : this.snapshotFromFile(state.rollback_backup, notices);
    // A record found here may have been appended by a process killed before its fsync (kill -9
    // keeps the page cache, not the disk): the log counts it durable only after its own next
    // fsync, so the next write that is not urgent syncs before the file points at it again.
    return { state: { ...live, rollback_backup: backup }, notices };
  }

  /** The live state and a mid-turn rollback's backup (which keeps the journal it left) alike. */
  private rewrite(state: SessionState, point: Point): SessionState {
    const out = this.snapshotToFile(state, point);
    const backup = state.rollback_backup;
    if (backup === null) return out;
    const backupOut = this.snapshotToFile(backup, point);
    return backupOut === backup ? out : { ...out, rollback_backup: backupOut };
  }

  private snapshotToFile<T extends SessionSnapshot>(s: T, point: Point): T {
    const calls = this.pointersFor(s.pending_tool_calls, s.response_id, point);
    const transaction = s.pending_transaction === null ? null : this.transactionToFile(s.pending_transaction, point);
    if (calls === s.pending_tool_calls && transaction === s.pending_transaction) return s;
    return { ...s, pending_tool_calls: calls, pending_transaction: transaction };
  }

  private pointersFor(calls: ToolJournalEntry[], responseId: string | null, point: Point): ToolJournalEntry[] {
    if (!calls.some((c) => c.output !== undefined)) return calls;
    return calls.map((call) => {
      if (call.status !== 'completed' || call.output === undefined) return call;
      const id = outputRecordId(responseId, call.call_id);
      if (!point(id, responseId, call.output)) return call;
      const { output: _inLog, ...pointer } = call;
      return { ...pointer, output_log: id };
    });
  }

  private transactionToFile(t: PendingTransaction, point: Point): PendingTransaction {
    let pointed = false;
    const items = t.input.map((item): InputItem | LoggedItem => {
      const id = this.itemId(t.previous_response_id, item);
      if (id === null || !point(id, t.previous_response_id, item)) return item;
      pointed = true;
      return { output_log: id };
    });
    if (!pointed) return t;
    const { input: _inLog, ...rest } = t;
    // `input_log` in place of `input` (types.ts): an agentx that does not know it finds no request
    // to resend (and says so), rather than an empty one. The file's form only, never used in memory.
    return { ...rest, input_log: items } as unknown as PendingTransaction;
  }

  private snapshotFromFile<T extends SessionSnapshot>(s: T, notices: string[]): T {
    const calls = this.outputsFor(s.pending_tool_calls, s.response_id, notices);
    const t = s.pending_transaction;
    if (t === null || t.input_log === undefined) return { ...s, pending_tool_calls: calls };
    const { input_log: pointers, ...rest } = t;
    const input = this.itemsFor(pointers, t.previous_response_id);
    if (input !== undefined) return { ...s, pending_tool_calls: calls, pending_transaction: { ...rest, input } };
    notices.push(
      'the failed request kept for Retry is not whole in the conversation log any more (deleted or damaged): it cannot be resent exactly, so it is dropped; the tool calls it answered are settled from their journal.',
    );
    return { ...s, pending_tool_calls: calls, pending_transaction: null, failed_response: null };
  }

  private outputsFor(calls: ToolJournalEntry[], responseId: string | null, notices: string[]): ToolJournalEntry[] {
    if (calls.length === 0) return calls;
    return calls.map((call): ToolJournalEntry => {
      if (call.status === 'pending') return call;
      if (call.status === 'completed' && call.output_log === undefined) return call;
      const id = call.output_log ?? outputRecordId(responseId, call.call_id);
      const output = this.log.findItem(id);
      const { output_log: _pointer, ...rest } = call;
      if (isToolOutputItem(output) && answers(output, call.call_id)) {
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

  /** The retry data's items, every pointer read back; undefined when one is missing or not the item it named. */
  private itemsFor(items: (InputItem | LoggedItem)[], prev: string | null): InputItem[] | undefined {
    const out: InputItem[] = [];
    for (const item of items) {
      if (!('output_log' in item)) {
        out.push(item);
        continue;
      }
      const found = this.log.findItem(item.output_log);
      // The id names the item's content, so a record under it is exactly the item the request had.
      if (!isInputItem(found) || this.itemId(prev, found) !== item.output_log) return undefined;
      this.logged.add(item.output_log);
      out.push(found);
    }
    return out;
  }

  /**
   * The record id of an item the log keeps (every tool output, as the journal's; a message from
   * 4 KiB on), named by its content: the same item is appended once. Null: it stays in the file.
   */
  private itemId(prev: string | null, item: InputItem): string | null {
    let hash = this.itemHashes.get(item);
    if (hash === undefined) {
      const json = JSON.stringify(item);
      const logged = isToolOutputItem(item) || Buffer.byteLength(json) >= LOGGED_MESSAGE_MIN_BYTES;
      hash = logged ? nodeCrypto().createHash('sha256').update(json).digest('hex').slice(0, 32) : null;
      this.itemHashes.set(item, hash);
    }
    return hash === null ? null : outputRecordId(prev, `item-${hash}`);
  }

  /** Appends the record once (without an fsync: toFile makes a write's records durable together); false when the log cannot take it. */
  private ensureLogged(id: string, prev: string | null, item: InputItem): boolean {
    if (this.logged.has(id)) return true;
    try {
      this.log.append({ prev, response_id: id, input: [item], output: [], stored: false, at: this.now().toISOString() }, { sync: false });
    } catch (err) {
      if (err instanceof LogWriteError) return false;
      throw err;
    }
    this.logged.add(id);
    return true;
  }
}
