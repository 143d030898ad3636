// One user turn (a Turn, one per operation): request → tool calls → execute (journaled) →
// continue, until the model answers.
// The loop never names a tool: the registry resolves each call item to its tool.
import { ModelError, classifyFailure } from '../model/errors.ts';
import type { RequestShape } from '../model/request.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from '../model/types.ts';
import { SessionSaveError, type UpdateOptions } from '../store/session-store.ts';
import { recordFailure, recordPendingFiles, recordToolCalls, recordTurn, type FileSpan, type SessionState } from '../store/state.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { notRunOutput, outputForCall } from '../tools/wire-output.ts';
import type { ParsedCall } from '../tools/tool.ts';
import { addUsage, ZERO_USAGE, type TurnUsage } from '../usage/tokens.ts';
import type { InputItem, LocalImagePart, ToolOutputItem } from '../wire/items.ts';
import { ContextHopeless, type Compaction, type SendResult } from './compaction.ts';
import { contextLeft } from './context.ts';
import type { EmitEvent } from './events.ts';
import { HostedItems } from './hosted.ts';
import { attachmentMessage, callItemOf, journalEntry, markToolCall, recordApproval } from './journal.ts';
import { retryDelay, type RetryPolicy } from './recovery.ts';
import { TurnFiles, type WorkspaceFiles } from './files.ts';
import type { Attempt, Conversation } from './conversation.ts';
import type { EnvironmentFacts } from './environment.ts';
import { hookToolInput, hookToolName, type SessionHooks } from './hooks.ts';
import type { AskPerson, Permissions } from './permissions.ts';
import { CONFIRM_CHOICES, QuestionChannel, YES_NO_CHOICES } from './questions.ts';
import type { ToolJournalEntry } from '../store/state.ts';
import type { ApprovalDecision, ApprovalQuestion, Authorization, Tool, ToolContext } from '../tools/tool.ts';

/** The session as the engine sees it (store/session-store.ts implements it). */
export interface SessionHandle {
  readonly state: SessionState;
  /** Applies and saves a transition; `required` throws SessionSaveError instead of going on unsaved. */
  update(transition: (s: SessionState) => SessionState, options?: UpdateOptions): void;
  /** Applies a transition now and saves it with the next update or flush (one write for two). */
  stage(transition: (s: SessionState) => SessionState): void;
  /** Saves what was staged. */
  flush(): void;
  publishCheckpoint(source: 'turn' | 'rollback' | 'compaction'): void;
}

export interface TurnDeps {
  client: ModelClient;
  /** Model, instructions and reasoning effort; the tools come from the registry. */
  shape: Omit<RequestShape, 'tools'>;
  registry: ToolRegistry;
  session: SessionHandle;
  /** The directory commands run in now, and the workspace boundary (where the session started). */
  cwd(): string;
  workspaceRoot: string;
  emit: EmitEvent;
  /**
   * The question channel (questions.ts): every question to the person — command approvals,
   * escalations, sandbox re-runs, remote MCP approvals, patch confirmations — is asked through it.
   * Absent: nobody can answer, every question is no.
   */
  questions?: QuestionChannel;
  /**
   * The approval mode and the command rules (permissions.ts); absent: commands run as configured,
   * unasked. Under `untrusted` other calls (patches, MCP tools) are confirmed through the channel too.
   */
  permissions?: Permissions;
  policy: RetryPolicy;
  /** The context window: compaction before requests that would not fit, overflow recovery (turn-compaction.ts). */
  compaction: Compaction;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): Date;
  random(): number;
  /** Workspace snapshots around each turn's writing tool calls (file rollback); absent when off. */
  workspace?: WorkspaceFiles;
  /** The conversation log and how requests carry the conversation (conversation.ts). */
  conversation: Conversation;
  /** Where commands run, for the environment context message (environment.ts); absent: none is sent. */
  environment?: () => EnvironmentFacts;
  /** The person's hooks (hooks.ts): before and after each call, at the prompt, at the turn's end. */
  hooks?: SessionHooks;
}

export interface TurnResult {
  responseId: string;
  text: string;
  usage: TurnUsage;
}

