// Compaction through the real engine (turn loop, state, checkpoints) against the real emulator
// over HTTP with the real client: long sessions (TURNS) with a small window for each mechanism,
// overflow recovery, the hopeless case and its choices, probing once per server, /compact.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type LoggedRequest } from '../../test/emulator/server.ts';
import { AGENTS_RULE, factKeys, factValue, scriptedMessage, startSession, type Session } from '../../test/compaction/session.ts';
import { ContextHopeless, rejectsContextManagement } from './compaction.ts';
import { ModelError } from '../model/errors.ts';
import { fileCapabilities, type ServerCapabilities } from './server-capabilities.ts';
import { checkpointFromState } from '../store/checkpoint.ts';
import { stateFromCheckpoint } from '../store/checkpoint.ts';
import { emptyState } from '../store/state.ts';
import { chainStart } from './compaction-seed.ts';
import { userMessage } from '../wire/items.ts';
import type { EnvironmentFacts } from './environment.ts';
import { iterations } from '../../test/support/iterations.ts';

let emu: Emulator;
const dirs: string[] = [];
const sessions: Session[] = [];
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  emu.requests.length = 0;
  emu.forgetAll();
  emu.clearQueue();
  for (const s of sessions.splice(0)) s.close();
});

async function session(opts: Omit<Parameters<typeof startSession>[0], 'baseUrl'>): Promise<Session> {
  const s = await startSession({ baseUrl: emu.baseUrl, ...opts });
  sessions.push(s);
  return s;
}

const WINDOW = 6_000;
// Turns of the long sessions, a multiple of 50 (a recall every 50): 100 in `npm test`, several
// compactions each already; the full 200 under `npm run fault`, or set FAULT_COMPACTION_TURNS.
const TURNS = iterations('COMPACTION_TURNS', 100, 200);
const MECHANISMS: { name: string; server: { contextManagement: boolean; compactEndpoint: boolean }; expect: string }[] = [
  { name: 'server-side context_management', server: { contextManagement: true, compactEndpoint: true }, expect: 'server' },
  { name: 'POST /responses/compact', server: { contextManagement: false, compactEndpoint: true }, expect: 'endpoint' },
  { name: 'our own summary', server: { contextManagement: false, compactEndpoint: false }, expect: 'summary' },
];
const KNOWN = (m: (typeof MECHANISMS)[number]['server']): ServerCapabilities => ({
  contextManagement: m.contextManagement ? 'yes' : 'no',
  compactEndpoint: m.compactEndpoint ? 'yes' : 'no',
  observedWindows: {},
});

function instructionsOf(r: LoggedRequest): string {
  const body = r.body;
  return typeof body === 'object' && body !== null && 'instructions' in body && typeof body.instructions === 'string' ? body.instructions : '';
}

