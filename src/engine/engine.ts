// The engine: the operations every front-end calls (docs/ARCHITECTURE.md). It owns session
// policy — what a new message carries, how a failed request is retried or moved to a new chain,
// what happens to tool calls a dead session left, rollback and clear. Front-ends choose an
// operation and render its events; they never change the session themselves.
//
// Built once per session: its collaborators (client, tools, instructions, hooks…) are private and
// change only through methods (setModel, setHooks, reconfigure); each operation makes a `Turn`
// (turn.ts) that owns its per-turn values; every question to the person goes through the one
// question channel (questions.ts).
import {
  addCliTranscript,
  clearConversation,
  fileSpansAfter,
  filesOnlyBackup,
  lastTurnSpan,
  preview,
  recordInterruption,
  rollbackTo,
  undoRollback,
  type CliTranscriptEntry,
  type CompactionMechanism,
  type FileSpan,
  type SessionState,
  type ToolJournalEntry,
} from '../store/state.ts';
import type { Resolution } from '../tools/registry.ts';
import { ModelError } from '../model/errors.ts';
import type { DiffResult, RestorePlan, RestoreResult } from '../workspace/index.ts';
import type { InputItem, LocalImagePart } from '../wire/items.ts';
import { developerMessage, userMessage } from '../wire/items.ts';
import { restoredFilesMessage } from '../workspace/notices.ts';
import { chainStart } from './compaction-seed.ts';
import { EnvironmentAnnouncer, environmentText } from './environment.ts';
import { seedCarries } from './compaction-seed.ts';
import type { ContextWindow } from './context.ts';
import { finishInterruptedRollback, journaledRollback, type RollbackScope, type RollbackStep } from './rollback.ts';
import { callItemOf, leftoverOutputs, markToolCall, unfinishedCallOutput } from './journal.ts';
import { formatCliTranscript, newChainBudgetChars, newChainInput } from './new-chain.ts';
import { trimToolOutputs } from './tool-output-caps.ts';
import type { Attempt } from './conversation.ts';
import { Turn, TurnFailed, TurnInterrupted, type TurnDeps, type TurnOptions, type TurnResult } from './turn.ts';

export type { TurnOptions } from './turn.ts';

export type TurnOutcome =
  | { kind: 'done'; result: TurnResult }
  /** A UserPromptSubmit hook refused the message (`reason`: its stderr); nothing was sent. */
  | { kind: 'blocked'; reason: string }
  | { kind: 'interrupted' }
  | { kind: 'failed'; failure: TurnFailed };

export type CompactOutcome =
  | { kind: 'compacted'; mechanism: CompactionMechanism; tokensBefore: number; tokensAfter: number }
  | { kind: 'not_compacted'; reason: string }
  | { kind: 'interrupted' };

/**
 * What to do with tool calls a dead session left unfinished:
 * run — run the calls that did not complete, then continue the turn;
 * skip — tell the model they were interrupted; it decides what to do;
 * skip-ask-first — same, and the model must ask before running them again.
 */
export type PendingChoice = 'run' | 'skip' | 'skip-ask-first';

export function interruptionNote(state: SessionState): string {
  const it = state.interrupted_turn;
  if (!it) return '';
  return (
    `Note: the user interrupted your previous turn (their message: "${preview(it.user_message)}") before it finished. ` +
    'Whatever it was doing may be incomplete; do not redo or continue it unless the user asks.'
  );
}

export type { RollbackScope, RollbackStep } from './rollback.ts';

/** A rollback's file plan, computed before anything is written (the REPL shows it and asks). */
export interface FilesPlan {
  plan: RestorePlan;
  /** Whether there is anything to show or ask about (actions or skipped files). */
  relevant: boolean;
}

export class Engine {
  /** Developer messages for the next request only (after a file restore: which files changed under the model). */
  private nextDeveloperNotes: string[] = [];
  /** What the model was last told about its environment (environment.ts). */
  private readonly environment = new EnvironmentAnnouncer();
  constructor(private deps: TurnDeps) {}

  /**
   * New collaborators from a new configuration (/setup, plan mode on or off, MCP tools joining):
   * client, model, tools, instructions, sandbox. What belongs to the session stays: its hooks,
   * its snapshots, the notes waiting for the next message, what the model was told of its
   * environment. Takes `next` as it is (its compaction and conversation read it), so the caller
   * hands it over and keeps no reference.
   */
  reconfigure(next: TurnDeps): void {
    next.hooks = this.deps.hooks;
    next.workspace ??= this.deps.workspace;
    this.deps = next;
  }

