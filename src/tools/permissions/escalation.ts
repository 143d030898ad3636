// Escalation requests (Codex's fields, which models are trained on): a shell-like tool call may say
// `sandbox_permissions: "require_escalated"` with a `justification` (a short question for the person)
// and a `prefix_rule` (a command prefix it suggests remembering). This module reads those fields and
// decides, from the approval mode and the rules, whether a call runs, asks the person, or is refused.
// It is pure: the caller asks the question and runs the command (shell tool, exec_command, …).
import { decideLines, tooBroadPrefix, type CommandRule, type LineVerdict } from './rules.ts';

export type ApprovalMode = 'untrusted' | 'on-request' | 'never';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['untrusted', 'on-request', 'never'];

export type SandboxPermissions = 'use_default' | 'require_escalated';

export interface EscalationFields {
  sandboxPermissions: SandboxPermissions;
  justification: string | undefined;
  prefixRule: string[] | undefined;
}

/** The JSON-schema properties a function tool adds to offer escalation (merge into its `properties`). */
export const ESCALATION_PARAMETERS = {
  sandbox_permissions: {
    type: 'string',
    enum: ['use_default', 'require_escalated'],
    description:
      'use_default (the default) runs the command in the sandbox. require_escalated asks the person to run this one command outside the sandbox (for example when it needs the network or files outside the workspace); give a justification.',
  },
  justification: {
    type: 'string',
    description:
      'With require_escalated: one short question for the person that says why, e.g. "Do you want to install the dependencies from the npm registry?"',
  },
  prefix_rule: {
    type: 'array',
    items: { type: 'string' },
    description:
      'With require_escalated: a short command prefix the person may allow from now on, e.g. ["npm", "install"] or ["pytest"]; never the whole command.',
  },
} as const;

export type EscalationParse = { ok: true; fields: EscalationFields } | { ok: false; error: string };

const MAX_JUSTIFICATION = 500;

/** Reads the escalation fields from a call's parsed JSON arguments (absent fields mean use_default). */
export function parseEscalationFields(args: Record<string, unknown>): EscalationParse {
  const sp = args.sandbox_permissions ?? (args.with_escalated_permissions === true ? 'require_escalated' : 'use_default');
  if (sp !== 'use_default' && sp !== 'require_escalated') {
    return { ok: false, error: `"sandbox_permissions" must be "use_default" or "require_escalated", not ${JSON.stringify(sp)}` };
  }
  const j = args.justification;
  if (j !== undefined && typeof j !== 'string') return { ok: false, error: '"justification" must be a string' };
  const pr = args.prefix_rule;
  if (pr !== undefined && pr !== null && !(Array.isArray(pr) && pr.every((t) => typeof t === 'string'))) {
    return { ok: false, error: '"prefix_rule" must be an array of strings' };
  }
  const justification = j === undefined || j.trim() === '' ? undefined : j.trim().slice(0, MAX_JUSTIFICATION);
  const prefixRule = Array.isArray(pr) && pr.length > 0 ? pr : undefined;
  return { ok: true, fields: { sandboxPermissions: sp, justification, prefixRule } };
}

/** How a call that runs is run. */
export type RunScope = 'sandboxed' | 'sandboxed-with-network' | 'unsandboxed';

export type Decision = { kind: 'run'; scope: RunScope; why: string } | { kind: 'ask'; question: Question } | { kind: 'refuse'; toModel: string };

export interface Question {
  /** the command lines exactly as they will run (the front-end sanitizes them before showing) */
  commands: string[];
  escalated: boolean;
  justification: string | undefined;
  /** a prefix the person may allow with `p`; absent when none is safe to offer */
  offerPrefix: string[] | undefined;
  /** why the question is asked (rules, parse failures) */
  reasons: string[];
}

export interface DecisionInput {
  mode: ApprovalMode;
  commands: readonly string[];
  fields: EscalationFields;
  rules: readonly CommandRule[];
  /** danger-full-access: everything runs outside the sandbox already; escalation changes nothing */
  unsandboxed: boolean;
}

/** The model's suggested prefix, when it is safe and actually matches every part of the call. */
export function offerablePrefix(suggested: string[] | undefined, verdict: LineVerdict): string[] | undefined {
  if (suggested === undefined || tooBroadPrefix(suggested) !== null) return undefined;
  const cmds = verdict.commands;
  if (cmds === null || cmds.length === 0) return undefined;
  const matchesAll = cmds.every((c) => suggested.every((t, i) => c.words[i]?.literal === true && c.words[i]?.text === t));
  return matchesAll ? suggested : undefined;
}

