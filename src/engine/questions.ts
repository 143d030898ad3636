// The one question channel: every question to the person — a command to approve, an escalation
// the model asked for, a command the sandbox refused, a remote MCP server's approval request, a
// patch to confirm — is an `approval_requested` event, and its answer comes back through one
// function the front-end gives (`AnswerQuestion`): the REPL shows a menu, a one-shot applies its
// policy. The decision is an `approval_decided` event (--json pins both). Nothing here knows
// how a question is shown.
import type { Answer } from '../tools/permissions/escalation.ts';
import type { ApprovalQuestion } from '../tools/tool.ts';

export type QuestionKind = 'command' | 'sandbox_refusal' | 'remote_mcp' | 'confirm';

/** What every question carries, whatever its kind. */
interface QuestionBase {
  callId: string;
  /** the tool asking: 'shell', 'exec_command', 'apply_patch', a remote MCP server label */
  tool: string;
  /** one line: the command(s), the patched files, the MCP tool */
  title: string;
  /** command lines exactly as they would run (front-ends sanitize before showing) */
  commands: string[];
  /** lines under the title (a patch's diff, MCP arguments) */
  preview: string[];
  /** the model asked to run outside the sandbox */
  escalated: boolean;
  /** the model's short question for the person */
  justification: string | undefined;
  /** the prefix `p` would allow, and the rule as it would be saved; absent: `p` is not offered */
  offerPrefix: { prefix: string[]; savedAs: string; file: string } | undefined;
  /** why the question is asked: rules, a parse failure, the sandbox's refusal */
  reasons: string[];
  /** a sandbox re-run question: what the sandbox refused and the output line that said so (quoted, never obeyed) */
  refusal?: { kind: string; evidence: string };
  /** which answers the question offers (a remote MCP approval cannot be "tell", a patch has no network) */
  choices: readonly AnswerKind[];
}

/** A question to the person; a remote MCP approval always carries the server's request (`remote`). */
export type PersonQuestion =
  | (QuestionBase & { kind: Exclude<QuestionKind, 'remote_mcp'>; remote?: undefined })
  /** `remote`: the server, its tool and the call's arguments (JSON text, the server's: sanitize before showing) */
  | (QuestionBase & { kind: 'remote_mcp'; remote: ApprovalQuestion });

export type AnswerKind = Answer['kind'];

export const COMMAND_CHOICES: readonly AnswerKind[] = ['once', 'once-network', 'prefix', 'no', 'tell'];
export const YES_NO_CHOICES: readonly AnswerKind[] = ['once', 'no'];
export const CONFIRM_CHOICES: readonly AnswerKind[] = ['once', 'no', 'tell'];

export type DecidedBy = 'person' | 'policy';

export interface Decided {
  answer: Answer;
  decidedBy: DecidedBy;
  /** the policy's one-line reason (a one-shot cannot ask) */
  reason?: string;
}

/** What the channel emits; part of the engine's event union (events.ts), defined here so this module needs nothing of it. */
export type QuestionEvent =
  /** A question to the person; the answer comes back through the front-end's AnswerQuestion. */
  | { type: 'approval_requested'; question: PersonQuestion }
  /** How a question was answered, and by whom (the person, or a one-shot's policy). */
  | { type: 'approval_decided'; callId: string; kind: QuestionKind; decision: AnswerKind; decidedBy: DecidedBy; text?: string; reason?: string };

/** The front-end's side of the channel: the person's answer (a menu) or the front-end's policy. */
export type AnswerQuestion = (question: PersonQuestion, signal: AbortSignal) => Promise<Decided>;

/** A front-end that cannot ask anyone (one-shot, --json): every question is answered no, and said once per call. */
export function refuseAll(reason: string, notice?: (question: PersonQuestion) => void): AnswerQuestion {
  return (question) => {
    notice?.(question);
    return Promise.resolve({ answer: { kind: 'no' }, decidedBy: 'policy', reason });
  };
}

export class QuestionChannel {
  constructor(
    private readonly emit: (event: QuestionEvent) => void,
    private readonly answerer: AnswerQuestion | undefined,
  ) {}

  get canAsk(): boolean {
    return this.answerer !== undefined;
  }

  /**
   * Asks and reports: the request and the decision are events; an answer the question does not
   * offer (a front-end bug) counts as no. Without an answerer, the answer is no.
   */
  async ask(question: PersonQuestion, signal: AbortSignal): Promise<Decided> {
    this.emit({ type: 'approval_requested', question });
    const decided: Decided =
      this.answerer === undefined || signal.aborted
        ? { answer: { kind: 'no' }, decidedBy: 'policy', reason: signal.aborted ? 'the turn was interrupted' : 'nobody can answer here' }
        : await this.answerer(question, signal);
    const valid = question.choices.includes(decided.answer.kind) ? decided : { ...decided, answer: { kind: 'no' } as const };
    this.emit({
      type: 'approval_decided',
      callId: question.callId,
      kind: question.kind,
      decision: valid.answer.kind,
      decidedBy: valid.decidedBy,
      text: valid.answer.kind === 'tell' ? valid.answer.text : undefined,
      reason: valid.reason,
    });
    return valid;
  }
}