/** The request failed after the automatic recovery; the state holds failed_response + pending_transaction. */
export class TurnFailed extends Error {
  constructor(readonly failure: ModelError) {
    super(failure.message);
    this.name = 'TurnFailed';
  }
}

/** The user interrupted the turn (Ctrl-C); what ran is journaled. */
export class TurnInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'TurnInterrupted';
  }
}

/** New chains a turn may start when the server lost the conversation, before the person decides. */
export const MAX_NEW_CHAINS_PER_TURN = 2;

/** How one operation runs, chosen by the front-end per operation (never by changing the engine's collaborators). */
export interface TurnOptions {
  /** /init: this turn's patches wait for the person's yes, with their diff shown, whatever the approval mode. */
  reviewPatches?: boolean;
}

type CallStep = { output: ToolOutputItem; interrupted: boolean; attachments?: LocalImagePart[] };

/**
 * One operation's turn: the request/tool loop and the values that belong to it alone — the
 * person's message, the abort signal, the files its calls changed, the transcript lines of the
 * calls it ran, what it used of the automatic recovery. The engine makes one per operation; a
 * resumed turn (`resume`) runs the calls a dead session left and then continues on the same Turn,
 * so its record keeps the re-run calls' lines and files.
 */
export class Turn {
  /** Transcript lines of the calls this turn ran, in order: the turn's record keeps them (a lost chain is rebuilt from them). */
  readonly summaries: string[] = [];
  /** The files the turn's calls change (snapshots around the first write; the span goes in the record). */
  readonly files: TurnFiles;
  /** New chains started for a lost conversation (bounded by MAX_NEW_CHAINS_PER_TURN). */
  private newChains = 0;

  constructor(
    private readonly deps: TurnDeps,
    /** The person's message this turn answers (recorded with it; '' when unknown). */
    readonly userText: string,
    readonly signal: AbortSignal,
    readonly options: TurnOptions = {},
    /** Lines of calls this turn ran before it failed, when this operation finishes it (a Retry). */
    earlier: readonly string[] = [],
  ) {
    this.files = new TurnFiles(deps.workspace);
    this.summaries.push(...earlier);
  }

  /** Runs the request/tool loop from a prepared first request (a new message, a retry, pending outputs) until the model answers. */
  run(first: Attempt): Promise<TurnResult> {
    return this.settled(() => this.loop(first));
  }

  /**
   * Finishes the turn a dead session left (the recovery menu's Retry): runs its calls that did
   * not complete, then continues from the chain head with their outputs. Both parts are inside
   * the same settling as `run`, so a Ctrl-C during a re-run call still records the files it
   * wrote (/diff, /rollback) and reports the turn interrupted.
   */
  resume(): Promise<TurnResult> {
    const previousResponseId = this.deps.session.state.response_id;
    return this.settled(async () => this.loop({ input: await this.executePending(), previousResponseId }));
  }

  /** How a turn ends without an answer: what its calls wrote is recorded, and renderers are told. */
  private async settled(body: () => Promise<TurnResult>): Promise<TurnResult> {
    const deps = this.deps;
    try {
      return await body();
    } catch (err) {
      // The files changed so far are recorded even without a checkpoint: the next one adopts them.
      if (err instanceof TurnInterrupted || err instanceof TurnFailed) {
        const span = await this.files.end();
        if (span !== null) {
          deps.session.update((s) => recordPendingFiles(s, span));
          await emitWorkspaceChanged(deps, span);
        }
      }
      // Renderers need to know the turn ended without an answer (e.g. to stop a retry countdown).
      if (err instanceof TurnInterrupted) deps.emit({ type: 'turn_interrupted' });
      else if (err instanceof TurnFailed) deps.emit({ type: 'turn_failed', message: err.message });
      throw err;
    }
  }

