// /rollback (SPEC §3.7): pick a checkpoint (newest first, 1 = newest), restore it, publish the
// checkpoint, and — when files changed since — ask whether to restore the conversation, the files
// or both (the engine does it; this only chooses). `/rollback undo` reverts it, files too.
import type { FilesPlan, RollbackScope } from '../../engine/engine.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import type { HistoryEntry } from '../../store/state.ts';
import type { RestoreResult } from '../../workspace/index.ts';
import { selectFromMenu } from '../../ui/menu.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';
import { archiveCurrent, dropArchivedCopyOfCurrent, lastMessageLabel } from './resume-command.ts';

function localTime(iso: string, now: Date): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '??:??:??';
  const pad = (n: number): string => String(n).padStart(2, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** `12.3k`: context sizes are read at a glance, not to the token. */
function shortTokens(n: number): string {
  return n < 1000 ? String(n) : n < 100_000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}

/**
 * One checkpoint in the menu: when, what was asked and answered, and how large the context is
 * that the next request would start from there (not the session's billed totals, which only grow).
 */
export function checkpointLabel(h: HistoryEntry, now: Date): string {
  const context = h.context_tokens === undefined ? '' : `  (context ${shortTokens(h.context_tokens)} tokens)`;
  return `${localTime(h.timestamp, now)}  "${sanitizeLine(h.user_preview)}" → "${sanitizeLine(h.assistant_preview)}"${context}`;
}

const SIDE_EFFECTS = 'Shell commands and other side effects since then are NOT undone (files they changed stay changed).';

const SCOPES: { label: string; scope: RollbackScope }[] = [
  { label: 'Conversation and files', scope: 'both' },
  { label: 'Conversation only', scope: 'conversation' },
  { label: 'Files only', scope: 'files' },
];

function announce(ctx: ReplContext, what: string, filesRestored: boolean): void {
  const s = ctx.session.state;
  say(
    ctx,
    ctx.theme.green(
      `✓ ${what}: ${s.usage.turns} turn${s.usage.turns === 1 ? '' : 's'}, context ${shortTokens(s.context_tokens)} tokens, ${lastMessageLabel(s.last_user_message)}`,
    ),
  );
  if (!filesRestored) say(ctx, ctx.theme.yellow(SIDE_EFFECTS));
}

/** The M/A/D preview of a file plan, before anything is written. */
async function showPlan(ctx: ReplContext, plan: FilesPlan): Promise<void> {
  const { formatPlan } = await import('../../workspace/index.ts');
  say(ctx, ctx.theme.bold('Files changed since then:'));
  for (const line of formatPlan(plan.plan)) say(ctx, `  ${sanitizeLine(line)}`);
}

/** What to restore; 'conversation' without asking when no file changed. Null: cancelled. */
async function chooseScope(ctx: ReplContext, plan: FilesPlan): Promise<RollbackScope | null> {
  if (!plan.relevant) return 'conversation';
  await showPlan(ctx, plan);
  const choice = await selectFromMenu(
    { out: ctx.out, keys: ctx.term, theme: ctx.theme },
    { title: 'Restore what?', items: SCOPES.map((s) => s.label), initial: 0 },
  );
  return choice === null ? null : (SCOPES[choice]?.scope ?? null);
}

async function reportRestore(ctx: ReplContext, result: RestoreResult | null): Promise<boolean> {
  if (result === null) return false;
  const { restoreSummary } = await import('../../workspace/index.ts');
  const [head, ...rest] = restoreSummary(result);
  say(ctx, ctx.theme.green(`✓ files: ${head ?? ''}`));
  for (const line of rest) say(ctx, ctx.theme.yellow(`  ${sanitizeLine(line)}`));
  return true;
}

/** A plan, or null after saying why there is none (the store failed: the conversation can still go back). */
async function planOrNull(ctx: ReplContext, planning: Promise<FilesPlan>): Promise<FilesPlan | null> {
  try {
    return await planning;
  } catch (err) {
    say(ctx, ctx.theme.yellow(`⚠ cannot plan the file restore: ${sanitizeLine(errorMessage(err))}; only the conversation can be rolled back`));
    return null;
  }
}

async function undo(ctx: ReplContext): Promise<void> {
  if (ctx.session.state.rollback_backup === null) {
    say(ctx, 'Nothing to undo: no rollback has been made.');
    return;
  }
  const plan = await planOrNull(ctx, ctx.engine.planUndoFiles());
  if (plan?.relevant) await showPlan(ctx, plan);
  const result = await ctx.engine.rollbackUndo(plan?.relevant ? plan.plan : undefined);
  ctx.costs.undoRollback();
  dropArchivedCopyOfCurrent(ctx);
  announce(ctx, 'Undid the rollback', await reportRestore(ctx, result));
}

/**
 * At start: a /rollback (or its undo) that a killed agentx left half done is finished — its files,
 * then its conversation change — and said, before anything else uses the session.
 */
export async function finishLeftRollback(ctx: ReplContext): Promise<void> {
  let finished;
  try {
    finished = await ctx.engine.finishInterruptedRollback();
  } catch (err) {
    say(ctx, ctx.theme.yellow(`⚠ could not finish the interrupted rollback: ${sanitizeLine(errorMessage(err))}`));
    return;
  }
  if (finished === null) return;
  const what =
    finished.step.op === 'undo'
      ? 'Finished the interrupted /rollback undo'
      : `Finished the interrupted /rollback to checkpoint ${finished.step.index}${finished.step.scope === 'files' ? ' (files only)' : ''}`;
  const filesRestored = await reportRestore(ctx, finished.result);
  if (finished.step.op === 'rollback' && finished.step.scope === 'files') say(ctx, ctx.theme.green(`✓ ${what}`));
  else announce(ctx, what, filesRestored);
}

export async function rollbackCommand(ctx: ReplContext, arg: string): Promise<void> {
  const t = ctx.theme;
  if (arg === 'undo') return undo(ctx);
  const history = ctx.session.state.history;
  if (history.length === 0) {
    say(ctx, 'No checkpoints yet: a checkpoint is made after each completed turn.');
    return;
  }
  const now = new Date();
  let index: number | null;
  if (/^\d+$/.test(arg)) {
    index = Number(arg);
    if (index < 1 || index > history.length) {
      say(ctx, t.red(`No checkpoint ${arg}: choose 1-${history.length}.`));
      return;
    }
  } else if (arg === '') {
    const newestFirst = [...history].reverse();
    const choice = await selectFromMenu(
      { out: ctx.out, keys: ctx.term, theme: t },
      { title: 'Roll back to which checkpoint? (newest first)', items: newestFirst.map((h) => checkpointLabel(h, now)), initial: 0 },
    );
    if (choice === null) return;
    index = choice + 1;
  } else {
    say(ctx, t.red('usage: /rollback [N | undo]'));
    return;
  }
  const plan = await planOrNull(ctx, ctx.engine.planRollbackFiles(index));
  const scope = plan === null ? 'conversation' : await chooseScope(ctx, plan);
  if (scope === null) return;
  const position = history.length - index;
  const target = history[position];
  // The branch being left is kept among the earlier conversations (/resume), not only in the one
  // rollback backup the next rollback replaces. If it cannot be kept, nothing is rolled back.
  if (scope !== 'files' && !(await archiveCurrent(ctx))) return;
  const result = await ctx.engine.rollback(index, scope, plan?.plan);
  const filesRestored = await reportRestore(ctx, result);
  if (scope === 'files') {
    say(ctx, t.dim('The conversation is unchanged; /rollback undo puts the files back.'));
    return;
  }
  ctx.costs.rollback(target?.usage.turns ?? 0);
  announce(ctx, `Rolled back to checkpoint ${index} (${target ? localTime(target.timestamp, now) : '?'})`, filesRestored);
  say(ctx, t.dim('/rollback undo restores the state before this rollback (/resume finds it later too).'));
}
