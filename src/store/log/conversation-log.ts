// The conversation log: agentx's own record of every exchange with the server — what was sent and
// what came back, tool calls and their outputs included — kept in the private state store, one
// file per project. It is the source of truth: when the server no longer has a response (expiry,
// a restarted gateway, a server that stores nothing), the conversation since the last
// compaction is replayed from here, so a command that ran is never run again because a chain
// was lost (engine/conversation.ts).
//
// Append-only, one record per line: `<checksum> <json>\n`, the checksum being the first 16 hex
// digits of the SHA-256 of the JSON. A record names the response it came with and the response
// it continues (`prev`), so rollbacks, one-shots and a REPL beside them branch at a response
// without copying anything: a branch is a path through the records. Several processes append
// to one file (O_APPEND, one write per record); a torn line from a crash is skipped when read
// and said once, and the next append starts on a fresh line.
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { nodeCrypto } from '../../lib/builtins.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import { isConversationItem, isLoose, type ConversationItem } from '../../wire/items.ts';

/** One exchange: the request's own items (not a replay's copy) and the response's output. */
export interface LogRecord {
  /** The response this exchange continues; null: it starts the conversation (or a compaction's new chain). */
  prev: string | null;
  response_id: string;
  input: ConversationItem[];
  output: ConversationItem[];
  /** Whether the server was asked to store the response (false: it cannot be chained from). */
  stored: boolean;
  at: string;
}

/** The log could not be written: the effect it guards (running the response's tool calls) must not happen. */
export class LogWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogWriteError';
  }
}

/** How far back a replay walks before giving up (a cycle in a hand-edited log, or a very long chain). */
const MAX_CHAIN_RECORDS = 100_000;

function checksum(json: string): string {
  return nodeCrypto().createHash('sha256').update(json).digest('hex').slice(0, 16);
}

export function encodeRecord(record: LogRecord): string {
  const json = JSON.stringify(record);
  return `${checksum(json)} ${json}\n`;
}

/** A line read back, or null when it is torn, altered or not a record of ours. */
export function decodeRecord(line: string): LogRecord | null {
  const space = line.indexOf(' ');
  if (space !== 16) return null;
  const json = line.slice(17);
  if (checksum(json) !== line.slice(0, 16)) return null;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isLoose(v) || typeof v.response_id !== 'string' || !(v.prev === null || typeof v.prev === 'string')) return null;
  if (!Array.isArray(v.input) || !Array.isArray(v.output) || typeof v.stored !== 'boolean' || typeof v.at !== 'string') return null;
  if (!v.input.every(isConversationItem) || !v.output.every(isConversationItem)) return null;
  return { prev: v.prev, response_id: v.response_id, input: v.input, output: v.output, stored: v.stored, at: v.at };
}

export interface LogStats {
  appends: number;
  bytesWritten: number;
  fsyncs: number;
}

export class ConversationLog {
  private readonly records = new Map<string, LogRecord>();
  /** How many bytes of the file have been read into `records`. */
  private readOffset = 0;
  private partial = '';
  private damaged = 0;
  private told = false;
  readonly stats: LogStats = { appends: 0, bytesWritten: 0, fsyncs: 0 };

  constructor(
    readonly path: string,
    /** One line for the person (a damaged record was skipped). */
    private readonly notice: (line: string) => void = () => {},
  ) {}

  /**
   * Appends one exchange durably (written and fsync'd) before returning. Throws LogWriteError
   * when it could not: disk full, no permission — the caller then does not act on the response.
   */
  append(record: LogRecord): void {
    const line = encodeRecord(record);
    let fd: number | undefined;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      fd = openSync(this.path, 'a+', 0o600);
      // After a crash mid-write the file may end inside a line: start on a fresh one.
      const text = endsInsideLine(fd, fstatSync(fd)) ? `\n${line}` : line;
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      fsyncSync(fd);
      this.stats.appends++;
      this.stats.bytesWritten += bytes.length;
      this.stats.fsyncs++;
    } catch (err) {
      throw new LogWriteError(`could not write the conversation log ${this.path}: ${errorMessage(err)}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    this.records.set(record.response_id, record);
  }

  /** The record that came with a response, reading what other processes appended when needed. */
  find(responseId: string): LogRecord | undefined {
    const known = this.records.get(responseId);
    if (known !== undefined) return known;
    this.readNew();
    return this.records.get(responseId);
  }

  /**
   * The conversation up to and including `responseId`'s exchange, since the last compaction:
   * every item sent and received, in order. Null when the log does not reach back to the start
   * of that conversation (a record missing: a damaged or deleted log).
   */
  conversation(responseId: string): ConversationItem[] | null {
    const path: LogRecord[] = [];
    let id: string | null = responseId;
    while (id !== null) {
      const record = this.find(id);
      if (record === undefined || path.length >= MAX_CHAIN_RECORDS) return null;
      path.push(record);
      id = record.prev;
    }
    const items = path.reverse().flatMap((r) => [...r.input, ...r.output]);
    return sinceLastCompaction(items);
  }

  private readNew(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return; // No log yet: nothing to read.
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.readOffset) {
        // Replaced (restored from a backup, or removed and begun again): read it whole.
        this.readOffset = 0;
        this.partial = '';
      }
      const chunk = Buffer.alloc(64 * 1024);
      while (this.readOffset < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - this.readOffset), this.readOffset);
        if (n <= 0) break;
        this.readOffset += n;
        this.take(chunk.subarray(0, n).toString('latin1'));
      }
    } finally {
      closeSync(fd);
    }
    if (this.damaged > 0 && !this.told) {
      this.told = true;
      this.notice(`the conversation log ${this.path} had ${this.damaged} damaged record${this.damaged === 1 ? '' : 's'} (a crash while writing, or an edit): ${this.damaged === 1 ? 'it was' : 'they were'} skipped`);
    }
  }

  /** Splits what was read into lines (kept as bytes in latin1 until a line is whole, so UTF-8 is never cut). */
  private take(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const raw of lines) {
      if (raw === '') continue;
      const record = decodeRecord(Buffer.from(raw, 'latin1').toString('utf8'));
      if (record === null) this.damaged++;
      else this.records.set(record.response_id, record);
    }
  }
}

function endsInsideLine(fd: number, stats: Stats): boolean {
  if (stats.size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, stats.size - 1);
  return last[0] !== 0x0a;
}

/** A compaction item stands for everything before it: a replay starts there. */
export function sinceLastCompaction(items: ConversationItem[]): ConversationItem[] {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.type === 'compaction') return items.slice(i);
  return items;
}
