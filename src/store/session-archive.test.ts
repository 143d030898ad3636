import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ARCHIVE_MAX, archiveSession, firstPromptOf, listArchive, readArchivedState, removeFromArchive, setAsideRefused } from './session-archive.ts';
import { sealJson, useStateKey } from './seal.ts';
import { stateForDisk } from './parse.ts';
import { emptyState, recordToolCalls, recordTurn, type SessionState } from './state.ts';
import { markToolCall } from '../engine/journal.ts';

const usage = { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0 };
let root: string;
let dir: string;

function conversation(first: string, turns: number): SessionState {
  let s = emptyState();
  for (let i = 0; i < turns; i++) {
    const text = i === 0 ? first : `message ${i}`;
    s = recordTurn(s, { responseId: `resp_${first.length}_${i}`, userMessage: text, assistantMessage: `answer ${i}`, usage, now: new Date() });
  }
  return s;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentx-archive-'));
  dir = join(root, 'sessions', 'project-0123');
  useStateKey(join(root, 'state.key'));
});
afterEach(() => useStateKey(undefined));

describe('the archive of earlier conversations', () => {
  it('keeps a conversation whole (journal included) and gives it back, newest first', () => {
    // A turn stopped mid-way: one call completed, one started. Resuming must show both as they were.
    let s = conversation('fix the parser', 2);
    s = recordToolCalls(s, {
      responseId: 'resp_calls',
      userMessage: 'run it',
      usage,
      calls: [
        { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"commands":["make"]}', status: 'pending' },
        { type: 'function_call', call_id: 'c2', name: 'shell', arguments: '{"commands":["make test"]}', status: 'pending' },
      ],
    });
    s = markToolCall(s, 'c1', 'completed', { type: 'function_call_output', call_id: 'c1', output: 'ok' });
    s = markToolCall(s, 'c2', 'started');
    archiveSession(dir, conversation('older one', 1), new Date('2026-12-01T10:00:00Z'));
    const file = archiveSession(dir, s, new Date('2026-12-02T10:00:00Z'));
    expect(readFileSync(file ?? '', 'utf8')).toMatch(/^\{\n {2}"agentx_seal": "hmac-sha256:/);

    const { sessions, refused } = listArchive(dir);
    expect(refused).toEqual([]);
    expect(sessions.map((e) => e.firstPrompt)).toEqual(['fix the parser', 'older one']);
    const newest = sessions[0];
    expect(newest?.turns).toBe(2);
    expect(newest?.responseId).toBe('resp_calls');
    expect(newest?.lastMessage).toBe('run it');
    expect(readArchivedState(newest ?? { file: '' })?.pending_tool_calls.map((c) => [c.call_id, c.status, c.output])).toEqual([
      ['c1', 'completed', { type: 'function_call_output', call_id: 'c1', output: 'ok' }],
      ['c2', 'started', undefined],
    ]);
    removeFromArchive(newest ?? { file: '' });
    expect(listArchive(dir).sessions.map((e) => e.firstPrompt)).toEqual(['older one']);
  });

  it('keeps the files the conversation changed, bounded to 20 names with the whole count', () => {
    const paths = Array.from({ length: 30 }, (_, i) => `src/f${String(i).padStart(2, '0')}.ts`);
    archiveSession(dir, conversation('with files', 1), new Date('2026-12-01T10:00:00Z'), paths);
    archiveSession(dir, conversation('without', 1), new Date('2026-12-02T10:00:00Z'));
    const [without, withFiles] = listArchive(dir).sessions;
    expect(without?.filesChanged).toBeUndefined();
    expect(withFiles?.filesChanged?.count).toBe(30);
    expect(withFiles?.filesChanged?.paths).toEqual(paths.slice(0, 20));
  });

  it('an empty conversation is not kept', () => {
    expect(archiveSession(dir, emptyState(), new Date())).toBeUndefined();
    expect(listArchive(dir)).toEqual({ sessions: [], refused: [] });
  });

  it(`keeps the last ${ARCHIVE_MAX}, pruning the oldest first`, () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < ARCHIVE_MAX + 3; i++) archiveSession(dir, conversation(`prompt ${i}`, 1), new Date(start + i * 60_000));
    expect(readdirSync(dir)).toHaveLength(ARCHIVE_MAX);
    const prompts = listArchive(dir).sessions.map((e) => e.firstPrompt);
    expect(prompts).toHaveLength(ARCHIVE_MAX);
    expect(prompts[0]).toBe(`prompt ${ARCHIVE_MAX + 2}`);
    expect(prompts.at(-1)).toBe('prompt 3');
  });

  it('refuses entries agentx did not write there: edited, copied from another project, unsigned, not JSON', () => {
    const good = archiveSession(dir, conversation('the real one', 1), new Date('2026-12-03T00:00:00Z')) ?? '';
    const text = readFileSync(good, 'utf8');
    // Edited: the chain head pointed at another conversation.
    writeFileSync(join(dir, '2026-12-04T00-00-00-000Z-aaaaaaaa.json'), text.replace('the real one', 'a forged one'));
    // Sealed for another project's archive, copied here.
    const other = join(root, 'sessions', 'other-project');
    const foreign = archiveSession(other, conversation('from elsewhere', 1), new Date('2026-12-05T00:00:00Z')) ?? '';
    copyFileSync(foreign, join(dir, '2026-12-05T00-00-00-000Z-bbbbbbbb.json'));
    // Unsigned, and garbage.
    writeFileSync(join(dir, '2026-12-06T00-00-00-000Z-cccccccc.json'), JSON.stringify({ archived_at: 'x', first_prompt: 'unsigned', turns: 1, state: {} }));
    writeFileSync(join(dir, '2026-12-07T00-00-00-000Z-dddddddd.json'), 'not json');
    const { sessions, refused } = listArchive(dir);
    expect(sessions.map((e) => e.firstPrompt)).toEqual(['the real one']);
    expect(refused).toHaveLength(4);
    // Kept aside once said: the next listing neither offers nor reports them again.
    setAsideRefused(refused);
    expect(listArchive(dir)).toMatchObject({ refused: [] });
    expect(listArchive(dir).sessions.map((e) => e.firstPrompt)).toEqual(['the real one']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.refused'))).toHaveLength(4);
  });

  it('a sealed entry with an unusable state is refused too', () => {
    mkdirSync(dir, { recursive: true });
    const file = archiveSession(dir, conversation('x', 1), new Date()) ?? '';
    // Not reachable without the key: this proves the parser, not the seal, rejects it.
    useStateKey(undefined);
    writeFileSync(file, JSON.stringify({ archived_at: 'x', first_prompt: 'x', turns: 1, state: { response_id: 42 } }));
    expect(listArchive(dir).refused).toEqual([file]);
  });

  it("the list reads only the entry's own fields: the state is parsed for the one chosen", () => {
    const file = archiveSession(dir, conversation('listed', 2), new Date('2026-12-01T10:00:00Z')) ?? '';
    // Sealed, its small fields intact, its state unusable: listed (its state was not parsed), refused when chosen.
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete entry.agentx_seal;
    writeFileSync(file, sealJson(file, `${JSON.stringify({ ...entry, state: { response_id: 42 } }, null, 2)}\n`));
    const [listed] = listArchive(dir).sessions;
    expect(listed).toMatchObject({ firstPrompt: 'listed', turns: 2, responseId: 'resp_6_1', lastMessage: 'message 1' });
    expect(readArchivedState(listed ?? { file: '' })).toBeNull();
  });

  it('an entry written before the small fields existed is listed from its state, and loads', () => {
    mkdirSync(dir, { recursive: true });
    const state = conversation('from an older agentx', 3);
    const file = join(dir, '2026-11-01T00-00-00-000Z-0123abcd.json');
    const old = { archived_at: '2026-11-01T00:00:00.000Z', first_prompt: 'from an older agentx', turns: 3, state: stateForDisk(state) };
    writeFileSync(file, sealJson(file, `${JSON.stringify(old, null, 2)}\n`));
    const { sessions, refused } = listArchive(dir);
    expect(refused).toEqual([]);
    expect(sessions[0]).toMatchObject({ file, turns: 3, responseId: state.response_id, lastMessage: 'message 2' });
    expect(readArchivedState({ file })?.history).toHaveLength(3);
  });

  it("the first prompt is the oldest checkpoint's message, else the oldest in the local context", () => {
    expect(firstPromptOf(conversation('hello there', 3))).toBe('hello there');
    const open = recordToolCalls(emptyState(), { responseId: 'resp_a', userMessage: 'list files', usage, calls: [] });
    expect(firstPromptOf(open)).toBe('list files');
  });
});
