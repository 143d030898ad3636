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
// to one file (O_APPEND, one write per record); a torn line from a crash (or an altered one) is
// repaired away by the first process that reads or appends after it — the log rewritten to its
// good records, said in one line — so no later process finds it again.
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname } from 'node:path';
import { createFileExclusive, writeTempFile } from '../../lib/atomic-file.ts';
import { errorMessage, fsyncDirectory, fsyncQuiet, unlinkQuiet } from '../../lib/fsutil.ts';
import { hasCompaction, outputsToKeep, recordsToKeep } from './prune.ts';
import type { ConversationItem } from '../../wire/items.ts';
import { decodeRecord, encodeRecord, isOutputRecord, type LogRecord } from './record.ts';

export { decodeRecord, encodeRecord, outputRecordId, type LogRecord } from './record.ts';

/** The log could not be written: the effect it guards (running the response's tool calls) must not happen. */
export class LogWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogWriteError';
  }
}

/** How far back a replay walks before giving up (a cycle in a hand-edited log, or a very long chain). */
const MAX_CHAIN_RECORDS = 100_000;

export interface LogStats {
  appends: number;
  bytesWritten: number;
  fsyncs: number;
  /** Times this process rewrote the log smaller (prune.ts). */
  prunes?: number;
  /**
   * Bytes read into the in-memory index (the log and the archive a prune left). A second
   * instance over the same file would read it all again after each repair or prune of the other.
   */
  bytesRead?: number;
  /** Records appended again because the file was replaced while they were written (append). */
  reappends?: number;
}

/**
 * The log is pruned when an append finds it past this size: rewritten with what replays can
 * still need (prune.ts), the whole old file kept beside it as `<log>.1` until the next prune.
 * So the project's log takes at most about twice this on disk.
 */
export const PRUNE_AT_BYTES = 32 * 1024 * 1024;

/**
 * A record written this recently is kept by a prune like a pinned one: between its append and the
 * session file that points at it (the pins a prune reads) there is a moment, longer for a process
 * that is stopped or starved; a prune in that moment, or two of them, must not drop it.
 */
const PIN_GRACE_MS = 10 * 60_000;

/** Appends of one record again after its file was replaced under it (append): one is nearly always enough. */
const REAPPEND_ATTEMPTS = 3;

/** A prune another process started this long ago and never finished (it died) no longer holds the next one off. */
const PRUNE_LOCK_STALE_MS = 60_000;

export interface LogOptions {
  pruneAtBytes?: number;
  /** How recent a record a prune keeps like a pinned one (PIN_GRACE_MS); tests of what a prune drops lower it. */
  pinGraceMs?: number;
}

/**
 * The ids of the records the session files point at (response ids, output record ids), asked at
 * each prune: a prune keeps their branches whatever their age (prune.ts). The log does not know
 * the session files; whoever owns them says what they point at (store/log-pins.ts).
 */
export type PinSource = () => Iterable<string>;

export class ConversationLog {
  private readonly records = new Map<string, LogRecord>();
  /** Tool outputs the session files point at (record.ts), apart from the exchanges: no replay or prune walk sees them. */
  private readonly outputs = new Map<string, LogRecord>();
  /** How many bytes of the file have been read into `records`. */
  private readOffset = 0;
  private partial = '';
  /** The file `readOffset` counts in: another process's prune replaces it with a new one. */
  private readIno: number | undefined;
  /** The archive file read so far and how far (readArchive). */
  private archiveRead: { ino: number; offset: number } | undefined;
  private damaged = 0;
  private told = false;
  /** A prune that kept nearly everything is not tried again until the file has grown this far. */
  private nextPruneAt: number;
  readonly stats: LogStats = { appends: 0, bytesWritten: 0, fsyncs: 0 };
  /**
   * The file (inode) this process appended to without an fsync since its last one. Another
   * process's prune or repair may have renamed it to the archive meanwhile: an fsync of the new
   * file at the path would not cover those records, so the archive is fsync'd too.
   */
  private unsyncedIno: number | undefined;
  private readonly pinSources: PinSource[] = [];
  /** fsyncs of the log by this process so far (fsyncCovering). */
  private fsyncGeneration = 0;
  /**
   * For each record this process appended or read: how many fsyncs it had made before. A later
   * fsync made the record durable (it was in the file then); one read from the file may be a
   * record a killed process never synced, so it counts as durable only after this process's next.
   */
  private readonly seenAtGeneration = new Map<string, number>();

