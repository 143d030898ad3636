// Pruning the conversation log: the policy (pure) and the rewrite on real files, with another
// "process" (a second ConversationLog on the same file) appending and reading around it.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../wire/items.ts';
import { ConversationLog, encodeRecord, type LogRecord } from './conversation-log.ts';
import { MAX_TIPS, newestFirst, outputsToKeep, recordsToKeep } from './prune.ts';
import { outputRecordId } from './record.ts';

const user = (text: string): ConversationItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const said = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const compaction: ConversationItem = { type: 'compaction', encrypted_content: 'summary' };
let clock = 0;
const rec = (id: string, prev: string | null, extra: ConversationItem[] = []): LogRecord => ({
  prev,
  response_id: id,
  input: [user(`say ${id} ${'x'.repeat(200)}`), ...extra],
  output: [said(`answer ${id}`)],
  stored: true,
  at: new Date(Date.UTC(2026, 11, 4) + clock++ * 1000).toISOString(),
});
const size = (r: LogRecord): number => encodeRecord(r).length;
const ids = (rs: readonly LogRecord[]): string[] => rs.map((r) => r.response_id);

describe('which records a prune keeps', () => {
  it('keeps each tip back to its last compaction, and drops what only leads there', () => {
    const rs = [rec('a1', null), rec('a2', 'a1'), rec('a3', 'a2', [compaction]), rec('a4', 'a3'), rec('a5', 'a4')];
    expect(ids(recordsToKeep(rs, { size }))).toEqual(['a3', 'a4', 'a5']);
  });

  it('keeps branches (a rollback, a one-shot) that share records once, and drops the oldest tips beyond the limit', () => {
    const rs = [rec('r1', null), rec('r2', 'r1'), rec('old', 'r1'), rec('one', 'r2'), rec('r3', 'r2')];
    expect(ids(recordsToKeep(rs, { size }))).toEqual(['r1', 'r2', 'old', 'one', 'r3']);
    // Two tips allowed: the newest two (r3, one); `old` goes, the shared trunk stays.
    expect(ids(recordsToKeep(rs, { size, maxTips: 2 }))).toEqual(['r1', 'r2', 'one', 'r3']);
  });

  it('keeps the newest branch whole even past the byte limit, and no older one that does not fit', () => {
    const rs = [rec('o1', null), rec('n1', null), rec('n2', 'n1'), rec('n3', 'n2')];
    expect(ids(recordsToKeep(rs, { size, maxBytes: 10 }))).toEqual(['n1', 'n2', 'n3']);
  });

  it('keeps a pinned branch (the REPL head) back to its last compaction beyond MAX_TIPS newer tips and beyond the byte limit', () => {
    const rs = [rec('h1', null), rec('h2', 'h1', [compaction]), rec('h3', 'h2'), rec('head', 'h3')];
    // More one-shots than MAX_TIPS after it, each its own branch from h3 (the checkpoint, a turn behind the REPL's head).
    for (let i = 0; i < MAX_TIPS + 6; i++) rs.push(rec(`one${i}`, 'h3'));
    const pinned = new Set(['head']);
    const kept = ids(recordsToKeep(rs, { size, pinned }));
    expect(kept).toEqual(expect.arrayContaining(['h2', 'h3', 'head']));
    expect(kept).not.toContain('h1'); // before the compaction: no replay needs it
    // The newest MAX_TIPS one-shots are kept beside it, the oldest beyond that are not.
    expect(kept.filter((id) => id.startsWith('one'))).toHaveLength(MAX_TIPS);
    expect(kept).not.toContain('one0');
    // Unpinned, the head goes (what happened before pins).
    expect(ids(recordsToKeep(rs, { size }))).not.toContain('head');
    // Pins win over the byte limit: with room for nothing, the pinned branch and the newest one are kept, nothing else.
    expect(ids(recordsToKeep(rs, { size, pinned, maxBytes: 10 }))).toEqual(['h2', 'h3', 'head', `one${MAX_TIPS + 5}`]);
  });

  it('a pin that is not a tip keeps its branch; an unknown pin changes nothing', () => {
    const rs = [rec('p1', null), rec('p2', 'p1'), rec('p3', 'p2'), rec('n1', null)];
    expect(ids(recordsToKeep(rs, { size, maxTips: 1, pinned: new Set(['p2', 'nope']) }))).toEqual(['p1', 'p2', 'n1']);
  });

  it('keeps every branch written since `recentSince` like a pinned one, past the byte limit (a file may be about to point at it)', () => {
    const rs = [rec('r1', null), rec('r2', null), rec('r3', null), rec('r4', null)];
    expect(ids(recordsToKeep(rs, { size, maxBytes: 1 }))).toEqual(['r4']);
    expect(ids(recordsToKeep(rs, { size, maxBytes: 1, recentSince: rs[1]?.at }))).toEqual(['r2', 'r3', 'r4']);
    const unchained = { ...rec('u1', null), response_id: outputRecordId(null, 'u1'), prev: null };
    expect(outputsToKeep([unchained], new Set(), { maxUnchained: 0 })).toEqual([]);
    expect(outputsToKeep([unchained], new Set(), { maxUnchained: 0, recentSince: unchained.at })).toEqual([unchained]);
  });

  it('survives a cycle in a hand-edited log', () => {
    const a = rec('c1', 'c2');
    const b = rec('c2', 'c1');
    expect(ids(recordsToKeep([a, b, rec('t', 'c2')], { size }))).toEqual(['c1', 'c2', 't']);
  });
});