  private async loop(first: Attempt): Promise<TurnResult> {
    const deps = this.deps;
    const started = deps.now().getTime();
    let attempt = first;
    let turnUsage: TurnUsage = ZERO_USAGE;
    for (;;) {
      const { response, contextTokens } = await this.requestWithRecovery(attempt);
      turnUsage = addUsage(turnUsage, response.usage);
      if (response.status === 'incomplete') deps.emit({ type: 'response_incomplete', responseId: response.id });
      if (response.toolCalls.length === 0) {
        const span = await this.files.end();
        deps.session.update((s) =>
          recordTurn(s, {
            responseId: response.id,
            userMessage: this.userText,
            assistantMessage: response.text,
            usage: response.usage,
            toolSummaries: [...this.summaries],
            contextTokens,
            now: deps.now(),
            files: span,
          }),
        );
        if (span !== null) await emitWorkspaceChanged(deps, span);
        // Checkpoints are the engine's business: published when a turn completes, never by a renderer.
        deps.session.publishCheckpoint('turn');
        const context = contextLeft(contextTokens, deps.compaction.window());
        deps.emit({ type: 'usage', usage: turnUsage, context });
        deps.emit({ type: 'turn_done', responseId: response.id, text: response.text, usage: turnUsage, context, durationMs: deps.now().getTime() - started });
        if (deps.hooks?.has('Stop') === true) await deps.hooks.run({ event: 'Stop', lastAssistantMessage: response.text });
        return { responseId: response.id, text: response.text, usage: turnUsage };
      }
      deps.session.update((s) =>
        recordToolCalls(s, {
          responseId: response.id,
          calls: response.toolCalls.map(journalEntry),
          usage: response.usage,
          userMessage: this.userText,
          assistantText: response.text,
          contextTokens,
        }),
      );
      const outputs = await this.executePending();
      attempt = { input: outputs, previousResponseId: response.id };
    }
  }

  /**
   * Runs every journaled call of the chain head that is not completed, in order, and returns the
   * outputs of all of them (then any images they attached). `completed` calls are never re-run:
   * their recorded output is reused. Only inside `settled` (run's loop, resume).
   */
  private async executePending(): Promise<InputItem[]> {
    const deps = this.deps;
    const outputs: ToolOutputItem[] = [];
    let interrupted = false;
    for (const entry of deps.session.state.pending_tool_calls) {
      if (entry.status === 'completed' && entry.output !== undefined) {
        const resolved = deps.registry.resolve(callItemOf(entry));
        const call = resolved.ok ? resolved.call : { title: resolved.title, commands: [] };
        deps.emit({ type: 'tool_reused', callId: entry.call_id, title: call.title, commands: call.commands });
        outputs.push(entry.output);
        continue;
      }
      const step = await this.handleCall(entry, { skip: interrupted || this.signal.aborted, retry: entry.status === 'started' });
      // Saved with the next call's `started` mark, or by the flush below (issue 22 §6: one durable
      // write per call instead of two). Until then a crash leaves this call `started`: never re-run
      // without the person's Retry, exactly as a crash while it ran.
      deps.session.stage((s) => markToolCall(s, entry.call_id, 'completed', step.output, step.attachments));
      outputs.push(step.output);
      interrupted ||= step.interrupted;
    }
    // Every output is on disk before any of them is sent (a resend after a crash sends the same).
    deps.session.flush();
    if (interrupted || this.signal.aborted) throw new TurnInterrupted();
    return [...outputs, ...attachmentMessage(deps.session.state.pending_tool_calls)];
  }

