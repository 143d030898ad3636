// Pruning the conversation log: the policy (pure) and the rewrite on real files, with another
// "process" (a second ConversationLog on the same file) appending and reading around it.
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../wire/items.ts';
import { ConversationLog, encodeRecord, type LogRecord } from './conversation-log.ts';
import { recordsToKeep } from './prune.ts';

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

  it('survives a cycle in a hand-edited log', () => {
    const a = rec('c1', 'c2');
    const b = rec('c2', 'c1');
    expect(ids(recordsToKeep([a, b, rec('t', 'c2')], { size }))).toEqual(['c1', 'c2', 't']);
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