export function decide(input: DecisionInput): Decision {
  const verdict = decideLines(input.commands, input.rules);
  if (verdict.decision === 'deny') {
    return {
      kind: 'refuse',
      toModel: `The command was not run: ${verdict.reasons.filter((r) => r.includes('denied')).join('; ')}. Do not retry it; find another way or ask the person.`,
    };
  }
  const escalated = input.fields.sandboxPermissions === 'require_escalated' && !input.unsandboxed;
  const question = (): Question => ({
    commands: [...input.commands],
    escalated,
    justification: input.fields.justification,
    offerPrefix: offerablePrefix(input.fields.prefixRule, verdict),
    reasons: verdict.reasons,
  });
  if (verdict.decision === 'allow') {
    // An allow rule runs the command without asking; network:true rules keep it in the sandbox.
    const scope: RunScope = input.unsandboxed ? 'unsandboxed' : verdict.networkOnly ? 'sandboxed-with-network' : escalated ? 'unsandboxed' : 'sandboxed';
    return { kind: 'run', scope, why: 'allowed by a rule' };
  }
  // No rule allows every part (or a rule asks).
  const ruleAsks = verdict.reasons.some((r) => r.includes(' asks by '));
  // A line the parser cannot see into (eval, xargs, find -exec, a here-document, …) may hide a command
  // a deny or ask rule names: with such rules in force it never runs without the person, whatever the
  // mode and the sandbox (a deny rule holds under danger-full-access too).
  if (verdict.unparseable && input.rules.some((r) => r.decision !== 'allow')) {
    if (input.mode === 'never') {
      return {
        kind: 'refuse',
        toModel: `The command was not run: it cannot be checked against the person's deny and ask rules (${verdict.reasons.join('; ')}), and the approval mode is "never". Write it as plain commands (no eval, xargs, find -exec, here-documents or shell reading its input).`,
      };
    }
    return { kind: 'ask', question: question() };
  }
  if (input.mode === 'never') {
    if (escalated)
      return {
        kind: 'refuse',
        toModel:
          'The command was not run: the approval mode is "never", so requests to run outside the sandbox are refused. Run it in the sandbox (sandbox_permissions "use_default") or tell the person what to run themselves.',
      };
    if (ruleAsks)
      return {
        kind: 'refuse',
        toModel: `The command was not run: a rule says to ask the person first, and the approval mode is "never" (${verdict.reasons.join('; ')}).`,
      };
    return { kind: 'run', scope: input.unsandboxed ? 'unsandboxed' : 'sandboxed', why: 'approval mode never: runs in the sandbox' };
  }
  if (input.mode === 'on-request' && !escalated && !ruleAsks) {
    return { kind: 'run', scope: input.unsandboxed ? 'unsandboxed' : 'sandboxed', why: 'on-request: sandboxed commands run freely' };
  }
  return { kind: 'ask', question: question() };
}

/** The person's answer. Keys: y once, w once with the network only, p always this prefix, n no, t no and tell. */
export type Answer =
  | { kind: 'once' }
  | { kind: 'once-network' }
  | { kind: 'prefix'; remember: 'session' | 'saved' }
  | { kind: 'no' }
  | { kind: 'tell'; text: string };

export interface AnswerEffect {
  run: RunScope | null;
  /** a rule to add (to the session, or saved in the person's rules file) */
  addRule: { rule: Omit<CommandRule, 'source'>; remember: 'session' | 'saved' } | null;
  /** the call's output when it does not run */
  toModel: string | null;
}

export function applyAnswer(question: Question, answer: Answer, unsandboxed: boolean): AnswerEffect {
  const approvedScope: RunScope = unsandboxed || question.escalated ? 'unsandboxed' : 'sandboxed';
  switch (answer.kind) {
    case 'once':
      return { run: approvedScope, addRule: null, toModel: null };
    case 'once-network':
      return { run: unsandboxed ? 'unsandboxed' : 'sandboxed-with-network', addRule: null, toModel: null };
    case 'prefix':
      if (question.offerPrefix === undefined) return { run: approvedScope, addRule: null, toModel: null };
      return { run: approvedScope, addRule: { rule: { prefix: question.offerPrefix, decision: 'allow' }, remember: answer.remember }, toModel: null };
    case 'no':
      return { run: null, addRule: null, toModel: 'The person declined to run this command. Do not retry it; ask them or take another approach.' };
    case 'tell':
      return { run: null, addRule: null, toModel: `The person declined to run this command and said what to do instead:\n${answer.text}` };
  }
}

/** Reads a key of the question's menu; Enter (empty input) is "no". Returns null for an unknown key. */
export function answerKey(input: string, offerPrefix: boolean): 'y' | 'w' | 'p' | 'n' | 't' | null {
  const k = input.trim().toLowerCase();
  if (k === '' || k === 'n' || k === 'no') return 'n';
  if (k === 'y' || k === 'yes') return 'y';
  if (k === 'w') return 'w';
  if (k === 'p' && offerPrefix) return 'p';
  if (k === 't') return 't';
  return null;
}
