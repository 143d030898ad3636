// The compaction driver against the real emulator over HTTP with the real client: long sessions
// with a small window for each mechanism, overflow recovery, the hopeless case, probing once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type LoggedRequest } from '../../test/emulator/server.ts';
import { AGENTS_RULE, factKeys, factValue, scriptedMessage, startSession } from '../../test/compaction/session.ts';
import { ContextHopeless, rejectsContextManagement, type Attempt } from './compaction.ts';
import { ModelError } from '../model/errors.ts';
import type { ContextWindow } from './context.ts';
import { fileCapabilities, type ServerCapabilities } from './server-capabilities.ts';
import { chainStart } from './compaction-seed.ts';

let emu: Emulator;
const dirs: string[] = [];
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
});

const WINDOW: ContextWindow = { tokens: 6_000, source: 'setting', note: 'test' };
const MECHANISMS: { name: string; server: { contextManagement: boolean; compactEndpoint: boolean }; expect: string }[] = [
  { name: 'server-side context_management', server: { contextManagement: true, compactEndpoint: true }, expect: 'server' },
  { name: 'POST /responses/compact', server: { contextManagement: false, compactEndpoint: true }, expect: 'endpoint' },
  { name: 'our own summary', server: { contextManagement: false, compactEndpoint: false }, expect: 'summary' },
];
const KNOWN = (m: (typeof MECHANISMS)[number]['server']): ServerCapabilities => ({
  contextManagement: m.contextManagement ? 'yes' : 'no', compactEndpoint: m.compactEndpoint ? 'yes' : 'no', observedWindows: {},
});

function instructionsOf(r: LoggedRequest): string {
  const body = r.body;
  return typeof body === 'object' && body !== null && 'instructions' in body && typeof body.instructions === 'string' ? body.instructions : '';
}

