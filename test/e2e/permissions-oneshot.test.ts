// Approval modes × rules in one-shots (--json), against the emulator with the real sandbox: each
// mode × {plain, escalation requested, allow/ask/deny rule, compound command with one denied
// part, unparseable}. A one-shot never prompts: what the mode would ask is declined by policy
// (approval_requested + approval_decided), what a rule denies is refused, the rest runs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { bwrapPath } from '../support/sandbox.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

type Mode = 'untrusted' | 'on-request' | 'never';
type Outcome = 'runs' | 'asked-declined' | 'refused';

interface Case {
  name: string;
  /** the message: "run: CMD" (the built-in shell) or "escalate: CMD" (exec_command with require_escalated) */
  message: string;
  rules?: { prefix: string[]; decision: string }[];
  expect: Record<Mode, Outcome>;
}

const MARK = 'echo ran >> ran.txt';
const CASES: Case[] = [
  { name: 'plain', message: `run: ${MARK}`, expect: { untrusted: 'asked-declined', 'on-request': 'runs', never: 'runs' } },
  { name: 'escalation requested', message: `escalate: ${MARK}`, expect: { untrusted: 'asked-declined', 'on-request': 'asked-declined', never: 'refused' } },
  {
    name: 'allow rule',
    message: `run: ${MARK}`,
    rules: [{ prefix: ['echo', 'ran'], decision: 'allow' }],
    expect: { untrusted: 'runs', 'on-request': 'runs', never: 'runs' },
  },
  {
    name: 'ask rule',
    message: `run: ${MARK}`,
    rules: [{ prefix: ['echo'], decision: 'ask' }],
    expect: { untrusted: 'asked-declined', 'on-request': 'asked-declined', never: 'refused' },
  },
  {
    name: 'deny rule',
    message: `run: ${MARK}`,
    rules: [{ prefix: ['echo'], decision: 'deny' }],
    expect: { untrusted: 'refused', 'on-request': 'refused', never: 'refused' },
  },
  {
    name: 'compound, one part denied',
    message: `run: ${MARK} && rm -rf nothing-here`,
    rules: [
      { prefix: ['echo'], decision: 'allow' },
      { prefix: ['rm', '-rf'], decision: 'deny' },
    ],
    expect: { untrusted: 'refused', 'on-request': 'refused', never: 'refused' },
  },
  // Unparseable asks where rules decide (untrusted); on-request and never run it in the sandbox.
  { name: 'unparseable', message: `run: ${MARK}; echo "unterminated`, expect: { untrusted: 'asked-declined', 'on-request': 'runs', never: 'runs' } },
];

interface Line {
  type: string;
  decision?: string;
  decided_by?: string;
  message?: string;
  escalated?: boolean;
}

function setup(c: Case, extra: NodeJS.ProcessEnv = {}): Sandbox {
  const b = sandbox(emu.baseUrl, extra);
  if (c.rules !== undefined) {
    mkdirSync(join(b.home, '.config', 'agentx'), { recursive: true });
    writeFileSync(join(b.home, '.config', 'agentx', 'rules.json'), JSON.stringify({ commands: c.rules }));
  }
  return b;
}

type Got = Outcome | `unexpected: ${string}`;

async function outcome(c: Case, mode: Mode, b = setup(c), args: string[] = []): Promise<{ outcome: Got; lines: Line[]; stderr: string }> {
  const r = await runCli(['--json', '--approval', mode, ...args, c.message], b);
  if (r.code !== 0) return { outcome: `unexpected: exit ${r.code}: ${r.stderr}`, lines: [], stderr: r.stderr };
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  // Ran: the marker was written, or the shell ran the line and rejected it (the unparseable case).
  const ran =
    (existsSync(join(b.cwd, 'ran.txt')) && readFileSync(join(b.cwd, 'ran.txt'), 'utf8').includes('ran')) || lines.some((l) => l.type === 'tool_output');
  const asked = lines.some((l) => l.type === 'approval_requested');
  const decided = lines.find((l) => l.type === 'approval_decided');
  const refused = lines.some((l) => l.type === 'tool_error');
  // A one-shot's policy answers every question no, and the call does not run.
  if (asked)
    return {
      outcome: !ran && decided?.decision === 'no' && decided.decided_by === 'policy' ? 'asked-declined' : `unexpected: asked, ran=${ran}`,
      lines,
      stderr: r.stderr,
    };
  if (ran) return { outcome: refused ? 'unexpected: ran and refused' : 'runs', lines, stderr: r.stderr };
  return { outcome: refused ? 'refused' : `unexpected: neither ran nor refused: ${r.stdout}`, lines, stderr: r.stderr };
}