  constructor(
    readonly path: string,
    /** One line for the person (damaged records were repaired away). */
    private readonly notice: (line: string) => void = () => {},
    private readonly options: LogOptions = {},
  ) {
    this.nextPruneAt = options.pruneAtBytes ?? PRUNE_AT_BYTES;
  }

  /** Adds a source of pinned ids (see PinSource): every prune from now on keeps what it names. */
  pinWith(source: PinSource): void {
    this.pinSources.push(source);
  }

  /** The ids every source pins; undefined when one could not say (then nothing is pruned: a pin could be missed). */
  private pinned(): Set<string> | undefined {
    const ids = new Set<string>();
    try {
      for (const source of this.pinSources) for (const id of source()) ids.add(id);
    } catch {
      return undefined;
    }
    return ids;
  }

  /** The previous generation, kept by the last prune: where a record a prune dropped (or a concurrent append landed) is still found. */
  get archivePath(): string {
    return `${this.path}.1`;
  }

  /**
   * Appends one exchange, written and fsync'd, before returning. Throws LogWriteError when it
   * could not: disk full, no permission — the caller then does not act on the response.
   * `sync: false` skips the fsync: tool outputs, which journal-outputs.ts makes durable together
   * with sync() (one fsync per batch), and a one-shot's (whose own file is not fsync'd either).
   */
  append(record: LogRecord, options: { sync?: boolean } = {}): void {
    const line = encodeRecord(record);
    const generation = this.fsyncGeneration;
    let sizeAfter = 0;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      // Another process's prune or repair may replace the file between our open and our write:
      // the record then lands in the old file, which that prune may not have read (it is the
      // archive now, and the next prune replaces the archive). So when the file at the path is
      // no longer the one written to, the record is appended again, to the new one. A copy too
      // many is harmless: records are found by id.
      for (let attempt = 0; ; attempt++) {
        const landed = this.appendLine(line, options.sync !== false);
        sizeAfter = landed.size;
        if (attempt >= REAPPEND_ATTEMPTS || inodeAt(this.path) === landed.ino) break;
        this.stats.reappends = (this.stats.reappends ?? 0) + 1;
      }
    } catch (err) {
      throw new LogWriteError(`could not write the conversation log ${this.path}: ${errorMessage(err)}`);
    }
    this.keep(record, generation);
    // After the record is safe: a prune that fails costs nothing but the space.
    if (sizeAfter >= this.nextPruneAt) this.prune(sizeAfter);
  }

  /** One write of `line` at the end of the file at the path (repairing a torn tail first); where it landed. */
  private appendLine(line: string, sync: boolean): { ino: number; size: number } {
    let fd: number | undefined;
    try {
      fd = openSync(this.path, 'a+', 0o600);
      let before = fstatSync(fd);
      if (endsInsideLine(fd, before)) {
        // A crash mid-write left a torn last line: repair it before appending after it. (Only an
        // append does this: to a reader, a line without its end may still be being written. Were
        // it so, the write lands in the old file the repair keeps as the archive, and is found there.)
        closeSync(fd);
        fd = undefined;
        this.readNew();
        this.repairAndSay();
        fd = openSync(this.path, 'a+', 0o600);
        before = fstatSync(fd);
      }
      // Another process may be repairing it right now: then start on a fresh line all the same.
      const text = endsInsideLine(fd, before) ? `\n${line}` : line;
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      if (sync) this.fsyncCovering(fd, before.ino);
      else this.unsyncedIno ??= before.ino;
      this.stats.appends++;
      this.stats.bytesWritten += bytes.length;
      return { ino: before.ino, size: before.size + bytes.length };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * Rewrites the log with what replays can still need (prune.ts: what the session files point at
   * — the pin sources —, then the newest branches), atomically: the kept records
   * go to a new file renamed over the log; the old file stays whole as the archive (a hard link
   * made first), so a process appending to it at that moment loses nothing — its record is found
   * there. One prune at a time per log (an exclusive lock file); never throws.
   */
  private prune(size: number): void {
    const lock = `${this.path}.pruning`;
    try {
      if (!createFileExclusive(lock, `${process.pid}\n`)) {
        if (Date.now() - statSync(lock).mtimeMs > PRUNE_LOCK_STALE_MS) unlinkQuiet(lock);
        return;
      }
    } catch {
      return;
    }
    try {
      // The pins before the log: a file is written after the records it points at, so every
      // record a pin read here names is in the file read next. "Recent" counts back from this
      // moment, not from after the reads below: a record whose file was not yet written when the
      // pins were read is kept if it was appended within the grace before that, however long
      // this process then takes (a starved prune must not age records out).
      const pinsReadAt = Date.now();
      const pinned = this.pinned();
      if (pinned === undefined) {
        this.nextPruneAt = Math.max(this.nextPruneAt, size * 2);
        return;
      }
      this.readNew();
      this.readArchive();
      const limit = this.options.pruneAtBytes ?? PRUNE_AT_BYTES;
      const recordBytes = (r: LogRecord): number => Buffer.byteLength(encodeRecord(r));
      const recentSince = new Date(pinsReadAt - (this.options.pinGraceMs ?? PIN_GRACE_MS)).toISOString();
      const exchanges = recordsToKeep([...this.records.values()], { pinned, recentSince, maxBytes: limit / 2, size: recordBytes });
      const outputs = outputsToKeep([...this.outputs.values()], new Set(exchanges.map((r) => r.response_id)), { pinned, recentSince });
      const kept = [...exchanges, ...outputs];
      const text = kept.map(encodeRecord).join('');
      const bytes = Buffer.byteLength(text);
      if (bytes > size * 0.9) {
        this.nextPruneAt = Math.max(this.nextPruneAt, size * 2);
        return;
      }
      const tmp = writeTempFile(this.path, text);
      const archiveTmp = `${this.archivePath}.tmp-${process.pid}`;
      try {
        unlinkQuiet(archiveTmp);
        linkSync(this.path, archiveTmp);
        renameSync(archiveTmp, this.archivePath);
        renameSync(tmp, this.path);
        fsyncDirectory(dirname(this.path));
      } catch {
        unlinkQuiet(tmp);
        unlinkQuiet(archiveTmp);
        return;
      }
      this.records.clear();
      this.outputs.clear();
      const seen = new Map(this.seenAtGeneration);
      this.seenAtGeneration.clear();
      // A record's durability stays what it was (the new file is fdatasync'd, so it errs on the safe side).
      for (const r of kept) this.keep(r, seen.get(r.response_id));
      this.readIno = statSync(this.path).ino;
      this.readOffset = bytes;
      this.partial = '';
      this.archiveRead = undefined;
      this.stats.prunes = (this.stats.prunes ?? 0) + 1;
      this.nextPruneAt = Math.max(limit, bytes * 2);
    } catch {
      // Pruning is housekeeping: the log as it was stays valid.
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        /* gone already */
      }
    }
  }

  /**
   * Makes every record appended so far durable: one fsync for all the records appended with
   * `sync: false` since the last one (journal-outputs.ts batches a turn's outputs this way).
   * Throws LogWriteError when it could not.
   */
  sync(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.path, 'r');
      this.fsyncCovering(fd, fstatSync(fd).ino);
    } catch (err) {
      throw new LogWriteError(`could not sync the conversation log ${this.path}: ${errorMessage(err)}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * fsyncs the open log file `fd` (inode `ino`) and, when this process's unsynced appends went to
   * another inode (renamed to the archive by another process's prune or repair), the archive too,
   * so isDurable (which journal-outputs.ts relies on) holds for every record appended before it.
   */
  private fsyncCovering(fd: number, ino: number): void {
    fsyncSync(fd);
    this.fsyncGeneration++;
    this.stats.fsyncs++;
    // Best effort: a file gone from the archive path was pruned again, its records copied and synced by that prune.
    if (this.unsyncedIno !== undefined && this.unsyncedIno !== ino && fsyncQuiet(this.archivePath)) this.stats.fsyncs++;
    this.unsyncedIno = undefined;
  }

  /**
   * Whether the record is on disk for good: this process fsync'd the log after it appended or
   * read it (journal-outputs.ts lets a file point at a record only then, except in a write that
   * guards an effect). False for a record it does not know.
   */
  isDurable(id: string): boolean {
    const seenAt = this.seenAtGeneration.get(id);
    return seenAt !== undefined && seenAt < this.fsyncGeneration;
  }

  /** The one item a record the session files point at holds (an output, or an item of a failed request). */
  findItem(id: string): ConversationItem | undefined {
    let record = this.outputs.get(id);
    if (record === undefined) {
      this.readNew();
      record = this.outputs.get(id);
    }
    if (record === undefined) {
      this.readArchive();
      record = this.outputs.get(id);
    }
    return record?.input.length === 1 ? record.input[0] : undefined;
  }

  /** The record that came with a response, reading what other processes appended when needed. */
  find(responseId: string): LogRecord | undefined {
    const known = this.records.get(responseId);
    if (known !== undefined) return known;
    this.readNew();
    const found = this.records.get(responseId);
    if (found !== undefined) return found;
    this.readArchive();
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
      // Nothing before a compaction is replayed, so nothing before it need be there (prune.ts).
      id = hasCompaction(record) ? null : record.prev;
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
      const stats = fstatSync(fd);
      const size = stats.size;
      if (size < this.readOffset || (this.readIno !== undefined && stats.ino !== this.readIno)) {
        // Replaced (pruned by another process, restored from a backup, removed and begun again): read it whole.
        this.readOffset = 0;
        this.partial = '';
      }
      this.readIno = stats.ino;
      const chunk = Buffer.alloc(64 * 1024);
      while (this.readOffset < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - this.readOffset), this.readOffset);
        if (n <= 0) break;
        this.readOffset += n;
        this.stats.bytesRead = (this.stats.bytesRead ?? 0) + n;
        this.take(chunk.subarray(0, n).toString('latin1'));
      }
    } finally {
      closeSync(fd);
    }
    if (this.damaged > 0 && !this.told) this.repairAndSay();
  }

  /**
   * Said by the process that repairs the log, and only then: after the repair the file is whole,
   * so no later reader (this process or another) finds anything to say.
   */
  private repairAndSay(): void {
    this.told = true;
    const removed = this.repair();
    if (removed > 0)
      this.notice(
        `the conversation log ${this.path} had ${removed} damaged record${removed === 1 ? '' : 's'} (a crash while writing, or an edit): repaired to its last good record`,
      );
  }

  /**
   * Rewrites the log without its damaged lines (a torn tail: the log ends at its last good
   * record again), under the prune lock and in the prune's crash-safe way: the good records go to
   * a new file renamed over the log, the old file kept whole as the archive, so a record another
   * process appended meanwhile is still found. Returns how many damaged lines it removed: 0 when
   * another process is rewriting the log or already repaired it (then it has nothing to say).
   */
  private repair(): number {
    const lock = `${this.path}.pruning`;
    try {
      if (!createFileExclusive(lock, `${process.pid}\n`)) {
        if (Date.now() - statSync(lock).mtimeMs > PRUNE_LOCK_STALE_MS) unlinkQuiet(lock);
        return 0;
      }
    } catch {
      return 0;
    }
    try {
      // Read again under the lock: what counts is the file now, not what this process read before.
      let raw: Buffer;
      try {
        raw = readFileSync(this.path);
      } catch {
        return 0;
      }
      const good: string[] = [];
      let removed = 0;
      for (const line of raw.toString('latin1').split('\n')) {
        if (line === '') continue;
        if (decodeRecord(Buffer.from(line, 'latin1').toString('utf8')) === null) removed++;
        else good.push(`${line}\n`);
      }
      if (removed === 0) return 0;
      // The old file replaces the archive below, and the archive may hold what only it has: records
      // the last prune dropped that a session file still points at (published after the prune read
      // its pins), or one appended to the file that prune replaced. The next prune reads the
      // archive and keeps those; a repair does not choose, so it carries them all into the new
      // file, before the current lines (they are older). Without this a repair between two prunes
      // lost them (fault lane 8-log-prune found it).
      const text = Buffer.from([...archiveOnlyLines(this.archivePath, good), ...good].join(''), 'latin1');
      const tmp = writeTempFile(this.path, text);
      const archiveTmp = `${this.archivePath}.tmp-${process.pid}`;
      try {
        unlinkQuiet(archiveTmp);
        linkSync(this.path, archiveTmp);
        renameSync(archiveTmp, this.archivePath);
        renameSync(tmp, this.path);
        fsyncDirectory(dirname(this.path));
      } catch {
        unlinkQuiet(tmp);
        unlinkQuiet(archiveTmp);
        return 0;
      }
      // The records read so far stay valid (the same good lines); reading goes on in the new file.
      this.readIno = statSync(this.path).ino;
      this.readOffset = text.length;
      this.partial = '';
      this.archiveRead = undefined;
      return removed;
    } catch {
      return 0; // The repair is housekeeping: the damaged lines stay skipped.
    } finally {
      unlinkQuiet(lock);
    }
  }

  /**
   * Reads what is new in the archive a prune left: records only it holds are found there. New,
   * because the archive can still grow: an append that opened the log just before a prune
   * renamed it writes into the archive (append then writes its record again to the new log).
   */
  private readArchive(): void {
    let fd: number;
    try {
      fd = openSync(this.archivePath, 'r');
    } catch {
      return;
    }
    try {
      const stats = fstatSync(fd);
      if (this.archiveRead?.ino !== stats.ino) this.archiveRead = { ino: stats.ino, offset: 0 };
      const read = this.archiveRead;
      const chunk = Buffer.alloc(64 * 1024);
      let partial = '';
      for (let offset = read.offset; offset < stats.size; ) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, stats.size - offset), offset);
        if (n <= 0) break;
        offset += n;
        this.stats.bytesRead = (this.stats.bytesRead ?? 0) + n;
        const lines = (partial + chunk.subarray(0, n).toString('latin1')).split('\n');
        partial = lines.pop() ?? '';
        // Only whole lines count as read: a line still being written is read again next time.
        read.offset = offset - partial.length;
        for (const raw of lines) {
          const record = raw === '' ? null : decodeRecord(Buffer.from(raw, 'latin1').toString('utf8'));
          // The live log's copy wins: the archive only fills gaps.
          if (record !== null && !this.records.has(record.response_id) && !this.outputs.has(record.response_id)) this.keep(record);
        }
      }
    } finally {
      closeSync(fd);
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
      else this.keep(record);
    }
  }

  private keep(record: LogRecord, seenAt = this.fsyncGeneration): void {
    (isOutputRecord(record) ? this.outputs : this.records).set(record.response_id, record);
    if (!this.seenAtGeneration.has(record.response_id)) this.seenAtGeneration.set(record.response_id, seenAt);
  }
}

function endsInsideLine(fd: number, stats: Stats): boolean {
  if (stats.size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, stats.size - 1);
  return last[0] !== 0x0a;
}

function inodeAt(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** The good lines of the archive at `archivePath` that are not among `lines` (each with its newline); none when there is no archive. */
function archiveOnlyLines(archivePath: string, lines: readonly string[]): string[] {
  let raw: Buffer;
  try {
    raw = readFileSync(archivePath);
  } catch {
    return [];
  }
  const present = new Set(lines);
  const only: string[] = [];
  for (const line of raw.toString('latin1').split('\n')) {
    const withEnd = `${line}\n`;
    if (line === '' || present.has(withEnd)) continue;
    if (decodeRecord(Buffer.from(line, 'latin1').toString('utf8')) === null) continue;
    present.add(withEnd);
    only.push(withEnd);
  }
  return only;
}

/** A compaction item stands for everything before it: a replay starts there. */
export function sinceLastCompaction(items: ConversationItem[]): ConversationItem[] {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.type === 'compaction') return items.slice(i);
  return items;
}