  get state(): SessionState {
    return this.deps.session.state;
  }

  /** The model and reasoning settings the next request uses (front-ends read it, never write deps). */
  get shape(): TurnDeps['shape'] {
    return this.deps.shape;
  }

  /** `/model`, or keeping the model across a session switch: the next request uses `shape`. */
  setModel(shape: TurnDeps['shape']): void {
    this.deps.shape = shape;
  }

  /** The session's hooks (they change when the REPL switches session or directory). */
  get hooks(): TurnDeps['hooks'] {
    return this.deps.hooks;
  }

  setHooks(hooks: TurnDeps['hooks']): void {
    this.deps.hooks = hooks;
  }

  /** What a call a dead session left would run (its title, its retry warning) with the tools offered now. */
  resolvePendingCall(entry: ToolJournalEntry): Resolution {
    return this.deps.registry.resolve(callItemOf(entry));
  }

  /**
   * A new user message. `notes` are front-end facts for the model (e.g. the person changed
   * directory); `images` are attached after the text (path + hash; read when sent); `options`
   * shape this turn only (/init reviews its patches).
   */
  async message(
    text: string,
    notes: readonly string[],
    signal: AbortSignal,
    images: readonly LocalImagePart[] = [],
    options: TurnOptions = {},
  ): Promise<TurnOutcome> {
    const hooks = this.deps.hooks;
    const hooked = hooks?.has('UserPromptSubmit') === true ? await hooks.run({ event: 'UserPromptSubmit', prompt: text }, signal) : undefined;
    if (hooked?.blocked !== undefined) return { kind: 'blocked', reason: hooked.blocked };
    const state = this.state;
    const context = [interruptionNote(state), formatCliTranscript(state.pending_cli_transcript), ...notes, ...(hooked?.context ?? [])].filter(
      (p) => p.length > 0,
    );
    const environment = this.environmentNote();
    const developerNotes = [...(environment === null ? [] : [environment]), ...this.nextDeveloperNotes];
    const input: InputItem[] = [...leftoverOutputs(state), ...developerNotes.map(developerMessage), userMessage(context, text, images)];
    this.nextDeveloperNotes = [];
    // Right after a compaction the chain has no response yet: the message follows its seed.
    return this.run(text, chainStart(state, input), signal, options);
  }

  /**
   * The environment context for the next message, or null when the model already has it: sent
   * at a chain's start (first message, after /clear or a compaction) and whenever a fact changed.
   */
  private environmentNote(): string | null {
    const facts = this.deps.environment?.();
    if (facts === undefined) return null;
    const state = this.state;
    const text = environmentText(facts);
    // A compaction's seed carries the environment it was made with (compaction-seed.ts): the model has that one.
    const carried = state.compaction !== null && seedCarries(state.compaction.seed, text);
    return this.environment.take(text, state.compaction?.at ?? null, state.response_id === null, carried);
  }

  /** A developer note for the next message only (what SessionStart hooks printed). */
  noteForNextMessage(text: string): void {
    this.nextDeveloperNotes.push(text);
  }

  /** Resends exactly the request that failed (no command is re-run). */
  retryFailed(signal: AbortSignal): Promise<TurnOutcome> {
    const pending = this.requirePendingTransaction();
    return this.run(pending.user_message ?? '', { input: pending.input, previousResponseId: pending.previous_response_id }, signal, {}, pending.tool_summaries);
  }

  /** Sends the failed request on a new server-side chain seeded with the local context (as much as the window allows). */
  newChain(signal: AbortSignal): Promise<TurnOutcome> {
    const pending = this.requirePendingTransaction();
    const input = newChainInput(this.state, pending.input, newChainBudgetChars(this.deps.compaction.window()));
    return this.run(pending.user_message ?? '', { input, previousResponseId: null }, signal, {}, pending.tool_summaries);
  }

  /** After an overflow: resends the failed request with its tool outputs cut to a short head and tail. */
  retryTrimmed(signal: AbortSignal): Promise<TurnOutcome> {
    const pending = this.requirePendingTransaction();
    const input = trimToolOutputs(pending.input, this.deps.compaction.window());
    return this.run(pending.user_message ?? '', { input, previousResponseId: pending.previous_response_id }, signal, {}, pending.tool_summaries);
  }

