import { describe, expect, it } from 'vitest';
import { answerKey, applyAnswer, decide, parseEscalationFields, type ApprovalMode, type EscalationFields } from './escalation.ts';
import type { CommandRule } from './rules.ts';

const rules: CommandRule[] = [
  { prefix: ['npm', 'test'], decision: 'allow', source: 'user' },
  { prefix: ['npm', 'install'], decision: 'allow', network: true, source: 'user' },
  { prefix: ['git', 'push'], decision: 'ask', source: 'project' },
  { prefix: ['rm', '-rf'], decision: 'deny', source: 'user' },
];
const plain: EscalationFields = { sandboxPermissions: 'use_default', justification: undefined, prefixRule: undefined };
const escalated: EscalationFields = { sandboxPermissions: 'require_escalated', justification: 'Fetch the deps?', prefixRule: ['pnpm', 'install'] };

function kind(mode: ApprovalMode, line: string, fields: EscalationFields, unsandboxed = false): string {
  const d = decide({ mode, commands: [line], fields, rules, unsandboxed });
  return d.kind === 'run' ? `run:${d.scope}` : d.kind;
}

describe('parseEscalationFields', () => {
  it("reads Codex's fields and the older boolean form", () => {
    expect(parseEscalationFields({})).toEqual({ ok: true, fields: plain });
    expect(parseEscalationFields({ sandbox_permissions: 'require_escalated', justification: ' Why? ', prefix_rule: ['npm', 'ci'] })).toEqual({
      ok: true,
      fields: { sandboxPermissions: 'require_escalated', justification: 'Why?', prefixRule: ['npm', 'ci'] },
    });
    expect(parseEscalationFields({ with_escalated_permissions: true }).ok && parseEscalationFields({ with_escalated_permissions: true })).toMatchObject({
      fields: { sandboxPermissions: 'require_escalated' },
    });
  });
  it('gives one clear line for bad input', () => {
    expect(parseEscalationFields({ sandbox_permissions: 'root' })).toEqual({
      ok: false,
      error: '"sandbox_permissions" must be "use_default" or "require_escalated", not "root"',
    });
    expect(parseEscalationFields({ prefix_rule: 'npm' }).ok).toBe(false);
    expect(parseEscalationFields({ justification: 3 }).ok).toBe(false);
  });
});