describe.each(MECHANISMS)(`${TURNS} turns through the engine with a 6,000-token window: $name`, (mechanism) => {
  it('never fails, answers every message, keeps early facts and the instructions', async () => {
    emu.configureContext({ windowTokens: WINDOW, overflowForm: 'http', ...mechanism.server });
    const s = await session({ contextWindow: String(WINDOW) });
    for (let i = 0; i < TURNS; i++) {
      const text = scriptedMessage(i);
      const answer = await s.turn(text);
      // The message that triggered a compaction still reached the model: it answers that very message.
      // (A compaction between tool rounds hands the outputs over as text, which the emulator echoes.)
      if (text.startsWith('run:')) expect(answer).toMatch(/^(Ran it\. Output:|You said: \[agentx\] Results of the tool calls)/);
      else expect(answer).toBe(`You said: ${text.slice(0, 200)}`);
      if (i % 50 === 49) {
        const keys = factKeys(i + 1);
        expect(await s.turn(`recall: RULE ${keys.join(' ')}`)).toBe(`Recalled: RULE=tabs-not-spaces, ${keys.map((k) => `${k}=${factValue(k)}`).join(', ')}`);
      }
    }
    expect(new Set(s.checkpoints.map((c) => c.mechanism))).toEqual(new Set([mechanism.expect]));
    expect(s.checkpoints.length).toBeGreaterThan(3);
    expect(s.notices.filter((n) => n.startsWith('failed'))).toEqual([]);
    // Each missing feature cost exactly one failed probe.
    const probes = emu.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`);
    expect(probes).toEqual([
      ...(mechanism.server.contextManagement ? [] : ['/v1/responses 400']),
      ...(mechanism.server.compactEndpoint ? [] : ['/v1/responses/compact 404']),
    ]);
    expect(emu.requests.filter((r) => r.error?.code === 'context_length_exceeded')).toEqual([]);
    // The system prompt and AGENTS.md go with every request: turns, summaries and /responses/compact.
    for (const r of emu.requests) expect(instructionsOf(r)).toContain(AGENTS_RULE);
    expect(s.store.state.context_tokens).toBeLessThan(WINDOW);
    // Every turn is a checkpoint, and the person's messages are all in the local record.
    expect(s.store.state.usage.turns).toBe(TURNS + TURNS / 50);
  });
});

describe.each(MECHANISMS)('a long session on a server that stores nothing: $name', (mechanism) => {
  it('tools, compaction, a rollback and a restart work with one refused request, nothing run twice', async () => {
    emu.setStateless(true);
    emu.configureContext({ windowTokens: WINDOW, overflowForm: 'http', ...mechanism.server });
    try {
      // The server memory is file-backed, as in the CLI: a restart reads what the first process learnt.
      const memoryFile = join(mkdtempSync(join(tmpdir(), 'agentx-caps-')), 'servers.json');
      const memory = (): ReturnType<typeof fileCapabilities> => fileCapabilities(memoryFile, emu.baseUrl, () => new Date());
      memory().set(KNOWN(mechanism.server));
      let s = await session({ contextWindow: String(WINDOW), memory: memory() });
      const ran: string[] = [];
      for (let i = 0; i < 40; i++) {
        const text = i % 4 === 1 ? `run: echo step ${i}` : scriptedMessage(i);
        if (i === 20) {
          // A restart: a new engine over the same state file and conversation log.
          s = await session({ contextWindow: String(WINDOW), memory: memory(), dir: s.dir, store: 'auto' });
        }
        if (i === 30) await s.engine.rollback(2);
        const answer = await s.turn(text);
        if (text.startsWith('run:')) {
          ran.push(`echo step ${i}`);
          expect(answer).toMatch(/^(Ran it\. Output:|You said: \[agentx\] Results of the tool calls)/);
        } else expect(answer).toBe(`You said: ${text.slice(0, 200)}`);
      }
      const keys = factKeys(40);
      expect(await s.turn(`recall: RULE ${keys.join(' ')}`)).toBe(`Recalled: RULE=tabs-not-spaces, ${keys.map((k) => `${k}=${factValue(k)}`).join(', ')}`);
      // Every command ran exactly once.
      expect(readFileSync(join(s.dir, 'ran.txt'), 'utf8').trim().split('\n')).toEqual(ran);
      const refused = emu.requests.filter((r) => r.status !== 200);
      // The first chain is refused once (detected, then remembered per server); the restart remembers it too.
      expect(refused.map((r) => r.error?.code)).toEqual(['previous_response_not_found']);
      expect(refused.filter((r) => r.error?.code === 'context_length_exceeded')).toEqual([]);
      expect(s.checkpoints.length).toBeGreaterThan(0);
    } finally {
      emu.setStateless(false);
    }
  });
});

describe('overflow recovery', () => {
  const fillChain = async (s: Session, tokens: number): Promise<void> => {
    for (let i = 0; s.store.state.context_tokens < tokens; i++) await s.turn(`remember F${i}=x${i} ${'p'.repeat(1500)}`);
  };

  for (const mechanism of MECHANISMS.slice(1)) {
    it(`compacts and resends once (${mechanism.name}), with one notice`, async () => {
      emu.configureContext({ windowTokens: WINDOW, ...mechanism.server });
      // Auto-compaction off: only the overflow can trigger compaction here.
      const s = await session({ contextWindow: String(WINDOW), autoCompact: 'off', capabilities: KNOWN(mechanism.server) });
      await fillChain(s, 5_000);
      emu.requests.length = 0;
      expect(await s.turn(`remember LAST=1 ${'q'.repeat(4000)}`)).toMatch(/^You said: remember LAST=1/);
      // The refused request, the compaction (POST /compact, or the summary asked on the chain), the resend.
      expect(emu.requests.map((r) => r.error?.code ?? r.status)).toEqual(['context_length_exceeded', 200, 200]);
      expect(s.notices.filter((n) => /no longer fits/.test(n))).toHaveLength(1);
      expect(await s.turn('recall: F0 LAST')).toBe('Recalled: F0=x0, LAST=1');
    });
  }

  for (const mechanism of MECHANISMS.slice(1)) {
    it(`a compaction in the middle of a turn puts the environment context in the new chain once (${mechanism.name})`, async () => {
      emu.configureContext({ windowTokens: WINDOW, ...mechanism.server });
      const environment = (): EnvironmentFacts => ({
        cwd: '/work/env-probe',
        shell: '/bin/sh',
        os: 'Linux',
        date: '2026-12-05',
        model: 'gpt-5',
        sandbox: 'workspace-write',
        writableRoots: ['/work/env-probe'],
        network: false,
        approval: 'never',
        planMode: false,
      });
      // Auto-compaction off: the tool output overflows the chain, so the compaction falls between two requests of one turn.
      const s = await session({
        contextWindow: String(WINDOW),
        autoCompact: 'off',
        capabilities: KNOWN(mechanism.server),
        toolOutputBytes: 5_000,
        environment,
      });
      await fillChain(s, 5_000);
      emu.enqueue({ kind: 'calls', calls: [{ commands: ['cat big'] }] }, { kind: 'text', text: 'read it' });
      emu.requests.length = 0;
      expect(await s.turn('read the big file')).toBe('read it');
      const sent = emu.requests.filter((r) => r.path === '/v1/responses' && r.status === 200);
      const envCount = (r: LoggedRequest | undefined): number => JSON.stringify(r?.body).split('<cwd>/work/env-probe</cwd>').length - 1;
      // The request that carries the tool output on the new chain tells the model where it is, once.
      expect(s.checkpoints).toHaveLength(1);
      expect(envCount(sent.at(-1))).toBe(1);
      expect(JSON.stringify(s.store.state.compaction?.seed)).toContain('<environment_context>');
      // The next message does not repeat it: the seed carries it.
      emu.requests.length = 0;
      await s.turn('hello again');
      expect(envCount(emu.requests.find((r) => r.path === '/v1/responses'))).toBe(0);
    });
  }

  it('a failure after the compaction is retried on the new chain, not the old one', async () => {
    emu.configureContext({ windowTokens: WINDOW, contextManagement: false, compactEndpoint: true });
    const s = await session({ contextWindow: String(WINDOW), autoCompact: 'off', capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }) });
    await fillChain(s, 5_000);
    // The overflowing request uses no scripted step, so this one fails the resend after the compaction.
    emu.enqueue({ kind: 'failed', code: 'server_error', message: 'boom' });
    emu.requests.length = 0;
    expect(await s.turn(`remember AFTER=1 ${'q'.repeat(4000)}`)).toMatch(/^You said: remember AFTER=1/);
    const sent = emu.requests.filter((r) => r.path === '/v1/responses');
    expect(sent.map((r) => r.error?.code ?? r.status)).toEqual(['context_length_exceeded', 'server_error', 200]);
    // Both the failed resend and its retry start the new chain from the compaction's seed.
    for (const r of sent.slice(1)) expect(JSON.stringify(r.body)).not.toContain('previous_response_id');
    expect(JSON.stringify(sent[2]?.body)).toContain('"type":"compaction"');
  });

  for (const mechanism of MECHANISMS) {
    it(`a hopeless overflow ends in the choice within 3 requests (${mechanism.name})`, async () => {
      emu.configureContext({ windowTokens: WINDOW, ...mechanism.server });
      const s = await session({ contextWindow: String(WINDOW), capabilities: KNOWN(mechanism.server) });
      await s.turn('hello');
      emu.requests.length = 0;
      const outcome = await s.send(`one huge paste ${'z'.repeat(40_000)}`);
      if (outcome.kind !== 'failed') throw new Error(`expected a failure, got ${outcome.kind}`);
      const failure = outcome.failure.failure;
      expect(failure).toBeInstanceOf(ContextHopeless);
      expect(failure.kind).toBe('context_overflow');
      if (failure instanceof ContextHopeless) expect(failure.options).toEqual(['new_chain', 'rollback']);
      expect(emu.requests.length).toBeLessThanOrEqual(3);
      expect(emu.requests.at(-1)?.error?.code).toBe('context_length_exceeded');
      // Recorded for the choice: the message is kept, the code says why.
      expect(s.store.state.failed_response?.code).toBe('context_length_exceeded');
      expect(JSON.stringify(s.store.state.pending_transaction?.input)).toContain('one huge paste');
    });
  }

  it('too many tool outputs at once: hopeless, then "trim" resends them cut and the turn completes', async () => {
    emu.configureContext({ windowTokens: WINDOW, contextManagement: false, compactEndpoint: true });
    // Each output is under the per-output cap (a quarter of the window); five together are not.
    const s = await session({
      contextWindow: String(WINDOW),
      capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }),
      toolOutputBytes: 5_500,
    });
    await s.turn('hello');
    const calls = Array.from({ length: 5 }, (_, i) => ({ commands: [`cat part${i}`] }));
    emu.enqueue({ kind: 'calls', calls }, { kind: 'text', text: 'read them all' });
    emu.requests.length = 0;
    const outcome = await s.send('read the five parts');
    if (outcome.kind !== 'failed' || !(outcome.failure.failure instanceof ContextHopeless)) throw new Error('expected a hopeless overflow');
    expect(outcome.failure.failure.options).toEqual(['trim_tool_output', 'new_chain', 'rollback']);
    expect(emu.requests.filter((r) => r.path === '/v1/responses').length).toBeLessThanOrEqual(3);
    const trimmed = await s.engine.retryTrimmed(new AbortController().signal);
    expect(trimmed).toMatchObject({ kind: 'done', result: { text: 'read them all' } });
    expect(s.store.state.pending_transaction).toBeNull();
  });

  it('a single message too big for a fresh chain is hopeless at once (1 request)', async () => {
    emu.configureContext({ windowTokens: WINDOW, contextManagement: false, compactEndpoint: true });
    const s = await session({ contextWindow: String(WINDOW), capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }) });
    const outcome = await s.send('z'.repeat(40_000));
    expect(outcome.kind === 'failed' && outcome.failure.failure instanceof ContextHopeless).toBe(true);
    expect(emu.requests).toHaveLength(1);
  });

  it('a tool output too big for the window is capped before it is sent', async () => {
    emu.configureContext({ windowTokens: WINDOW, contextManagement: false, compactEndpoint: true });
    const s = await session({
      contextWindow: String(WINDOW),
      capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }),
      toolOutputBytes: 60_000,
    });
    expect(await s.turn('run: cat big.log')).toMatch(/^Ran it\. Output:/);
    const toolRequest = emu.requests.find((r) => JSON.stringify(r.body).includes('function_call_output'));
    expect(toolRequest?.bytes).toBeLessThan(WINDOW * 4);
    expect(JSON.stringify(toolRequest?.body)).toMatch(/bytes omitted: one tool output may take at most a quarter of the context window/);
  });
});

describe('what works on a server is probed once and remembered', () => {
  it('a server without context_management costs one failed request across runs (file-backed memory)', async () => {
    emu.configureContext({ windowTokens: WINDOW, contextManagement: false, compactEndpoint: false });
    const dir = mkdtempSync(join(tmpdir(), 'agentx-caps-'));
    dirs.push(dir);
    const file = join(dir, 'servers.json');
    for (let run = 0; run < 2; run++) {
      const s = await session({ contextWindow: String(WINDOW), memory: fileCapabilities(file, emu.baseUrl, () => new Date()) });
      for (let i = 0; i < 40; i++) await s.turn(scriptedMessage(i));
    }
    expect(emu.requests.filter((r) => r.error?.code === 'unknown_parameter')).toHaveLength(1);
    expect(emu.requests.filter((r) => r.path === '/v1/responses/compact')).toHaveLength(1);
  });

  it('rejectsContextManagement recognises only the refusal of that field', () => {
    expect(
      rejectsContextManagement(new ModelError('Unknown parameter', 'fatal', { status: 400, code: 'unknown_parameter', param: 'context_management' })),
    ).toBe(true);
    expect(rejectsContextManagement(new ModelError('400 Unrecognized request argument supplied: context_management', 'fatal', { status: 400 }))).toBe(true);
    expect(rejectsContextManagement(new ModelError('Unknown parameter', 'fatal', { status: 400, code: 'unknown_parameter', param: 'tools' }))).toBe(false);
    expect(rejectsContextManagement(new ModelError('boom', 'retryable', { status: 500 }))).toBe(false);
  });
});

describe('/compact on demand (engine.compact)', () => {
  for (const mechanism of MECHANISMS.slice(1)) {
    it(`moves the chain to a seed the next message and a one-shot branch both start from (${mechanism.name})`, async () => {
      emu.configureContext({ windowTokens: 50_000, ...mechanism.server });
      const s = await session({ contextWindow: '50000', capabilities: KNOWN(mechanism.server) });
      await s.turn('remember PET=otter');
      await s.turn('run: ls');
      const head = s.store.state.response_id;
      const outcome = await s.engine.compact(new AbortController().signal);
      expect(outcome).toMatchObject({ kind: 'compacted', mechanism: mechanism.expect });
      expect(s.store.state.response_id).toBeNull();
      expect(s.store.state.compaction?.from_response_id).toBe(head);
      expect(await s.engine.compact(new AbortController().signal)).toEqual({ kind: 'not_compacted', reason: 'the conversation is already compacted' });
      // A one-shot branches from the published checkpoint: it carries the compaction while the new chain has no response.
      const published = checkpointFromState(s.store.state, 'compaction', new Date());
      expect(published).toMatchObject({ response_id: null, source: 'compaction' });
      const branch = chainStart(stateFromCheckpoint(published, emptyState()), [userMessage([], 'recall: PET')]);
      expect(branch.previousResponseId).toBeNull();
      const other = await session({ contextWindow: '50000', capabilities: KNOWN(mechanism.server) });
      other.store.update(() => stateFromCheckpoint(published, emptyState()));
      expect(await other.turn('recall: PET RULE')).toBe('Recalled: PET=otter, RULE=tabs-not-spaces');
      // …and the next message of the session itself starts from the seed.
      expect(await s.turn('recall: PET RULE')).toBe('Recalled: PET=otter, RULE=tabs-not-spaces');
      // /rollback to before the compaction: the old chain is still on the server.
      await s.engine.rollback(2);
      expect(s.store.state.response_id).toBe(head);
      expect(s.store.state.compaction).toBeNull();
      expect(await s.turn('recall: PET')).toBe('Recalled: PET=otter');
    });
  }
});