  /** /compact: compacts the conversation now (the next message starts from the compacted chain). */
  async compact(signal: AbortSignal): Promise<CompactOutcome> {
    const state = this.state;
    if (state.response_id === null) {
      return { kind: 'not_compacted', reason: state.compaction !== null ? 'the conversation is already compacted' : 'there is no conversation to compact yet' };
    }
    try {
      const result = await this.deps.compaction.compactNow({ input: leftoverOutputs(state), previousResponseId: state.response_id }, signal);
      if (!result.ok) return { kind: 'not_compacted', reason: result.reason };
      // The driver recorded it (withCompaction) before returning.
      const done = this.state.compaction;
      return { kind: 'compacted', mechanism: result.mechanism, tokensBefore: done?.tokens_before ?? 0, tokensAfter: done?.tokens_after ?? 0 };
    } catch (err) {
      if (signal.aborted || (err instanceof ModelError && err.kind === 'aborted')) return { kind: 'interrupted' };
      throw err;
    }
  }

  /** The context window in force for the current model (the usage line, /usage). */
  contextWindow(): ContextWindow {
    return this.deps.compaction.window();
  }

  /** Settles the tool calls of a turn that never finished, then continues that turn. */
  resumePendingCalls(choice: PendingChoice, signal: AbortSignal): Promise<TurnOutcome> {
    const userText = this.state.last_user_message ?? '';
    if (choice === 'run') {
      // One Turn runs the calls and continues: the re-run calls' transcript lines and files belong to the turn they finish.
      const turn = new Turn(this.deps, userText, signal);
      return this.guard(turn, () => turn.resume());
    }
    for (const c of this.state.pending_tool_calls) {
      if (c.status === 'completed') continue;
      const output = unfinishedCallOutput(c, choice === 'skip-ask-first');
      this.deps.session.update((s) => markToolCall(s, c.call_id, 'completed', output));
    }
    return this.run(userText, { input: leftoverOutputs(this.state), previousResponseId: this.state.response_id }, signal);
  }

  /** Which files a rollback to checkpoint `index` would restore (nothing is written). */
  planRollbackFiles(index: number): Promise<FilesPlan> {
    return this.planFiles(fileSpansAfter(this.state, index));
  }

  /** Which files `/rollback undo` would restore: the span the rollback's file restore left. */
  planUndoFiles(): Promise<FilesPlan> {
    const undo = this.state.rollback_backup?.files_undo;
    return this.planFiles(undo ? [undo] : []);
  }

  /**
   * Restores checkpoint `index` (1 = newest): the conversation, its files (the plan from
   * planRollbackFiles), or both; publishes the checkpoint for one-shots. Returns what the file
   * restore did (null when files were not restored). With files, the conversation change is
   * journaled with the restore (rollback.ts): a kill -9 half-way is finished at the next start.
   */
  async rollback(index: number, scope: RollbackScope = 'conversation', files?: RestorePlan): Promise<RestoreResult | null> {
    if (scope === 'conversation' || !this.restoresFiles(files)) {
      if (scope === 'files') {
        this.deps.session.update((s) => filesOnlyBackup(s, null));
        return null;
      }
      this.deps.session.update((s) => rollbackTo(s, index));
      this.afterConversationChange();
      return null;
    }
    return this.restoreJournaled({ op: 'rollback', index, scope }, files);
  }

  /** Reverts the latest rollback (or /clear), and its file restore when `files` (from planUndoFiles) is given. */
  async rollbackUndo(files?: RestorePlan): Promise<RestoreResult | null> {
    if (!this.restoresFiles(files)) {
      this.deps.session.update(undoRollback);
      this.afterConversationChange();
      return null;
    }
    return this.restoreJournaled({ op: 'undo' }, files);
  }

  /**
   * Finishes a rollback a killed session left half done (its files and then its conversation
   * change); call at start, before anything else uses the session. Null when there was none.
   */
  async finishInterruptedRollback(): Promise<{ step: RollbackStep; result: RestoreResult } | null> {
    const finished = await finishInterruptedRollback({ session: this.deps.session, workspace: this.deps.workspace });
    if (finished !== null) this.afterRestore(finished.step, finished.result);
    return finished;
  }