describe('decide: each mode × {plain, escalated, allow, ask, deny, compound with a denied part, unparseable}', () => {
  const table: [string, EscalationFields, Record<ApprovalMode, string>][] = [
    ['ls', plain, { untrusted: 'ask', 'on-request': 'run:sandboxed', never: 'run:sandboxed' }],
    ['pnpm install', escalated, { untrusted: 'ask', 'on-request': 'ask', never: 'refuse' }],
    ['npm test', plain, { untrusted: 'run:sandboxed', 'on-request': 'run:sandboxed', never: 'run:sandboxed' }],
    ['npm test', escalated, { untrusted: 'run:unsandboxed', 'on-request': 'run:unsandboxed', never: 'run:unsandboxed' }],
    ['npm install', escalated, { untrusted: 'run:sandboxed-with-network', 'on-request': 'run:sandboxed-with-network', never: 'run:sandboxed-with-network' }],
    ['git push', plain, { untrusted: 'ask', 'on-request': 'ask', never: 'refuse' }],
    ['rm -rf build', plain, { untrusted: 'refuse', 'on-request': 'refuse', never: 'refuse' }],
    ['npm test && rm -rf /', escalated, { untrusted: 'refuse', 'on-request': 'refuse', never: 'refuse' }],
    // with deny and ask rules in force, a line the parser cannot see into could hide a denied command
    ['cat <<EOF\nx\nEOF', plain, { untrusted: 'ask', 'on-request': 'ask', never: 'refuse' }],
    ['cat <<EOF\nx\nEOF', escalated, { untrusted: 'ask', 'on-request': 'ask', never: 'refuse' }],
  ];
  for (const [line, fields, want] of table) {
    for (const mode of ['untrusted', 'on-request', 'never'] as const) {
      it(`${mode}: ${JSON.stringify(line)} ${fields.sandboxPermissions}`, () => expect(kind(mode, line, fields)).toBe(want[mode]));
    }
  }

  it('a deny rule holds under danger-full-access', () => {
    expect(kind('on-request', 'rm -rf /', plain, true)).toBe('refuse');
    expect(kind('never', 'npm test; rm -rf /', plain, true)).toBe('refuse');
  });

  it('a line that dodges the parser never runs without the person, in every mode, even under danger-full-access (issue 24 audit)', () => {
    for (const line of ['eval "rm -rf x"', 'echo x | xargs rm -rf', 'find . -exec rm -rf {} +', 'curl x | sh -s', 'cat <<EOF\nrm -rf x\nEOF']) {
      for (const unsandboxed of [false, true]) {
        expect(kind('untrusted', line, plain, unsandboxed), line).toBe('ask');
        expect(kind('on-request', line, plain, unsandboxed), line).toBe('ask');
        expect(kind('never', line, plain, unsandboxed), line).toBe('refuse');
      }
    }
    const d = decide({ mode: 'never', commands: ['eval "rm -rf x"'], fields: plain, rules, unsandboxed: true });
    expect(d.kind === 'refuse' && d.toModel).toContain('cannot be checked');
  });

  it('the dodges of the audit are refused in every mode, even under danger-full-access', () => {
    for (const line of [
      '/bin/rm -rf x',
      'bash -lc "rm -rf x"',
      'bash -e -c "rm -rf x"',
      'timeout -s KILL 5 rm -rf x',
      'exec -a foo rm -rf x',
      'command rm -rf x',
      'nice -n 5 rm -rf x',
    ]) {
      for (const mode of ['untrusted', 'on-request', 'never'] as const) {
        for (const unsandboxed of [false, true]) expect(kind(mode, line, plain, unsandboxed), `${mode} ${line}`).toBe('refuse');
      }
    }
  });

  it('without deny or ask rules an unparseable line is judged by the mode alone (nothing to dodge)', () => {
    const allowOnly = rules.filter((r) => r.decision === 'allow');
    const k = (mode: ApprovalMode): string => {
      const d = decide({ mode, commands: ['cat <<EOF\nx\nEOF'], fields: plain, rules: allowOnly, unsandboxed: false });
      return d.kind === 'run' ? `run:${d.scope}` : d.kind;
    };
    expect([k('untrusted'), k('on-request'), k('never')]).toEqual(['ask', 'run:sandboxed', 'run:sandboxed']);
  });

  it('the model hears why it was refused', () => {
    const d = decide({ mode: 'never', commands: ['pnpm install'], fields: escalated, rules, unsandboxed: false });
    expect(d.kind === 'refuse' && d.toModel).toContain('approval mode is "never"');
    const r = decide({ mode: 'on-request', commands: ['npm test; rm -rf x'], fields: plain, rules, unsandboxed: false });
    expect(r.kind === 'refuse' && r.toModel).toContain('"rm -rf x" is denied by user');
  });

  it('offers the suggested prefix only when it is safe and matches every part', () => {
    const q = (line: string, prefixRule: string[]): string[] | undefined => {
      const d = decide({ mode: 'on-request', commands: [line], fields: { ...escalated, prefixRule }, rules, unsandboxed: false });
      return d.kind === 'ask' ? d.question.offerPrefix : ['not asked'];
    };
    expect(q('pnpm install --frozen-lockfile', ['pnpm', 'install'])).toEqual(['pnpm', 'install']);
    expect(q('pnpm install && curl evil', ['pnpm', 'install'])).toBeUndefined();
    expect(q('bash -c "pnpm install"', ['bash'])).toBeUndefined();
    expect(q('pnpm install', ['pnpm', 'install', '--force'])).toBeUndefined();
  });
});

describe('answers', () => {
  const d = decide({ mode: 'on-request', commands: ['pnpm install'], fields: escalated, rules, unsandboxed: false });
  const question =
    d.kind === 'ask'
      ? d.question
      : (() => {
          throw new Error('expected a question');
        })();

  it('maps each answer to what runs, what is remembered and what the model hears', () => {
    expect(applyAnswer(question, { kind: 'once' }, false)).toEqual({ run: 'unsandboxed', addRule: null, toModel: null });
    expect(applyAnswer(question, { kind: 'once-network' }, false).run).toBe('sandboxed-with-network');
    expect(applyAnswer(question, { kind: 'prefix', remember: 'saved' }, false).addRule).toEqual({
      rule: { prefix: ['pnpm', 'install'], decision: 'allow' },
      remember: 'saved',
    });
    expect(applyAnswer(question, { kind: 'no' }, false).run).toBeNull();
    expect(applyAnswer(question, { kind: 'tell', text: 'use npm ci' }, false).toModel).toContain('use npm ci');
  });

  it('Enter is no; p only when a prefix is offered', () => {
    expect(answerKey('', true)).toBe('n');
    expect(answerKey('\n', true)).toBe('n');
    expect(answerKey('Y', true)).toBe('y');
    expect(answerKey('p', false)).toBeNull();
    expect(answerKey('x', true)).toBeNull();
  });
});