/** Runs the jobs a few at a time (the default brain answers each request from its own chain). */
async function pooled<T>(jobs: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

describe.skipIf(bwrapPath() === undefined)('approval modes and rules in one-shots (--json)', () => {
  it('each mode × each case decides as documented', async () => {
    const table = CASES.flatMap((c) => (['untrusted', 'on-request', 'never'] as const).map((mode) => ({ c, mode })));
    const got = await pooled(
      table.map(
        ({ c, mode }) =>
          async () =>
            `${c.name} / ${mode}: ${(await outcome(c, mode)).outcome}`,
      ),
    );
    expect(got).toEqual(table.map(({ c, mode }) => `${c.name} / ${mode}: ${c.expect[mode]}`));
  }, 120_000);

  it('never tells the model why an escalation was refused', async () => {
    const before = emu.requests.length;
    await outcome(CASES[1] as Case, 'never');
    const sent = JSON.stringify((emu.requests[before + 1]?.body as { input: unknown }).input);
    expect(sent).toContain('the approval mode is \\"never\\"');
  });

  it('a deny rule holds under danger-full-access', async () => {
    const deny = CASES[4] as Case;
    const r = await outcome(deny, 'on-request', setup(deny), ['--sandbox', 'danger-full-access']);
    expect(r.outcome).toBe('refused');
    expect(r.lines.find((l) => l.type === 'tool_error')?.message).toMatch(/denied by .*rules\.json/);
  });

  it('a deny rule cannot be dodged by a path or a hidden runner, even under danger-full-access (issue 24 audit)', async () => {
    const rules = [{ prefix: ['rm', '-rf'], decision: 'deny' }];
    const byPath: Case = {
      name: 'by path',
      message: 'run: timeout -s KILL 5 /bin/rm -rf ran.txt',
      rules,
      expect: { untrusted: 'refused', 'on-request': 'refused', never: 'refused' },
    };
    const hidden: Case = {
      name: 'eval',
      message: `run: eval "${MARK}"`,
      rules,
      expect: { untrusted: 'asked-declined', 'on-request': 'asked-declined', never: 'refused' },
    };
    const full = ['--sandbox', 'danger-full-access'];
    const got = await pooled([
      async () => (await outcome(byPath, 'on-request', setup(byPath), full)).outcome,
      async () => (await outcome(hidden, 'on-request', setup(hidden), full)).outcome,
      async () => (await outcome(hidden, 'never', setup(hidden), full)).outcome,
    ]);
    expect(got).toEqual(['refused', 'asked-declined', 'refused']);
  });

  it('a malformed rules file: one line naming it; with a deny or ask rule agentx refuses to start', async () => {
    const b = sandbox(emu.baseUrl);
    const dir = join(b.home, '.config', 'agentx');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rules.json'), '{"commands": [{"prefix": ["echo"], "decision": "allow"},]}');
    const soft = await runCli(['--approval', 'never', 'hi'], b);
    expect(soft.code).toBe(0);
    expect(soft.stderr).toMatch(/rules\.json is not valid JSON at line 1, column 57: unexpected '\]' .*\(its rules are ignored\)/);
    writeFileSync(join(dir, 'rules.json'), '{"commands": [{"prefix": ["rm"], "decision": "deny"}');
    const hard = await runCli(['hi'], b);
    expect(hard.code).not.toBe(0);
    expect(hard.stderr.trim().split('\n')).toHaveLength(1);
    expect(hard.stderr).toMatch(/rules\.json is not valid JSON at line 1, column 53: the text ends too early .*does not start/);
    writeFileSync(join(dir, 'rules.json'), '{"commands": [{"prefix": ["git", "push"], "decision": "ask"},]}');
    const ask = await runCli(['hi'], b);
    expect(ask.code).not.toBe(0);
    expect(ask.stderr).toMatch(/rules\.json is not valid JSON .*does not start/);
  });

  it("a project rules file that is not JSON and holds terminal bytes: one clean line with line and column, none of JSON.parse's quote", async () => {
    const b = sandbox(emu.baseUrl);
    mkdirSync(join(b.cwd, '.agentx'));
    writeFileSync(join(b.cwd, '.agentx', 'rules.json'), '{"commands": [\n  {"prefix": ["rm"], "decision": "deny"},\x1b]0;owned\x07\n\x1b[2J\n]}');
    const r = await runCli(['hi'], b);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    expect(r.stderr).toContain(
      `agentx: ${join(b.cwd, '.agentx', 'rules.json')} is not valid JSON at line 2, column 42: unexpected '\\x1b' (near '…ision": "deny"},\\x1b]0;owned\\x07') (the file holds deny or ask rules`,
    );
  });
});