  private restoresFiles(plan: RestorePlan | undefined): plan is RestorePlan {
    return this.deps.workspace !== undefined && plan !== undefined && (plan.actions.length > 0 || plan.skipped.length > 0);
  }

  private async restoreJournaled(step: RollbackStep, plan: RestorePlan): Promise<RestoreResult> {
    const result = await journaledRollback({ session: this.deps.session, workspace: this.deps.workspace }, step, plan);
    this.afterRestore(step, result);
    return result;
  }

  private afterRestore(step: RollbackStep, result: RestoreResult): void {
    const note = restoredFilesMessage(result);
    if (note !== null) this.nextDeveloperNotes = [note];
    if (step.op === 'undo' || step.scope === 'both') this.afterConversationChange();
  }

  /** The model must be told its environment again, and one-shots see the new checkpoint. */
  private afterConversationChange(): void {
    this.environment.forget();
    this.deps.session.publishCheckpoint('rollback');
  }

  /** What the session's tool calls changed: in the last turn, or after checkpoint `index`. */
  async diffFiles(index?: number): Promise<DiffResult | null> {
    const ws = this.deps.workspace;
    if (ws === undefined) return null;
    const last = lastTurnSpan(this.state);
    const spans = index === undefined ? (last ? [last] : []) : fileSpansAfter(this.state, index);
    return spans.length === 0 ? { changes: [], summary: [], text: '' } : ws.diffSpans(spans);
  }

  /**
   * The files the conversation's tool calls changed, over every checkpoint it still has (paths,
   * sorted), or undefined without file snapshots: what the archive lists next to it (/resume).
   */
  async conversationFileChanges(): Promise<string[] | undefined> {
    const ws = this.deps.workspace;
    if (ws === undefined) return undefined;
    const spans = this.state.history.flatMap((h) => (h.files ? [h.files] : []));
    if (this.state.pending_files !== null) spans.push(this.state.pending_files);
    if (spans.length === 0) return [];
    const diff = await ws.diffSpans(spans);
    return diff.changes.map((c) => c.path).sort();
  }

  private async planFiles(spans: FileSpan[]): Promise<FilesPlan> {
    const ws = this.deps.workspace;
    const empty: RestorePlan = { workspace: '', startSnapshot: '', actions: [], skipped: [] };
    if (ws === undefined || spans.length === 0) return { plan: empty, relevant: false };
    const plan = await ws.planRestore(spans);
    return { plan, relevant: plan.actions.length > 0 || plan.skipped.length > 0 };
  }

  /** A fresh conversation; the old one stays restorable with rollbackUndo. */
  clear(): void {
    this.deps.session.update(clearConversation);
  }

  /** An earlier conversation (kept by the front-end) becomes the session again, its journal whole. */
  resumeConversation(state: SessionState): void {
    this.deps.session.update(() => ({ ...state, rollback_backup: null }));
  }

  /** A local `!command` the person ran: sent as context with the next message. */
  recordLocalCommand(entry: CliTranscriptEntry): void {
    this.deps.session.update((s) => addCliTranscript(s, entry));
  }

  private requirePendingTransaction(): NonNullable<SessionState['pending_transaction']> {
    const pending = this.state.pending_transaction;
    if (pending === null) throw new Error('there is no failed request to retry');
    return pending;
  }

  /** `earlier`: the lines of the failed turn this operation finishes (retryFailed, newChain, retryTrimmed: its pending_transaction's). */
  private run(userText: string, attempt: Attempt, signal: AbortSignal, options: TurnOptions = {}, earlier: readonly string[] = []): Promise<TurnOutcome> {
    const turn = new Turn(this.deps, userText, signal, options, earlier);
    return this.guard(turn, () => turn.run(attempt));
  }

  /**
   * Turn exceptions become outcomes; an interrupted turn is recorded so the next request tells the
   * model. A failed turn's call lines are in its pending_transaction (recordFailure), not here.
   */
  private async guard(turn: Turn, body: () => Promise<TurnResult>): Promise<TurnOutcome> {
    try {
      return { kind: 'done', result: await body() };
    } catch (err) {
      if (err instanceof TurnFailed) return { kind: 'failed', failure: err };
      if (err instanceof TurnInterrupted) {
        this.deps.session.update((s) => recordInterruption(s, { userMessage: turn.userText, now: this.deps.now() }));
        return { kind: 'interrupted' };
      }
      throw err;
    }
  }
}
