// What the session allows: the approval mode (switchable with /approvals), the rules in force
// (the person's file, the project's, this session's) and the one function every command tool
// goes through before it runs — `authorize` — which decides from the mode and the rules
// (tools/permissions/escalation.ts), asks the person through the question channel when it must,
// and applies the answer (a remembered prefix is saved in the person's rules file).
import { decide, applyAnswer, type ApprovalMode, type EscalationFields, type Question } from '../tools/permissions/escalation.ts';
import { appendRule, ruleJson, type CommandRule } from '../tools/permissions/rules.ts';
import type { Authorization, CommandRequest } from '../tools/tool.ts';
import { COMMAND_CHOICES, type Decided, type PersonQuestion } from './questions.ts';

/** Asks the person (the question channel, after the journal is on disk). */
export type AskPerson = (question: PersonQuestion, signal: AbortSignal) => Promise<Decided>;

/** An authorization request inside the engine: the tool's request and which call asks. */
export type CallCommandRequest = CommandRequest & { callId: string; tool: string };

export interface PermissionSettings {
  mode: ApprovalMode;
  /** rules of the person's file and the project's (only deny/ask until the person approved it) */
  rules: CommandRule[];
  /** danger-full-access: commands already run outside the sandbox */
  unsandboxed: boolean;
  /** plan mode: nothing may run with more rights than the read-only sandbox */
  planMode: boolean;
  /** where "always allow this prefix" saves the rule (~/.config/agentx/rules.json) */
  userRulesPath: string;
  /** the project's allow rules the person has not approved (listed by /permissions as inactive) */
  inactive?: CommandRule[];
}

export class Permissions {
  private readonly sessionRules: CommandRule[] = [];

  constructor(
    private settings: PermissionSettings,
    /** one line for the person (a rule that could not be saved) */
    private readonly notice: (line: string) => void = () => undefined,
  ) {}

  get mode(): ApprovalMode {
    return this.settings.mode;
  }

  /** /approvals: the new mode holds from the next call on; the model learns it from the environment message. */
  setMode(mode: ApprovalMode): void {
    this.settings = { ...this.settings, mode };
  }

  setPlanMode(on: boolean): void {
    this.settings = { ...this.settings, planMode: on };
  }

  get planMode(): boolean {
    return this.settings.planMode;
  }

  get unsandboxed(): boolean {
    return this.settings.unsandboxed;
  }

  /** Every rule in force, with where it comes from (/permissions). */
  rulesInForce(): readonly CommandRule[] {
    return [...this.settings.rules, ...this.sessionRules];
  }

  inactiveRules(): readonly CommandRule[] {
    return this.settings.inactive ?? [];
  }

  /** The project's allow rules, once the person approved them (/permissions approve). */
  activate(rules: readonly CommandRule[]): void {
    const inactive = new Set(rules);
    this.settings = { ...this.settings, rules: [...this.settings.rules, ...rules], inactive: (this.settings.inactive ?? []).filter((r) => !inactive.has(r)) };
  }

  get userRulesPath(): string {
    return this.settings.userRulesPath;
  }

  /** The person's answer for a command, or the rule/mode decision, as a run scope or a refusal. */
  async authorize(request: CallCommandRequest, ask: AskPerson, signal: AbortSignal): Promise<Authorization> {
    const escalating = request.fields.sandboxPermissions === 'require_escalated' || request.sandboxRefusal !== undefined;
    if (this.settings.planMode && escalating) {
      return {
        refused: 'The command was not run with more rights: plan mode allows only the read-only sandbox. Plan without it, or say what the person should run.',
        decidedBy: 'mode',
      };
    }
    const authorization = await this.authorizeInMode(request, ask, signal);
    // Plan mode: whatever the mode, the rules or the person said, the command runs in the sandbox
    // the plan-mode runner is built with (read-only), never outside it, and without the network.
    // The session may have started with danger-full-access: that must not carry into plan mode.
    if (this.settings.planMode && 'run' in authorization && authorization.run !== 'sandboxed') {
      return { ...authorization, run: 'sandboxed', why: `${authorization.why}; plan mode: read-only sandbox` };
    }
    return authorization;
  }

