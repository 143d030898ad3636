// The context window end to end: the built CLI against the emulator with a small window. A
// long REPL session in a real pty (TURNS), overflow recovery and the hopeless choice, /compact,
// /rollback to before a compaction, one-shots that branch from a compacted checkpoint.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { factKeys, factValue, scriptedMessage } from '../compaction/session.ts';
import type { LoggedRequest } from '../emulator/server.ts';
import { iterations } from '../support/iterations.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';
import { KEY, type PtyRun } from './pty.ts';
import { body, prompt, readCheckpoint, readState, replSuite, turn, userText } from './repl-fixtures.ts';

const suite = replSuite();
const WINDOW = 6_000;
const RULE = 'remember RULE=tabs-not-spaces';
// Turns of the long session, a multiple of 50 (a recall every 50): 100 in `npm test`, several
// compactions already (≈0.2 s a turn in the pty); the full 200 under `npm run fault`, or set
// FAULT_COMPACTION_TURNS.
const TURNS = iterations('COMPACTION_TURNS', 100, 200);

/** A project with AGENTS.md and a small window, on a server with the given features. */
function project(server: { contextManagement: boolean; compactEndpoint: boolean }, env: NodeJS.ProcessEnv = {}): Sandbox {
  suite.emu.configureContext({ windowTokens: WINDOW, overflowForm: 'http', ...server });
  const sb = sandbox(suite.emu.baseUrl, { AGENTX_CONTEXT_WINDOW: String(WINDOW), AGENTX_MODEL: 'gpt-5', ...env });
  writeFileSync(join(sb.cwd, 'AGENTS.md'), `Always ${RULE}. Keep answers short.\n`);
  return sb;
}

const instructionsOf = (r: LoggedRequest): string => {
  const b = r.body;
  return typeof b === 'object' && b !== null && 'instructions' in b && typeof b.instructions === 'string' ? b.instructions : '';
};

/** `text` as the terminal shows it: a long answer is wrapped at spaces to the terminal's width. */
const wrapped = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'));

/** The requests since `from`, as their error code or HTTP status. */
const outcomes = (from: number): (string | number)[] => suite.emu.requests.slice(from).map((r) => r.error?.code ?? r.status);

async function fill(a: PtyRun, tokens: number, sb: Sandbox): Promise<void> {
  for (let i = 0; i === 0 || readState(sb).context_tokens < tokens; i++) await turn(a, `remember F${i}=x${i} ${'p'.repeat(1500)}`, `You said: remember F${i}`);
}

// One mechanism in the pty keeps the suite within its time on a 2-core machine: our own summary,
// on a server with neither feature (both probes, summary requests, new chains from seeds). The
// three mechanisms each run as many turns through the engine in src/engine/compaction.test.ts.
const MECHANISMS = [
  {
    name: 'our own summary (a server with neither)',
    server: { contextManagement: false, compactEndpoint: false },
    mechanism: 'summary',
    shown: 'into a summary by the model',
    probes: ['/v1/responses 400', '/v1/responses/compact 404'],
  },
];

