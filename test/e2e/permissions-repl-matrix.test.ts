// Approval modes × rules in the REPL, in a real pty with the real sandbox (issue 24): each mode ×
// {plain, escalation requested, allow/ask/deny rule, compound command with one denied part,
// unparseable}. The one-shot twin is permissions-oneshot.test.ts; here a question is shown to the
// person and answered `y`, so "asked" means: the question appeared, and after the yes it ran.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapPath } from '../support/sandbox.ts';
import { sandbox, type Sandbox } from './harness.ts';
import type { PtyRun } from './pty.ts';
import { prompt, replSuite, toolOutputs } from './repl-fixtures.ts';

const suite = replSuite();

type Mode = 'untrusted' | 'on-request' | 'never';
type Outcome = 'asked' | 'runs' | 'refused';

interface Case {
  name: string;
  /** "run: CMD" (the built-in shell) or "escalate: CMD" (with Codex's require_escalated). */
  message: string;
  /** What a run leaves in ran.txt (none: the shell itself rejects the line). */
  marker?: string;
  expect: Record<Mode, Outcome>;
}

// One rules file serves every case: each case's command starts with its own words.
const RULES = [
  { prefix: ['echo', 'allowed'], decision: 'allow' },
  { prefix: ['echo', 'asked'], decision: 'ask' },
  { prefix: ['echo', 'denied'], decision: 'deny' },
  { prefix: ['rm', '-rf'], decision: 'deny' },
];

const CASES: Case[] = [
  { name: 'plain', message: 'run: echo plain >> ran.txt', marker: 'plain', expect: { untrusted: 'asked', 'on-request': 'runs', never: 'runs' } },
  {
    name: 'escalation requested',
    message: 'escalate: echo escalated >> ran.txt',
    marker: 'escalated',
    expect: { untrusted: 'asked', 'on-request': 'asked', never: 'refused' },
  },
  { name: 'allow rule', message: 'run: echo allowed >> ran.txt', marker: 'allowed', expect: { untrusted: 'runs', 'on-request': 'runs', never: 'runs' } },
  { name: 'ask rule', message: 'run: echo asked >> ran.txt', marker: 'asked', expect: { untrusted: 'asked', 'on-request': 'asked', never: 'refused' } },
  { name: 'deny rule', message: 'run: echo denied >> ran.txt', marker: 'denied', expect: { untrusted: 'refused', 'on-request': 'refused', never: 'refused' } },
  {
    name: 'compound, one part denied',
    message: 'run: echo allowed-too >> ran.txt && rm -rf nothing-here',
    marker: 'allowed-too',
    expect: { untrusted: 'refused', 'on-request': 'refused', never: 'refused' },
  },
  // Unparseable, with deny and ask rules in force: it may hide a denied part, so it always asks, and
  // is refused under never (docs/permissions.md). After a yes the shell itself rejects the line, so
  // "ran" is read from the shell's own error. (Without such rules: permissions-oneshot.test.ts.)
  { name: 'unparseable', message: 'run: echo open >> ran.txt; echo "open', expect: { untrusted: 'asked', 'on-request': 'asked', never: 'refused' } },
];

const QUESTION = /\[n\] no \(Enter\)/;
const SHELL_REJECTED = /Unterminated quoted string|unexpected EOF|syntax error/;

function ranText(sb: Sandbox): string {
  const file = join(sb.cwd, 'ran.txt');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Sends the case's message; a question is answered `y`. Returns what happened. */
async function play(a: PtyRun, sb: Sandbox, c: Case): Promise<string> {
  const before = suite.emu.requests.length;
  a.line(c.message);
  const first = await a.waitFor(new RegExp(`${QUESTION.source}|tokens: `));
  const asked = QUESTION.test(first);
  if (asked) {
    a.write('y');
    await a.waitFor(/tokens: /);
  }
  await prompt(a);
  const outputs = JSON.stringify(suite.emu.requests.slice(before).flatMap((r) => toolOutputs(r).map((o) => o.output)));
  const ran = c.marker !== undefined ? ranText(sb).split('\n').includes(c.marker) : SHELL_REJECTED.test(outputs);
  if (asked) return ran ? 'asked' : `asked, then did not run: ${outputs}`;
  return ran ? 'runs' : 'refused';
}

describe.skipIf(bwrapPath() === undefined)('approval modes and rules in the REPL (pty)', () => {
  it.each(['untrusted', 'on-request', 'never'] as const)(
    '%s: each case decides as documented',
    async (mode) => {
      const sb = sandbox(suite.emu.baseUrl);
      mkdirSync(join(sb.home, '.config', 'agentx'), { recursive: true });
      writeFileSync(join(sb.home, '.config', 'agentx', 'rules.json'), JSON.stringify({ commands: RULES }));
      const a = suite.start(sb, ['--approval', mode]);
      await prompt(a);
      const got: string[] = [];
      for (const c of CASES) got.push(`${c.name}: ${await play(a, sb, c)}`);
      expect(got).toEqual(CASES.map((c) => `${c.name}: ${c.expect[mode]}`));
      // Nothing the rules deny ran, whatever the mode.
      expect(ranText(sb)).not.toMatch(/^denied$|^allowed-too$/m);
    },
    60_000,
  );
});