describe('which tool outputs a prune keeps', () => {
  const output = (responseId: string | null, callId: string, at: string): LogRecord => ({
    prev: responseId,
    response_id: outputRecordId(responseId, callId),
    input: [{ type: 'function_call_output', call_id: callId, output: 'out' }],
    output: [],
    stored: false,
    at,
  });

  it('keeps those of kept responses, those a file points at, and the newest unchained ones', () => {
    const at = '2026-12-04T00:00:00.000Z';
    const later = '2026-12-05T00:00:00.000Z';
    const outputs = [output('kept', 'c1', at), output('gone', 'c2', at), output(null, 'pinned', at), output(null, 'u1', at), output(null, 'u2', later)];
    const keptIds = (pinned: string[], maxUnchained: number): string[] =>
      ids(outputsToKeep(outputs, new Set(['kept']), { pinned: new Set(pinned), maxUnchained })).map((id) => id.replace(/^agentx-output:/, ''));
    expect(keptIds([], 1)).toEqual(['kept:c1', '-:u2']);
    // The retry data of a failed first request points at its output: kept however many newer ones there are.
    expect(keptIds([outputRecordId(null, 'pinned')], 1)).toEqual(['kept:c1', '-:pinned', '-:u2']);
    // Written at the same moment: the later in the file is the newer.
    expect(keptIds([], 2)).toEqual(['kept:c1', '-:u1', '-:u2']);
    expect(ids(outputsToKeep([output(null, 'a', at), output(null, 'b', at)], new Set(), { maxUnchained: 1 }))).toEqual([outputRecordId(null, 'b')]);
  });

  it('orders newest first by time, the later in the file first on a tie', () => {
    const r = (id: string, at: string) => ({ id, at });
    expect(newestFirst([r('a', '1'), r('b', '2'), r('c', '1'), r('d', '2')]).map((x) => x.id)).toEqual(['d', 'b', 'c', 'a']);
  });
});

describe('pruning the file', () => {
  it('rewrites a log past its limit to what replays need, keeps the old file as the archive, and replays the same', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentx-prune-')), 'project.log');
    const writer = new ConversationLog(path, () => undefined, { pruneAtBytes: 8 * 1024 });
    const other = new ConversationLog(path, (line) => {
      throw new Error(`unexpected notice: ${line}`);
    });
    let prev: string | null = null;
    for (let i = 0; i < 40; i++) {
      const id = `t${i}`;
      writer.append(rec(id, prev, i === 20 ? [compaction] : []));
      prev = id;
      // The other process reads along (as a REPL beside a one-shot does).
      if (i === 10) expect(other.find('t10')).toBeDefined();
    }
    expect(writer.stats.prunes).toBeGreaterThanOrEqual(1);
    // What is left is the conversation since the compaction (kept whole, past the limit too).
    expect(statSync(path).size).toBeLessThan(writer.stats.bytesWritten * 0.75);
    expect(existsSync(writer.archivePath)).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('"t5"');
    expect(text).toContain('"t20"');
    // The replay since the compaction is whole, for this process and for the other one.
    const replay = writer.conversation('t39');
    expect(replay?.[0]).toEqual(compaction);
    expect(replay).toHaveLength(2 + 2 * 19);
    expect(new ConversationLog(path).conversation('t39')).toEqual(replay);
    expect(other.conversation('t39')).toEqual(replay);
    // The other process appends to the replaced file and both read on without a damaged record.
    other.append(rec('t40', 't39'));
    expect(writer.conversation('t40')).toHaveLength(2 + 2 * 20);
    // A record the prune dropped is still found in the archive until the next prune.
    expect(new ConversationLog(path).find('t19')).toBeDefined();
  });
});