describe.each(MECHANISMS)(`${TURNS} turns in the REPL with a 6,000-token window: $name`, (m) => {
  it('never shows an error, answers every message, recalls early facts, sends AGENTS.md every time', async () => {
    const sb = project(m.server);
    const first = suite.emu.requests.length;
    const a = suite.start(sb);
    await prompt(a);
    for (let i = 0; i < TURNS; i++) {
      const text = scriptedMessage(i);
      const answer = text.startsWith('run:') ? /Ran it\. Output:|You said: \[agentx\] Results of the tool calls/ : `You said: ${text.slice(0, 60)}`;
      await turn(a, text, answer);
      if (i % 50 === 49) {
        const keys = factKeys(i + 1);
        await turn(a, `recall: RULE ${keys.join(' ')}`, wrapped(`Recalled: RULE=tabs-not-spaces, ${keys.map((k) => `${k}=${factValue(k)}`).join(', ')}`));
      }
    }
    const screen = a.screen();
    expect(screen).not.toMatch(/✗|request failed|What now\?/);
    expect(screen).toContain(`conversation compacted ${m.shown}`);
    expect(screen).toMatch(/ctx \d+% left/);
    const requests = suite.emu.requests.slice(first);
    // A missing feature costs one refused probe, once; nothing else failed.
    expect(requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`)).toEqual(m.probes);
    for (const r of requests) expect(instructionsOf(r)).toContain(RULE);
    // No user message lost: each of them reached the model.
    const sent = requests.map(userText).join('\n');
    for (let i = 0; i < TURNS; i++) expect(sent).toContain(scriptedMessage(i));
    const state = readState(sb);
    expect(state.usage.turns).toBe(TURNS + TURNS / 50);
    expect(state.compaction?.mechanism).toBe(m.mechanism);
  }, 240_000);
});

describe('at the limit', () => {
  it('a request that overflows is compacted and resent once, with a one-line notice', async () => {
    const sb = project({ contextManagement: false, compactEndpoint: true }, { AGENTX_AUTO_COMPACT: 'off' });
    const a = suite.start(sb);
    await prompt(a);
    await fill(a, 5_000, sb);
    const from = suite.emu.requests.length;
    a.line(`remember LAST=1 ${'q'.repeat(4000)}`);
    await a.waitFor('no longer fits in the context window: compacting it and sending your message again');
    await a.waitFor('You said: remember LAST=1');
    await prompt(a);
    expect(outcomes(from)).toEqual(['context_length_exceeded', 200, 200]);
    await turn(a, 'recall: F0 LAST', 'Recalled: F0=x0, LAST=1');
  });

  it('a hopeless overflow ends in the choice (no plain retry) within 3 requests; "trim" then completes the turn', async () => {
    const sb = project({ contextManagement: false, compactEndpoint: true });
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'hello', 'You said: hello');
    // Five outputs, each under the per-output cap (a quarter of the window), together more than the window.
    const calls = Array.from({ length: 5 }, () => ({ commands: ["head -c 5500 /dev/zero | tr '\\0' x"] }));
    suite.emu.enqueue({ kind: 'calls', calls }, { kind: 'text', text: 'read them all' });
    const from = suite.emu.requests.length;
    a.line('read the five parts');
    await a.waitFor('request failed');
    await a.waitFor('It does not fit in the context window. What now?');
    await a.waitFor('Cancel — keep it for later');
    expect(a.screen().slice(-3000)).not.toContain('Retry — send the same request again');
    // The response with the calls, then at most 3 requests for the outputs: refused, compacted, refused.
    expect(outcomes(from + 1)).toEqual(['context_length_exceeded', 200, 'context_length_exceeded']);
    expect(readState(sb).failed_response?.code).toBe('context_length_exceeded');
    a.write(KEY.enter);
    await a.waitFor('read them all');
    await prompt(a);
    expect(readState(sb).pending_transaction).toBeNull();
    await turn(a, 'still here', 'You said: still here');
  });

  it('a one-shot whose message cannot fit says so in one line and exits 1', async () => {
    const sb = project({ contextManagement: false, compactEndpoint: true });
    const before = suite.emu.requests.length;
    const r = await runCli([`one huge paste ${'z'.repeat(40_000)}`], sb);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/agentx: request failed: .*does not fit in the .*context window.* — shorten the message/);
    // This HOME has not met the server yet: one refused context_management probe, then the refusal for size.
    expect(outcomes(before)).toEqual(['unknown_parameter', 'context_length_exceeded']);
  });
});

describe('/compact, /rollback and one-shots', () => {
  it('/compact, a one-shot branching from the compacted checkpoint, then /rollback to before the compaction', async () => {
    const sb = project({ contextManagement: false, compactEndpoint: true }, { AGENTX_CONTEXT_WINDOW: '50000' });
    suite.emu.configureContext({ windowTokens: 50_000 });
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'remember PET=otter', 'You said: remember PET=otter');
    await turn(a, 'second', 'You said: second');
    const head = readState(sb).response_id;
    a.line('/compact');
    await a.waitFor('conversation compacted by the server (/responses/compact)');
    await a.waitFor(/ctx \d+% left/);
    await prompt(a);
    expect(readState(sb)).toMatchObject({ response_id: null, compaction: { mechanism: 'endpoint', from_response_id: head } });
    expect(readCheckpoint(sb)).toMatchObject({ response_id: null, source: 'compaction' });

    // A one-shot branches from the compaction's seed (no response on the new chain yet).
    let from = suite.emu.requests.length;
    const branched = await runCli(['recall: PET RULE'], sb);
    expect(branched).toMatchObject({ code: 0, stdout: 'Recalled: PET=otter, RULE=tabs-not-spaces\n' });
    expect(body(suite.emu.requests[from]).previous_response_id).toBeUndefined();
    expect(JSON.stringify(body(suite.emu.requests[from]).input)).toContain('"type":"compaction"');

    // The REPL's next message starts the new chain from the same seed; a one-shot then branches from it.
    from = suite.emu.requests.length;
    await turn(a, 'recall: PET', 'Recalled: PET=otter');
    expect(body(suite.emu.requests[from]).previous_response_id).toBeUndefined();
    const onNewChain = readState(sb).response_id;
    from = suite.emu.requests.length;
    expect(await runCli(['--json', 'recall: PET'], sb)).toMatchObject({ code: 0 });
    expect(body(suite.emu.requests[from]).previous_response_id).toBe(onNewChain);

    // /usage shows the context and the compaction; /rollback to "second" returns to the old chain.
    a.line('/usage');
    await a.waitFor(/context\s+[\d,]+ of 50,000 tokens · ctx \d+% left · window from AGENTX_CONTEXT_WINDOW/);
    await a.waitFor('last compaction');
    await prompt(a);
    a.line('/rollback 2');
    await a.waitFor('Rolled back to checkpoint 2');
    await prompt(a);
    expect(readState(sb)).toMatchObject({ response_id: head, compaction: null });
    from = suite.emu.requests.length;
    await turn(a, 'recall: PET', 'Recalled: PET=otter');
    expect(body(suite.emu.requests[from]).previous_response_id).toBe(head);
    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readState(sb).compaction?.mechanism).toBe('endpoint');
  });

  it('--json usage carries the context numbers; a bad setting is one line and exit 2', async () => {
    const sb = project({ contextManagement: true, compactEndpoint: true });
    const r = await runCli(['--json', 'hello'], sb);
    expect(r.code).toBe(0);
    const lines: unknown[] = r.stdout
      .trim()
      .split('\n')
      .map((l): unknown => JSON.parse(l));
    const usage = lines.find((l): l is Record<string, unknown> => typeof l === 'object' && l !== null && 'type' in l && l.type === 'usage');
    expect(usage).toMatchObject({ context_window_tokens: WINDOW, context_window_source: 'setting' });
    expect(usage?.context_used_tokens).toBeGreaterThan(0);
    expect(usage?.context_left).toBeGreaterThan(0);
    for (const [name, value] of [
      ['AGENTX_CONTEXT_WINDOW', 'lots'],
      ['AGENTX_AUTO_COMPACT', '2'],
    ] as const) {
      const bad = await runCli(['hello'], { ...sb, env: { ...sb.env, [name]: value } });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toContain(name);
    }
  });
});