  private async handleCall(entry: ToolJournalEntry, how: { skip: boolean; retry: boolean }): Promise<CallStep> {
    const deps = this.deps;
    const signal = this.signal;
    const item = callItemOf(entry);
    const resolved = deps.registry.resolve(item);
    const shown: Pick<ParsedCall, 'title' | 'commands'> = resolved.ok ? resolved.call : { title: resolved.title, commands: [] };
    deps.emit({
      type: 'tool_call',
      callId: item.call_id,
      kind: item.type,
      tool: resolved.ok ? resolved.tool.name : 'unknown',
      title: shown.title,
      commands: shown.commands,
    });
    const notRun = (reason: string): CallStep => ({ output: notRunOutput(item, reason), interrupted: false });
    if (how.skip) return notRun('not run: the user interrupted the turn');
    if (!resolved.ok) {
      deps.emit({ type: 'tool_error', callId: item.call_id, message: resolved.error });
      return notRun(resolved.error);
    }
    const { tool, call } = resolved;
    const commandTool = call.permission !== undefined && deps.permissions !== undefined;
    // The person's answer, a hook or a snapshot may take long: the previous call's staged
    // `completed` mark goes to disk first, so a kill meanwhile does not lose its output.
    if (deps.hooks?.has('PreToolUse') === true || (tool.writes && this.files.snapshotsFirst)) deps.session.flush();
    if (!commandTool && this.confirms(tool)) {
      const declined = await this.confirmCall(tool, call);
      if (declined !== null) return notRun(declined);
    }
    const allowed = commandTool ? await this.authorizeCall(entry, tool, call) : undefined;
    if (allowed !== undefined && 'refused' in allowed) {
      deps.emit({ type: 'tool_error', callId: item.call_id, message: allowed.refused });
      return notRun(allowed.refused);
    }
    const hookName = hookToolName(tool.name, item);
    if (deps.hooks?.has('PreToolUse') === true) {
      const pre = await deps.hooks.run({ event: 'PreToolUse', toolName: hookName, toolInput: hookToolInput(item), callId: item.call_id }, signal);
      if (pre.blocked !== undefined) {
        // Answered and journaled like any refused call: the model sees the hook's reason.
        const reason = `blocked by a PreToolUse hook: ${pre.blocked}`;
        deps.emit({ type: 'tool_error', callId: item.call_id, message: reason });
        return notRun(reason);
      }
    }
    // Before anything can write: the state the turn's file rollback goes back to.
    if (tool.writes) await this.files.beforeWrite();
    try {
      // The `started` mark must be on disk before the call runs: that is what exactly-once rests on.
      deps.session.update((s) => markToolCall(s, item.call_id, 'started'), { required: true });
    } catch (err) {
      if (!(err instanceof SessionSaveError)) throw err;
      deps.emit({ type: 'save_failed', message: `${err.message}; the call was not run`, blocking: true });
      return notRun(`agentx could not record this call in its journal (${err.message}), so it was not run`);
    }
    const perms = deps.permissions;
    const ctx: ToolContext = {
      cwd: deps.cwd(),
      workspaceRoot: deps.workspaceRoot,
      signal,
      progress: deps.emit,
      retry: how.retry,
      ...(allowed !== undefined ? { scope: allowed.run } : {}),
      ...(perms !== undefined ? { authorize: (request) => perms.authorize({ ...request, callId: item.call_id, tool: tool.name }, this.ask, signal) } : {}),
      approve: (question) => this.approveRemote(item.call_id, question),
    };
    const result = await tool.run(call, ctx);
    // What is journaled and sent: the reply in the output form of the call item it answers.
    const output = outputForCall(item, result.reply);
    this.summaries.push(...result.summary);
    if (deps.hooks?.has('PostToolUse') === true) {
      const response = 'output' in output ? output.output : output;
      await deps.hooks.run({ event: 'PostToolUse', toolName: hookName, toolInput: hookToolInput(item), toolResponse: response, callId: item.call_id }, signal);
    }
    // Journaled whole: the state file points at it in the conversation log (store/journal-outputs.ts);
    // what is sent is capped for the window on the way out (tool-output-caps.ts).
    return { output: output, interrupted: result.interrupted, attachments: result.attachments };
  }

  /**
   * Whether a call that is not a command is confirmed before it runs: every one under
   * `untrusted` (read at each call: /approvals switches the mode mid-session), and this turn's
   * patches when the operation asked for their review (/init). A tool that asks the person
   * itself (a remote MCP approval) is never asked about twice.
   */
  private confirms(tool: Tool): boolean {
    if (tool.asksPerson === true) return false;
    return this.deps.permissions?.mode === 'untrusted' || (this.options.reviewPatches === true && tool.name === 'apply_patch');
  }

  /** The confirmation question (kind `confirm`); null when the answer is yes, else what the model is told. */
  private async confirmCall(tool: Tool, call: ParsedCall): Promise<string | null> {
    const decided = await this.ask(
      {
        kind: 'confirm',
        callId: call.callId,
        tool: tool.name,
        title: call.title,
        commands: call.commands,
        preview: call.preview ?? [],
        escalated: false,
        justification: undefined,
        offerPrefix: undefined,
        reasons: [
          this.deps.permissions?.mode === 'untrusted'
            ? 'approval mode untrusted: each call is confirmed'
            : "this turn's patches are shown before they are written",
        ],
        choices: CONFIRM_CHOICES,
      },
      this.signal,
    );
    const answer = decided.answer;
    if (answer.kind === 'once') return null;
    if (answer.kind === 'tell') return `the user declined to run this call and said what to do instead:\n${answer.text}`;
    return decided.decidedBy === 'policy' && decided.reason !== undefined ? `the call was not run: ${decided.reason}` : 'the user declined to run this call';
  }

