// createConversation's state transitions, one at a time: how each request carries the
// conversation (chained, replayed from the log, or a lossy new chain from the state file), when
// a server is taken for one that stores nothing, and what each exchange appends to the log.
// A real log file in a temp directory; the capability memory is the in-memory one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletedResponse } from '../model/types.ts';
import { ConversationLog, LogWriteError } from '../store/log/conversation-log.ts';
import { emptyState, type SessionState } from '../store/state.ts';
import type { ConversationItem, FunctionCallItem, InputItem } from '../wire/items.ts';
import { STATELESS_RECHECK_MS, createConversation, parseStoreSetting, type ConversationDeps, type StoreSetting } from './conversation.ts';
import { inMemoryCapabilities, UNKNOWN_CAPABILITIES, type CapabilityMemory } from './server-capabilities.ts';

const NOW = new Date('2026-12-05T12:00:00.000Z');
const user = (text: string): InputItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const said = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const call: FunctionCallItem = { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{}' };
const callOutput: InputItem = { type: 'function_call_output', call_id: 'c1', output: 'looked up' };
const response = (id: string, items: ConversationItem[] = [said(`answer ${id}`)]): CompletedResponse => ({
  id,
  status: 'completed',
  text: '',
  toolCalls: [],
  items,
  usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 },
});
const freshLog = (): ConversationLog => new ConversationLog(join(mkdtempSync(join(tmpdir(), 'agentx-conv-')), 'project.log'));

interface Setup {
  log?: ConversationLog | null;
  setting?: StoreSetting;
  capabilities?: CapabilityMemory;
  state?: SessionState;
  key?: string;
}

function setup(o: Setup = {}) {
  const notices: string[] = [];
  const log = o.log === null ? undefined : (o.log ?? freshLog());
  const capabilities = o.capabilities ?? inMemoryCapabilities();
  const deps: ConversationDeps = {
    log,
    setting: o.setting ?? 'auto',
    capabilities,
    promptCacheKey: o.key,
    state: () => o.state ?? emptyState(),
    newChainBudgetChars: () => 4096,
    notice: (line) => notices.push(line),
    now: () => NOW,
  };
  return { conversation: createConversation(deps), log, capabilities, notices };
}

/** Sends an attempt and records its response, as the compaction driver does. */
function exchange(c: ReturnType<typeof setup>['conversation'], input: InputItem[], prev: string | null, id: string, output?: ConversationItem[]) {
  const attempt = { input, previousResponseId: prev };
  const sent = c.wire(attempt);
  c.received(attempt, sent, response(id, output));
  return sent;
}

const statelessSince = (ms: number): CapabilityMemory =>
  inMemoryCapabilities({ ...UNKNOWN_CAPABILITIES, storesResponses: 'no', statelessSince: new Date(NOW.getTime() - ms).toISOString() });

describe('parseStoreSetting', () => {
  it('reads on, off and auto (empty is auto), and refuses anything else', () => {
    expect([undefined, '', ' AUTO ', 'on', 'Off'].map(parseStoreSetting)).toEqual(['auto', 'auto', 'auto', 'on', 'off']);
    expect(parseStoreSetting('yes')).toEqual({ error: 'AGENTX_STORE must be on, off or auto (got "yes")' });
  });
});

describe('whether requests are stateless', () => {
  it('AGENTX_STORE decides when set; auto follows what is remembered of the server, for a day', () => {
    expect(setup({ setting: 'off' }).conversation.stateless()).toBe(true);
    expect(setup({ setting: 'on', capabilities: statelessSince(1000) }).conversation.stateless()).toBe(false);
    expect(setup().conversation.stateless()).toBe(false);
    expect(setup({ capabilities: statelessSince(1000) }).conversation.stateless()).toBe(true);
    // A day later the verdict has expired: the next request chains again (one probe).
    expect(setup({ capabilities: statelessSince(STATELESS_RECHECK_MS) }).conversation.stateless()).toBe(false);
    // A date in the future or one that does not parse is no verdict.
    expect(setup({ capabilities: statelessSince(-60_000) }).conversation.stateless()).toBe(false);
    const unreadable = inMemoryCapabilities({ ...UNKNOWN_CAPABILITIES, storesResponses: 'no', statelessSince: 'yesterday' });
    expect(setup({ capabilities: unreadable }).conversation.stateless()).toBe(false);
  });

  it('storage: store follows statelessness; the prompt cache key is carried when there is one', () => {
    const first = { input: [user('hi')], previousResponseId: null };
    expect(setup({ key: 'agentx-00112233aabbccdd' }).conversation.wire(first).storage).toEqual({ store: true, promptCacheKey: 'agentx-00112233aabbccdd' });
    expect(setup({ setting: 'off', key: 'k' }).conversation.wire(first).storage).toEqual({ store: false, promptCacheKey: 'k' });
    expect(setup().conversation.wire(first).storage).toEqual({ store: true });
  });
});

