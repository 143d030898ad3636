import { appendFileSync, mkdtempSync, readFileSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../wire/items.ts';
import { ConversationLog, decodeRecord, encodeRecord, sinceLastCompaction, type LogRecord } from './conversation-log.ts';

const user = (text: string): ConversationItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const said = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const record = (id: string, prev: string | null, input: ConversationItem[], output: ConversationItem[] = [said(`answer ${id}`)]): LogRecord => ({
  prev,
  response_id: id,
  input,
  output,
  stored: true,
  at: '2026-12-03T00:00:00.000Z',
});
const freshPath = (): string => join(mkdtempSync(join(tmpdir(), 'agentx-log-')), 'sub', 'project.log');

describe('conversation log', () => {
  it('replays a conversation in order through its prev links, from another process’s view of the file', () => {
    const path = freshPath();
    const writer = new ConversationLog(path);
    writer.append(record('r1', null, [user('one')]));
    writer.append(record('r2', 'r1', [user('two')]));
    writer.append(record('r3', 'r2', [user('three')]));
    const reader = new ConversationLog(path);
    expect(reader.conversation('r3')).toEqual([user('one'), said('answer r1'), user('two'), said('answer r2'), user('three'), said('answer r3')]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(writer.stats).toEqual({ appends: 3, bytesWritten: readFileSync(path).length, fsyncs: 3 });
  });

  it('branches: a rollback or a one-shot continues an earlier response without copying anything', () => {
    const log = new ConversationLog(freshPath());
    log.append(record('r1', null, [user('one')]));
    log.append(record('r2', 'r1', [user('two')]));
    log.append(record('b2', 'r1', [user('branch')]));
    expect(log.conversation('b2')).toEqual([user('one'), said('answer r1'), user('branch'), said('answer b2')]);
    expect(log.conversation('r2')?.map((i) => JSON.stringify(i))).not.toContain(JSON.stringify(user('branch')));
  });

  it('starts a replay at the last compaction item', () => {
    const compaction: ConversationItem = { type: 'compaction', encrypted_content: 'x' };
    expect(sinceLastCompaction([user('a'), compaction, user('b')])).toEqual([compaction, user('b')]);
  });

  it('is null when the log does not reach back to the start (a missing record)', () => {
    const log = new ConversationLog(freshPath());
    log.append(record('r2', 'r1', [user('two')]));
    expect(log.conversation('r2')).toBeNull();
    expect(log.conversation('nope')).toBeNull();
  });

  it('a torn last line (kill -9 mid-write) is repaired away by the next append, said once; a second process says nothing', () => {
    const path = freshPath();
    const log = new ConversationLog(path);
    log.append(record('r1', null, [user('one')]));
    const good = readFileSync(path);
    log.append(record('r2', 'r1', [user('two')]));
    truncateSync(path, statSync(path).size - 25);
    const notices: string[] = [];
    const first = new ConversationLog(path, (l) => notices.push(`first: ${l}`));
    first.append(record('r3', 'r1', [user('three')]));
    // The torn record is gone from the file, which goes on right after the last good record.
    expect(readFileSync(path).subarray(0, good.length)).toEqual(good);
    expect(readFileSync(path).length).toBe(good.length + Buffer.byteLength(encodeRecord(record('r3', 'r1', [user('three')]))));
    const second = new ConversationLog(path, (l) => notices.push(`second: ${l}`));
    expect(second.conversation('r3')).toEqual([user('one'), said('answer r1'), user('three'), said('answer r3')]);
    expect(second.find('r2')).toBeUndefined();
    second.append(record('r4', 'r3', [user('four')]));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^first: the conversation log .* had 1 damaged record .*: repaired to its last good record$/);
  });

  it('a damaged line inside the log (a torn record an older agentx appended after) is repaired by the first reader only', () => {
    const path = freshPath();
    const log = new ConversationLog(path);
    log.append(record('r1', null, [user('one')]));
    appendFileSync(path, '0123456789abcdef {"prev":"r1","resp\n');
    log.append(record('r2', 'r1', [user('two')]));
    const notices: string[] = [];
    const readerA = new ConversationLog(path, (l) => notices.push(`A: ${l}`));
    expect(readerA.conversation('r2')).toEqual([user('one'), said('answer r1'), user('two'), said('answer r2')]);
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .every((l) => decodeRecord(l) !== null),
    ).toBe(true);
    const readerB = new ConversationLog(path, (l) => notices.push(`B: ${l}`));
    expect(readerB.conversation('r2')).toHaveLength(4);
    expect(readerB.find('zzz')).toBeUndefined();
    expect(notices).toEqual([expect.stringMatching(/^A: .*1 damaged record.*repaired/)]);
    // The old file is kept whole as the archive (the prune's way: nothing another process wrote meanwhile is lost).
    expect(readFileSync(`${path}.1`, 'utf8')).toContain('{"prev":"r1","resp\n');
  });

  it('while another process holds the prune lock, a reader leaves the log to it and says nothing', () => {
    const path = freshPath();
    new ConversationLog(path).append(record('r1', null, [user('one')]));
    appendFileSync(path, 'torn\n');
    writeFileSync(`${path}.pruning`, '1\n');
    const notices: string[] = [];
    expect(new ConversationLog(path, (l) => notices.push(l)).conversation('r1')).toHaveLength(2);
    expect(notices).toEqual([]);
    expect(readFileSync(path, 'utf8')).toContain('torn\n');
  });

  it('an altered record fails its checksum and is not used', () => {
    const path = freshPath();
    new ConversationLog(path).append(record('r1', null, [user('run rm -rf')]));
    writeFileSync(path, readFileSync(path, 'utf8').replace('run rm -rf', 'run rm -rF'));
    expect(new ConversationLog(path).conversation('r1')).toBeNull();
    expect(decodeRecord(encodeRecord(record('r1', null, [user('ok')])).trimEnd())).not.toBeNull();
    expect(decodeRecord('0123456789abcdef {"not":"ours"}')).toBeNull();
  });

  it('keeps multi-byte text whole across read chunks', () => {
    const path = freshPath();
    const big = 'ä€😀'.repeat(40_000);
    new ConversationLog(path).append(record('r1', null, [user(big)]));
    appendFileSync(path, '');
    expect(new ConversationLog(path).conversation('r1')?.[0]).toEqual(user(big));
  });

  it('knows which records an fsync of its covered: its own after the next fsync, another process’s after its own next one', () => {
    const path = freshPath();
    const log = new ConversationLog(path);
    log.append(record('o1', null, [user('one')]), { sync: false });
    expect(log.isDurable('o1')).toBe(false);
    log.append(record('r1', null, [user('two')]));
    expect(log.isDurable('r1')).toBe(true);
    expect(log.isDurable('o1')).toBe(true);
    log.append(record('o2', 'r1', [user('three')]), { sync: false });
    // Another process finds both in the file: it cannot know whether the writer synced them.
    const other = new ConversationLog(path);
    expect(other.find('o2')).toBeDefined();
    expect(other.isDurable('o1')).toBe(false);
    other.sync();
    expect(other.isDurable('o1')).toBe(true);
    expect(other.isDurable('o2')).toBe(true);
    expect(log.isDurable('o2')).toBe(false);
    expect(log.isDurable('nope')).toBe(false);
  });

  it('an append that cannot be written throws (the caller must not act on the response)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-log-'));
    writeFileSync(join(dir, 'file'), '');
    const log = new ConversationLog(join(dir, 'file', 'project.log'));
    expect(() => log.append(record('r1', null, [user('one')]))).toThrow(/could not write the conversation log/);
  });
});