  /** A remote MCP server's approval request, asked on the channel (kind `remote_mcp`): yes or no. */
  private async approveRemote(callId: string, q: ApprovalQuestion): Promise<ApprovalDecision> {
    const decided = await this.ask(
      {
        kind: 'remote_mcp',
        callId,
        tool: q.server,
        title: `${q.server}.${q.tool}`,
        commands: [],
        preview: [q.arguments],
        escalated: false,
        justification: undefined,
        offerPrefix: undefined,
        reasons: [`remote MCP server ${q.server} asks before it runs ${q.tool}`],
        remote: q,
        choices: YES_NO_CHOICES,
      },
      this.signal,
    );
    if (decided.answer.kind === 'once') return { approve: true, decidedBy: decided.decidedBy };
    return { approve: false, decidedBy: decided.decidedBy, reason: decided.reason ?? 'the user declined this call' };
  }

  /** Asks through the session's channel (none: nobody can answer, every question is no), the journal on disk first. */
  private readonly ask: AskPerson = (question, signal) => {
    const deps = this.deps;
    const channel = deps.questions ?? new QuestionChannel(deps.emit, undefined);
    // The person may take long: the previous call's staged `completed` mark goes to disk first.
    deps.session.flush();
    return channel.ask(question, signal);
  };

  /**
   * Whether a command call may run, and how: the mode, the rules and, when needed, the person
   * decide (permissions.ts). An approval is journaled with the call before it starts, so a Retry
   * after a crash between the approval and the run reuses it instead of asking twice.
   */
  private async authorizeCall(entry: ToolJournalEntry, tool: Tool, call: ParsedCall): Promise<Authorization> {
    const deps = this.deps;
    const perms = deps.permissions as Permissions;
    const request = call.permission as NonNullable<ParsedCall['permission']>;
    if (entry.approval !== undefined) {
      deps.emit({
        type: 'permission_applied',
        callId: call.callId,
        scope: entry.approval.scope,
        why: `approved before agentx stopped (${entry.approval.by}), from the journal`,
      });
      return { run: entry.approval.scope, why: 'from the journal', decidedBy: 'journal' };
    }
    const decided = await perms.authorize({ ...request, callId: call.callId, tool: tool.name }, this.ask, this.signal);
    if ('refused' in decided) return decided;
    const approval = { scope: decided.run, by: decided.decidedBy };
    // The person's yes is on disk before the call starts; a rule's or the mode's rides with the `started` write.
    if (decided.decidedBy === 'person') deps.session.update((s) => recordApproval(s, call.callId, approval));
    else deps.session.stage((s) => recordApproval(s, call.callId, approval));
    if (decided.decidedBy !== 'person') deps.emit({ type: 'permission_applied', callId: call.callId, scope: decided.run, why: decided.why });
    return decided;
  }