describe.each(MECHANISMS)('200 turns with a 6,000-token window: $name', (mechanism) => {
  it('never fails, answers every message, keeps early facts and the instructions', async () => {
    emu.configureContext({ windowTokens: WINDOW.tokens, overflowForm: 'http', ...mechanism.server });
    const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW });
    for (let i = 0; i < 200; i++) {
      const text = scriptedMessage(i);
      const out = await session.turn(text);
      // The message that triggered a compaction still reached the model: it answers that very message.
      // (A compaction between tool rounds hands the outputs over as text, which the emulator echoes.)
      if (text.startsWith('run:')) expect(out.text).toMatch(/^(Ran it\. Output:|You said: \[agentx\] Results of the tool calls)/);
      else expect(out.text).toBe(`You said: ${text.slice(0, 200)}`);
      if (i % 50 === 49) {
        const keys = factKeys(i + 1);
        const recalled = await session.turn(`recall: RULE ${keys.join(' ')}`);
        expect(recalled.text).toBe(`Recalled: RULE=tabs-not-spaces, ${keys.map((k) => `${k}=${factValue(k)}`).join(', ')}`);
      }
    }
    const mechanisms = new Set(session.checkpoints.map((c) => c.mechanism));
    expect([...mechanisms]).toEqual([mechanism.expect]);
    expect(session.checkpoints.length).toBeGreaterThan(3);
    // Each missing feature cost exactly one failed probe.
    const probes = emu.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`);
    expect(probes).toEqual([
      ...(mechanism.server.contextManagement ? [] : ['/v1/responses 400']),
      ...(mechanism.server.compactEndpoint ? [] : ['/v1/responses/compact 404']),
    ]);
    expect(emu.requests.filter((r) => r.error?.code === 'context_length_exceeded')).toEqual([]);
    for (const r of emu.requests) expect(instructionsOf(r)).toContain(AGENTS_RULE);
    expect(session.state.context_tokens).toBeLessThan(WINDOW.tokens);
  });
});

describe('overflow recovery', () => {
  const fillChain = async (session: Awaited<ReturnType<typeof startSession>>, tokens: number): Promise<void> => {
    for (let i = 0; session.state.context_tokens < tokens; i++) await session.turn(`remember F${i}=x${i} ${'p'.repeat(1500)}`);
  };

  for (const mechanism of MECHANISMS.slice(1)) {
    it(`compacts and resends once (${mechanism.name}), with one notice`, async () => {
      emu.configureContext({ windowTokens: WINDOW.tokens, ...mechanism.server });
      // Auto-compaction off: only the overflow can trigger compaction here.
      const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, autoCompact: 'off', capabilities: KNOWN(mechanism.server) });
      await fillChain(session, 5_000);
      emu.requests.length = 0;
      const out = await session.turn(`remember LAST=1 ${'q'.repeat(4000)}`);
      expect(out.text).toMatch(/^You said: remember LAST=1/);
      // The refused request, the compaction (POST /compact, or the summary asked on the chain), the resend.
      expect(emu.requests.map((r) => r.error?.code ?? r.status)).toEqual(['context_length_exceeded', 200, 200]);
      expect(session.notices.filter((n) => /no longer fits/.test(n))).toHaveLength(1);
      expect((await session.turn('recall: F0 LAST')).text).toBe('Recalled: F0=x0, LAST=1');
    });
  }

  it('a failure after the compaction is retried on the new chain, not the old one', async () => {
    emu.configureContext({ windowTokens: WINDOW.tokens, contextManagement: false, compactEndpoint: true });
    const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, autoCompact: 'off', capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }) });
    await fillChain(session, 5_000);
    // The overflowing request uses no scripted step, so this one fails the resend after the compaction.
    emu.enqueue({ kind: 'failed', code: 'server_error', message: 'boom' });
    const signal = new AbortController().signal;
    const attempt = { input: [{ role: 'user', content: `remember AFTER=1 ${'q'.repeat(4000)}` }], previousResponseId: session.state.response_id };
    let next: Attempt | undefined;
    await expect(session.compaction.send(attempt, signal, (n) => { next = n; })).rejects.toMatchObject({ kind: 'retryable' });
    if (!next) throw new Error('no new attempt was announced');
    expect(next.previousResponseId).toBeNull();
    emu.requests.length = 0;
    const retried = await session.compaction.send(next, signal);
    expect(retried.response.text).toMatch(/^You said: remember AFTER=1/);
    expect(emu.requests.map((r) => r.error?.code ?? r.status)).toEqual([200]);
  });

  for (const mechanism of MECHANISMS) {
    it(`a hopeless overflow ends in the choice within 3 requests (${mechanism.name})`, async () => {
      emu.configureContext({ windowTokens: WINDOW.tokens, ...mechanism.server });
      const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, capabilities: KNOWN(mechanism.server) });
      await session.turn('hello');
      emu.requests.length = 0;
      let caught: unknown;
      try {
        await session.turn(`one huge paste ${'z'.repeat(40_000)}`);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ContextHopeless);
      if (!(caught instanceof ContextHopeless)) return;
      expect(caught.kind).toBe('context_overflow');
      expect(caught.options).toEqual(['trim_tool_output', 'new_chain', 'rollback']);
      expect(emu.requests.length).toBeLessThanOrEqual(3);
      expect(emu.requests.at(-1)?.error?.code).toBe('context_length_exceeded');
    });
  }

  it('a single message too big for a fresh chain is hopeless at once (1 request)', async () => {
    emu.configureContext({ windowTokens: WINDOW.tokens, contextManagement: false, compactEndpoint: true });
    const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }) });
    await expect(session.turn('z'.repeat(40_000))).rejects.toBeInstanceOf(ContextHopeless);
    expect(emu.requests).toHaveLength(1);
  });

  it('a tool output too big for the window is capped before it is sent', async () => {
    emu.configureContext({ windowTokens: WINDOW.tokens, contextManagement: false, compactEndpoint: true });
    const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, capabilities: KNOWN({ contextManagement: false, compactEndpoint: true }), toolOutputBytes: 60_000 });
    const out = await session.turn('run: cat big.log');
    expect(out.text).toMatch(/^Ran it\. Output:/);
    const toolRequest = emu.requests.find((r) => JSON.stringify(r.body).includes('function_call_output'));
    expect(toolRequest?.bytes).toBeLessThan(WINDOW.tokens * 4);
    expect(JSON.stringify(toolRequest?.body)).toMatch(/bytes truncated/);
  });
});

describe('what works on a server is probed once and remembered', () => {
  it('a server without context_management costs one failed request across runs (file-backed memory)', async () => {
    emu.configureContext({ windowTokens: WINDOW.tokens, contextManagement: false, compactEndpoint: false });
    const dir = mkdtempSync(join(tmpdir(), 'agentx-caps-'));
    dirs.push(dir);
    const file = join(dir, 'servers.json');
    for (let run = 0; run < 2; run++) {
      const memory = fileCapabilities(file, emu.baseUrl, () => new Date());
      const session = await startSession({ baseUrl: emu.baseUrl, window: WINDOW, memory });
      for (let i = 0; i < 40; i++) await session.turn(scriptedMessage(i));
    }
    expect(emu.requests.filter((r) => r.error?.code === 'unknown_parameter')).toHaveLength(1);
    expect(emu.requests.filter((r) => r.path === '/v1/responses/compact')).toHaveLength(1);
  });

  it('rejectsContextManagement recognises only the refusal of that field', () => {
    expect(rejectsContextManagement(new ModelError('Unknown parameter', 'fatal', { status: 400, code: 'unknown_parameter', param: 'context_management' }))).toBe(true);
    expect(rejectsContextManagement(new ModelError("400 Unrecognized request argument supplied: context_management", 'fatal', { status: 400 }))).toBe(true);
    expect(rejectsContextManagement(new ModelError('Unknown parameter', 'fatal', { status: 400, code: 'unknown_parameter', param: 'tools' }))).toBe(false);
    expect(rejectsContextManagement(new ModelError('boom', 'retryable', { status: 500 }))).toBe(false);
  });
});

describe('/compact on demand', () => {
  for (const mechanism of MECHANISMS.slice(1)) {
    it(`moves the chain to a seed the next message and a branch both start from (${mechanism.name})`, async () => {
      emu.configureContext({ windowTokens: 50_000, ...mechanism.server });
      const session = await startSession({ baseUrl: emu.baseUrl, window: { tokens: 50_000, source: 'setting', note: 'test' }, capabilities: KNOWN(mechanism.server) });
      await session.turn('remember PET=otter');
      await session.turn('run: ls');
      const head = session.state.response_id;
      const result = await session.compaction.compactNow({ input: [], previousResponseId: head }, new AbortController().signal);
      expect(result).toMatchObject({ ok: true, mechanism: mechanism.expect });
      expect(session.state.response_id).toBeNull();
      expect(session.checkpoints.at(-1)?.from_response_id).toBe(head);
      // A one-shot branching from the compacted checkpoint (a copy of the state, as read from disk)…
      const saved = structuredClone(session.state);
      const branch = chainStart(saved, [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'recall: PET' }] }]);
      expect(branch.previousResponseId).toBeNull();
      expect((await session.compaction.send(branch, new AbortController().signal)).response.text).toBe('Recalled: PET=otter');
      // …and the next message of the session itself both start from the seed.
      expect((await session.turn('recall: PET RULE')).text).toBe('Recalled: PET=otter, RULE=tabs-not-spaces');
      // The chain before the compaction is still there for /rollback.
      const back = await session.compaction.send({ input: [{ role: 'user', content: 'recall: PET' }], previousResponseId: head }, new AbortController().signal);
      expect(back.response.text).toBe('Recalled: PET=otter');
    });
  }
});