describe('wire: what a request carries', () => {
  it('a first request is a new chain; tool outputs without their calls go as text', () => {
    const { conversation } = setup({ key: 'k' });
    const sent = conversation.wire({ input: [callOutput, user('hi')], previousResponseId: null });
    expect(sent).toMatchObject({ previousResponseId: null, replayed: false, storage: { store: true, promptCacheKey: 'k' } });
    expect(sent.input).toHaveLength(2);
    expect(JSON.stringify(sent.input[0])).toContain('looked up');
    expect(sent.input[1]).toEqual(user('hi'));
  });

  it('continues a stored chain with only the new items', () => {
    const { conversation } = setup();
    exchange(conversation, [user('one')], null, 'r1');
    expect(conversation.wire({ input: [user('two')], previousResponseId: 'r1' })).toEqual({
      input: [user('two')],
      previousResponseId: 'r1',
      replayed: false,
      storage: { store: true },
    });
  });

  it('a lost chain (replay) carries the logged conversation, calls and outputs included, then the new items', () => {
    const { conversation } = setup({ key: 'k' });
    exchange(conversation, [user('one')], null, 'r1', [call]);
    exchange(conversation, [callOutput], 'r1', 'r2');
    const sent = conversation.wire({ input: [user('three')], previousResponseId: 'r2', replay: true });
    expect(sent).toEqual({
      input: [user('one'), call, callOutput, said('answer r2'), user('three')],
      previousResponseId: null,
      replayed: true,
      storage: { store: true, promptCacheKey: 'k' },
    });
  });

  it('replays when the server stores nothing, and when the response was not stored', () => {
    const off = setup({ setting: 'off' });
    exchange(off.conversation, [user('one')], null, 'r1');
    expect(off.conversation.wire({ input: [user('two')], previousResponseId: 'r1' })).toMatchObject({
      input: [user('one'), said('answer r1'), user('two')],
      previousResponseId: null,
      replayed: true,
      storage: { store: false },
    });
    // Logged with stored: false (say by a one-shot under AGENTX_STORE=off): chaining from it would fail.
    const log = freshLog();
    log.append({ prev: null, response_id: 'r9', input: [user('one')], output: [said('nine')], stored: false, at: NOW.toISOString() });
    expect(setup({ setting: 'on', log }).conversation.wire({ input: [user('two')], previousResponseId: 'r9' })).toMatchObject({
      previousResponseId: null,
      replayed: true,
    });
  });

  it("nothing in the log to replay (a lost log, or none): the state file's bounded context starts a lossy new chain", () => {
    const state: SessionState = { ...emptyState(), transcript: [{ role: 'user', text: 'remember PET=otter', response_id: 'r0' }] };
    for (const log of [null, freshLog()]) {
      const { conversation } = setup({ log, state, setting: 'off' });
      expect(conversation.canReplay('r0')).toBe(false);
      const sent = conversation.wire({ input: [user('recall')], previousResponseId: 'r0' });
      expect(sent).toMatchObject({ previousResponseId: null, replayed: false, storage: { store: false } });
      expect(JSON.stringify(sent.input[0])).toContain('remember PET=otter');
      expect(sent.input.at(-1)).toEqual(user('recall'));
    }
  });
});

describe('chainLost: learning that the server stores nothing', () => {
  it('a response this process had just had stored is unknown: remembered as stateless, said once', () => {
    const { conversation, capabilities, notices } = setup();
    exchange(conversation, [user('one')], null, 'r1');
    expect(conversation.chainLost('r1')).toBe(true);
    expect(capabilities.get()).toMatchObject({ storesResponses: 'no', statelessSince: NOW.toISOString() });
    expect(conversation.stateless()).toBe(true);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^This server does not keep conversations/);
    // Already known: nothing more to learn or say.
    expect(conversation.chainLost('r1')).toBe(false);
    expect(notices).toHaveLength(1);
  });

  it('not learnt from a response of another process (it may simply have expired), nor when AGENTX_STORE decides', () => {
    const other = setup();
    expect(other.conversation.chainLost('r_from_yesterday')).toBe(false);
    expect(other.capabilities.get().storesResponses).toBeUndefined();
    for (const setting of ['on', 'off'] as const) {
      const s = setup({ setting });
      exchange(s.conversation, [user('one')], null, 'r1');
      expect(s.conversation.chainLost('r1')).toBe(false);
      expect(s.notices).toEqual([]);
    }
    // A response sent with store: false was never expected to be kept.
    const unstored = setup({ setting: 'auto', capabilities: statelessSince(1000) });
    exchange(unstored.conversation, [user('one')], null, 'r1');
    expect(unstored.conversation.chainLost('r1')).toBe(false);
  });
});

describe('received: what the log records', () => {
  it('a chained or replayed exchange records only its own items, linked to the response it continues', () => {
    const { conversation, log } = setup();
    exchange(conversation, [user('one')], null, 'r1');
    exchange(conversation, [user('two')], 'r1', 'r2');
    const attempt = { input: [user('three')], previousResponseId: 'r2', replay: true };
    conversation.received(attempt, conversation.wire(attempt), response('r3'));
    expect(log?.find('r2')).toMatchObject({ prev: 'r1', input: [user('two')], stored: true });
    expect(log?.find('r3')).toMatchObject({ prev: 'r2', input: [user('three')], output: [said('answer r3')] });
    expect(conversation.canReplay('r3')).toBe(true);
  });

  it('a lossy new chain starts the record again from what it really sent', () => {
    const state: SessionState = { ...emptyState(), transcript: [{ role: 'user', text: 'earlier', response_id: 'r0' }] };
    const { conversation, log } = setup({ state });
    const attempt = { input: [user('again')], previousResponseId: 'r0', replay: true };
    const sent = conversation.wire(attempt);
    conversation.received(attempt, sent, response('r1'));
    expect(log?.find('r1')).toMatchObject({ prev: null, input: sent.input });
  });

  it("a log that cannot be written throws LogWriteError (the response's calls must not run); no log: nothing to record", () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-conv-'));
    writeFileSync(join(dir, 'file'), '');
    const { conversation } = setup({ log: new ConversationLog(join(dir, 'file', 'project.log')) });
    const attempt = { input: [user('one')], previousResponseId: null };
    expect(() => conversation.received(attempt, conversation.wire(attempt), response('r1', [call]))).toThrow(LogWriteError);
    const none = setup({ log: null });
    expect(() => exchange(none.conversation, [user('one')], null, 'r1')).not.toThrow();
    expect(none.conversation.canReplay('r1')).toBe(false);
  });
});