  /**
   * One request with the automatic part of the recovery policy: compaction before it when the
   * context is nearly full and once after an overflow (compaction.ts), bounded retries, new chain.
   */
  private async requestWithRecovery(first: Attempt): Promise<SendResult> {
    const deps = this.deps;
    const signal = this.signal;
    let attempt = first;
    let tries = 1;
    let waitedMs = 0;
    let firstFailureAt: number | undefined;
    for (;;) {
      deps.emit({ type: 'request_start', previousResponseId: attempt.previousResponseId, attempt: tries });
      try {
        // A compaction moves the request to a new chain: a retry after a later failure resends that.
        return await deps.compaction.send(attempt, signal, (next) => {
          attempt = next;
        });
      } catch (err) {
        let failure = signal.aborted ? new ModelError('request cancelled', 'aborted') : classifyFailure(err);
        if (failure.details.partialText) deps.emit({ type: 'response_cut', partialText: failure.details.partialText, reason: failure.message });
        if (failure.kind === 'aborted') throw new TurnInterrupted();
        if (failure.kind === 'chain_broken' && attempt.previousResponseId !== null && this.newChains < MAX_NEW_CHAINS_PER_TURN) {
          // Bounded per turn: a server that keeps losing the chain ends in the menu, never in a loop of paid requests.
          this.newChains++;
          // A server that lost a response it had just returned stores nothing: said once, remembered.
          deps.conversation.chainLost(attempt.previousResponseId);
          deps.emit({ type: 'chain_restarted', reason: failure.message, exact: deps.conversation.canReplay(attempt.previousResponseId) });
          attempt = { ...attempt, replay: true };
          continue;
        }
        if (failure.kind === 'chain_broken' && attempt.previousResponseId !== null) {
          // The bound is spent: say what happened, and how often, instead of the last 400's wording.
          failure = new ModelError(
            `the server lost the conversation ${this.newChains + 1} times in this turn (at most ${MAX_NEW_CHAINS_PER_TURN} new chains a turn)`,
            'chain_broken',
            failure.details,
          );
        }
        // The retry budget covers the waits and the failing attempts since the first failure (a server that hangs till the header timeout).
        firstFailureAt ??= deps.now().getTime();
        const delay = retryDelay(deps.policy, tries, failure, () => deps.random(), Math.max(waitedMs, deps.now().getTime() - firstFailureAt));
        if (delay === null) {
          // A hopeless overflow carries the request as it stands after compacting: that is what the choices resend.
          const failed = failure instanceof ContextHopeless ? failure.attempt : attempt;
          deps.session.update((s) =>
            recordFailure(s, {
              error: failure.message,
              status: failure.details.status,
              code: failure.details.code,
              input: failed.input,
              previousResponseId: failed.previousResponseId,
              userMessage: this.userText,
              now: deps.now(),
              toolSummaries: this.summaries,
            }),
          );
          throw new TurnFailed(failure);
        }
        deps.emit({ type: 'retry', attempt: tries, maxAttempts: deps.policy.maxAttempts, delayMs: delay, reason: failure.message });
        await deps.sleep(delay, signal);
        if (signal.aborted) throw new TurnInterrupted();
        waitedMs += delay;
        tries++;
      }
    }
  }
}

/** The `workspace_changed` event: the paths the turn's tool calls changed (--json). */
async function emitWorkspaceChanged(deps: TurnDeps, span: FileSpan): Promise<void> {
  if (deps.workspace === undefined) return;
  try {
    const diff = await deps.workspace.diffSpans([span]);
    deps.emit({ type: 'workspace_changed', changes: diff.changes.map((c) => ({ status: c.status, path: c.path })) });
  } catch {
    // Only a report: the span is recorded, /diff can still show it.
  }
}

/** The request shape of the next request: the engine's shape and the tools the registry offers now. */
export function requestShape(deps: Pick<TurnDeps, 'shape' | 'registry'>): RequestShape {
  return { ...deps.shape, tools: deps.registry.definitions() };
}

/** Streams one request, its deltas as events, and returns the completed response. */
export async function streamResponse(
  deps: Pick<TurnDeps, 'client' | 'emit' | 'registry' | 'workspaceRoot' | 'now'>,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<CompletedResponse> {
  let streamed = false;
  const hosted = new HostedItems(deps);
  for await (const ev of deps.client.stream(request, signal)) {
    if (ev.type === 'hosted_item') hosted.onItem(ev.item, ev.phase);
    else if (ev.type === 'text_delta') {
      streamed = true;
      deps.emit({ type: 'text_delta', delta: ev.delta });
    } else if (ev.type === 'reasoning_delta') deps.emit({ type: 'reasoning_delta', delta: ev.delta });
    else if (ev.type === 'reasoning_done') deps.emit({ type: 'reasoning_done' });
    else {
      // A server that sends no text deltas (some proxies and compatible servers only fill in the
      // completed response) still gets its answer shown: renderers and --json read the deltas.
      if (!streamed && ev.response.text !== '') deps.emit({ type: 'text_delta', delta: ev.response.text });
      hosted.finish(ev.response);
      return ev.response;
    }
  }
  throw new ModelError('the stream ended before the response completed', 'retryable');
}