  private async authorizeInMode(request: CallCommandRequest, ask: AskPerson, signal: AbortSignal): Promise<Authorization> {
    // In plan mode the session's danger-full-access does not hold: decide as for a sandboxed session.
    const unsandboxed = this.settings.unsandboxed && !this.settings.planMode;
    const fields: EscalationFields = request.sandboxRefusal !== undefined ? { ...request.fields, sandboxPermissions: 'require_escalated' } : request.fields;
    const decision = decide({ mode: this.settings.mode, commands: request.commands, fields, rules: this.rulesInForce(), unsandboxed });
    if (decision.kind === 'refuse') return { refused: decision.toModel, decidedBy: decision.toModel.includes('denied') ? 'rule' : 'mode' };
    if (decision.kind === 'run') {
      // After a sandbox refusal only a rule (not the mode) may run the command with more rights.
      if (request.sandboxRefusal !== undefined && decision.why !== 'allowed by a rule') {
        return { refused: 'The sandbox refused the command and it was not run again with more rights (approval mode never).', decidedBy: 'mode' };
      }
      return { run: decision.scope, why: decision.why, decidedBy: decision.why.includes('rule') ? 'rule' : 'mode' };
    }
    return this.askPerson(request, decision.question, unsandboxed, ask, signal);
  }

  private async askPerson(request: CallCommandRequest, question: Question, unsandboxed: boolean, ask: AskPerson, signal: AbortSignal): Promise<Authorization> {
    const offer = question.offerPrefix;
    const kind = request.sandboxRefusal !== undefined ? 'sandbox_refusal' : 'command';
    const decided = await ask(
      {
        kind,
        callId: request.callId,
        tool: request.tool,
        title: request.commands.join(' && '),
        commands: question.commands,
        preview: [],
        escalated: question.escalated,
        justification: question.justification,
        offerPrefix:
          offer === undefined ? undefined : { prefix: offer, savedAs: ruleJson({ prefix: offer, decision: 'allow' }), file: this.settings.userRulesPath },
        reasons: [
          ...(request.sandboxRefusal !== undefined ? [`the sandbox refused it (${request.sandboxRefusal.kind}): ${request.sandboxRefusal.evidence}`] : []),
          ...question.reasons,
        ],
        ...(request.sandboxRefusal !== undefined ? { refusal: request.sandboxRefusal } : {}),
        // Plan mode grants no network: the question does not offer it.
        choices: COMMAND_CHOICES.filter((c) => (c !== 'prefix' || offer !== undefined) && (c !== 'once-network' || !this.settings.planMode)),
      },
      signal,
    );
    const effect = applyAnswer(question, decided.answer, unsandboxed);
    if (effect.addRule !== null) this.remember(effect.addRule.rule, effect.addRule.remember);
    if (effect.run === null) {
      const told =
        decided.decidedBy === 'policy' && decided.reason !== undefined
          ? `The command was not run: ${decided.reason}.`
          : (effect.toModel ?? 'The command was not run.');
      return { refused: told, decidedBy: decided.decidedBy };
    }
    return { run: effect.run, why: `approved by the person (${decided.answer.kind})`, decidedBy: 'person' };
  }

  private remember(rule: Omit<CommandRule, 'source'>, where: 'session' | 'saved'): void {
    if (where === 'saved') {
      try {
        appendRule(this.settings.userRulesPath, rule);
        this.sessionRules.push({ ...rule, source: this.settings.userRulesPath });
        return;
      } catch (err) {
        // The file could not be written (or is not ours to rewrite): the rule holds for this session.
        this.notice(`the rule could not be saved (${err instanceof Error ? err.message : String(err)}); it holds for this session only`);
      }
    }
    this.sessionRules.push({ ...rule, source: 'session' });
  }
}