describe('pruning keeps what the session files point at', () => {
  it('the REPL head’s branch and its retry data stay readable after 70 one-shots from other processes, with a tiny limit', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentx-prune-')), 'project.log');
    const retryItem = outputRecordId(null, 'item-retry');
    // What the REPL's state file points at, as store/log-pins.ts reads it for every process's prune.
    const pins = (): string[] => ['head', retryItem];
    const repl = new ConversationLog(path, () => undefined, { pruneAtBytes: 8 * 1024 });
    repl.pinWith(pins);
    repl.append(rec('h1', null));
    repl.append(rec('h2', 'h1', [compaction]));
    repl.append(rec('h3', 'h2'));
    repl.append(rec('head', 'h3'));
    // A failed first request's output, kept for Retry (prev null), written before the one-shots'.
    const retryOutput: ConversationItem = { type: 'function_call_output', call_id: 'retry', output: 'ran once' };
    repl.append({ prev: null, response_id: retryItem, input: [retryOutput], output: [], stored: false, at: rec('x', null).at }, { sync: false });
    const replay = repl.conversation('head');
    expect(replay?.[0]).toEqual(compaction);
    for (let i = 0; i < 70; i++) {
      // Each one-shot is a process of its own: it branches from the checkpoint (h3, a turn behind the head) and prunes.
      const oneshot = new ConversationLog(path, () => undefined, { pruneAtBytes: 8 * 1024 });
      oneshot.pinWith(pins);
      oneshot.append(rec(`one${i}`, 'h3'));
      oneshot.append({ ...rec(`one${i}-failed`, null), response_id: outputRecordId(null, `item-${i}`) }, { sync: false });
    }
    const fresh = new ConversationLog(path);
    // In the live log itself, not only in the archive the last prune left.
    expect(readFileSync(path, 'utf8')).toContain('"response_id":"head"');
    expect(fresh.conversation('head')).toEqual(replay);
    expect(fresh.findItem(retryItem)).toEqual(retryOutput);
    // The log was pruned: the oldest one-shots are gone from it and from its archive.
    expect(fresh.find('one0')).toBeUndefined();
  });
});

describe('a prune or a repair racing other processes loses nothing (fault lane 8-log-prune found these)', () => {
  const pruned = (): { path: string; writer: ConversationLog } => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentx-prune-')), 'project.log');
    const writer = new ConversationLog(path, () => undefined, { pruneAtBytes: 8 * 1024 });
    let prev: string | null = null;
    for (let i = 0; i < 40; i++) {
      writer.append(rec(`p${i}`, prev, i === 20 ? [compaction] : []));
      prev = `p${i}`;
    }
    expect(writer.stats.prunes).toBeGreaterThanOrEqual(1);
    expect(readFileSync(path, 'utf8')).not.toContain('"p5"');
    return { path, writer };
  };

  it('a record appended to the archive after a reader read it (an append that opened the log just before the prune renamed it) is found', () => {
    const { path, writer } = pruned();
    const reader = new ConversationLog(path);
    expect(reader.find('p5')).toBeDefined(); // read from the archive
    appendFileSync(writer.archivePath, encodeRecord(rec('late', null)));
    expect(reader.find('late')?.response_id).toBe('late');
  });

  it('a repair carries the records only the archive holds into the log before the old log replaces the archive', () => {
    const { path, writer } = pruned();
    appendFileSync(writer.archivePath, encodeRecord(rec('late', null)));
    appendFileSync(path, '0123456789abcdef {"prev":"torn\n');
    const notices: string[] = [];
    expect(new ConversationLog(path, (l) => notices.push(l)).conversation('p39')?.[0]).toEqual(compaction);
    expect(notices).toEqual([expect.stringMatching(/1 damaged record.*repaired/)]);
    expect(readFileSync(writer.archivePath, 'utf8')).toContain('{"prev":"torn');
    const after = new ConversationLog(path);
    expect(after.find('late')?.response_id).toBe('late');
    expect(after.conversation('p10')).toHaveLength(22);
    expect(after.conversation('p39')).toEqual(writer.conversation('p39'));
  });
});
