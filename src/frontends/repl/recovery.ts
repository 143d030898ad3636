// The two recovery menus: tool calls left by a session that died mid-turn (SPEC §3.5), and a
// request that failed after the automatic retries (SPEC §3.6). Each menu only chooses an engine
// operation; exactly-once and the session policy live in the engine.
import type { PendingChoice } from '../../engine/engine.ts';
import { hopelessOptions } from '../../engine/compaction.ts';
import { needsPendingDecision } from '../../engine/journal.ts';
import { CONTEXT_LENGTH_EXCEEDED } from '../../model/errors.ts';
import { isEmptyConversation, preview, type ToolJournalEntry } from '../../store/state.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { selectFromMenu, type MenuItem } from '../../ui/menu.ts';
import { say, type ReplContext } from './context.ts';
import { rollbackCommand } from './rollback.ts';
import { archiveCurrent } from './resume-command.ts';
import type { TurnOutcome, TurnRunner } from './turns.ts';

function callTitle(ctx: ReplContext, c: ToolJournalEntry): string {
  const resolved = ctx.engine.resolvePendingCall(c);
  return resolved.ok ? resolved.call.title || '(no command)' : resolved.title;
}

/** "New session": the old state is kept in a backup file and the archive (/resume), then everything starts fresh. */
export async function startNewSession(ctx: ReplContext): Promise<void> {
  const backup = ctx.session.backup();
  if (!(await archiveCurrent(ctx))) return;
  resetSession(ctx);
  say(ctx, ctx.theme.green(`✓ new session started${backup ? `; the previous state is saved in ${backup}` : ''}`));
}

function resetSession(ctx: ReplContext): void {
  ctx.engine.clear();
  ctx.session.withdrawCheckpoint();
  ctx.costs.reset();
  // A fresh conversation knows only the instructions' directory, where agentx started.
  ctx.announcedCwd = ctx.session.dir;
}

/**
 * /clear asks first (the conversation leaves the screen and the chain; /resume finds it again
 * among the last 50). An empty conversation has nothing to ask about.
 */
export async function clearCommand(ctx: ReplContext): Promise<void> {
  const s = ctx.session.state;
  const t = ctx.theme;
  // The archive's definition: a failed first request, calls left by a dead session or a
  // compaction are worth clearing (and keeping for /resume) even before a turn has completed.
  if (isEmptyConversation(s)) {
    say(ctx, 'Nothing to clear: the conversation is empty.');
    return;
  }
  ctx.out.write(
    `${t.yellow('?')} Clear the conversation (${s.usage.turns} turn${s.usage.turns === 1 ? '' : 's'})? /resume brings it back later. [y]es / [n]o: `,
  );
  const answer = await ctx.term.askKey(['y', 'n']);
  ctx.out.write(`${answer === 'y' ? 'yes' : 'no'}\n`);
  if (answer === 'y') await clearSession(ctx);
  else say(ctx, t.dim('Kept the conversation.'));
}

/** A fresh conversation; `/rollback undo` brings the old one back. */
export async function clearSession(ctx: ReplContext): Promise<void> {
  // Kept among the earlier conversations first (/resume): if that fails, nothing is cleared.
  if (!(await archiveCurrent(ctx))) return;
  resetSession(ctx);
  say(ctx, ctx.theme.green('✓ cleared: a fresh conversation starts with your next message (/resume or /rollback undo brings the old one back)'));
}

const PENDING_CHOICES: { label: string; choice: PendingChoice | 'new-session'; confirm?: string }[] = [
  { label: 'Continue — tell the model these calls were interrupted; it decides what to do', choice: 'skip' },
  { label: 'Continue, ask first — same, and the model must ask you before running them again', choice: 'skip-ask-first' },
  { label: 'Retry — run the calls that did not complete, then continue the turn', choice: 'run' },
  {
    label: 'New session — back the state up, clear it, start fresh (/resume brings it back)',
    choice: 'new-session',
    confirm: 'Start a new session? These calls are left as they are (kept in a backup file, and for /resume).',
  },
];

/** The pending-call menu's first line: the interrupted turn's message, sanitized (the model may have echoed anything into it). */
export function pendingHeaderText(lastUserMessage: string | null | undefined): string {
  return `The previous session stopped in the middle of a turn ("${sanitizeLine(preview(lastUserMessage ?? ''))}"). Its tool calls:`;
}

/** One call's line in that list: its command, which the model wrote, sanitized. */
export function pendingCallText(title: string): string {
  return `$ ${sanitizeLine(title)}`;
}

/** At start: the tool calls of a turn that never finished. Returns what the continuation did, if any. */
export async function resolvePendingCalls(ctx: ReplContext, runner: TurnRunner): Promise<TurnOutcome | undefined> {
  const state = ctx.session.state;
  if (!needsPendingDecision(state)) return undefined;
  const t = ctx.theme;
  say(ctx, t.yellow(pendingHeaderText(state.last_user_message)));
  const warnings = new Set<string>();
  for (const c of state.pending_tool_calls) {
    const status =
      c.status === 'completed'
        ? t.green('completed (its output will be sent, not re-run)')
        : c.status === 'started'
          ? t.red('started, did not finish')
          : t.dim('never started');
    say(ctx, `  ${t.cyan(pendingCallText(callTitle(ctx, c)))}  ${status}`);
    const resolved = ctx.engine.resolvePendingCall(c);
    if (c.status !== 'completed' && resolved.ok && resolved.tool.retryWarning) warnings.add(resolved.tool.retryWarning);
  }
  for (const w of warnings) say(ctx, t.yellow(`  ${w}`));
  const index = await selectFromMenu(
    { out: ctx.out, keys: ctx.term, theme: t },
    {
      title: 'How do you want to go on?',
      items: PENDING_CHOICES.map((c) => (c.confirm ? { label: c.label, confirm: c.confirm } : c.label)),
    },
  );
  const picked = index === null ? undefined : PENDING_CHOICES[index];
  if (picked === undefined) {
    say(ctx, t.dim('Left as it is: your next message tells the model these calls did not finish.'));
    return undefined;
  }
  if (picked.choice === 'new-session') {
    await startNewSession(ctx);
    return undefined;
  }
  const choice = picked.choice;
  return runner.run((signal) => ctx.engine.resumePendingCalls(choice, signal));
}

type FailedChoice = 'retry' | 'trim' | 'new_chain' | 'rollback' | 'clear' | 'cancel';

const CANCEL = { item: 'Cancel — keep it for later (↑ recalls your message; the next start offers this again)', choice: 'cancel' } as const;

/**
 * What can help after a failure. A request that does not fit the context window (even after the
 * automatic compaction) is never offered a plain retry, which would fail the same way.
 */
function failedChoices(state: ReplContext['session']['state']): { item: string | MenuItem; choice: FailedChoice }[] {
  const pending = state.pending_transaction;
  if (state.failed_response?.code === CONTEXT_LENGTH_EXCEEDED && pending !== null) {
    return [
      ...(hopelessOptions(pending.input).includes('trim_tool_output')
        ? [{ item: 'Trim — cut the tool outputs of this request to a short head and tail, then send it again', choice: 'trim' as const }]
        : []),
      { item: 'New chain — continue on a new chain from a summary of the local record', choice: 'new_chain' },
      { item: 'Rollback — go back to an earlier checkpoint (your message stays in ↑ history)', choice: 'rollback' },
      CANCEL,
    ];
  }
  return [
    { item: 'Retry — send the same request again (no command is re-run)', choice: 'retry' },
    { item: 'New chain — start a new server-side chain from the local context', choice: 'new_chain' },
    { item: 'Rollback — go back to an earlier checkpoint', choice: 'rollback' },
    { item: { label: 'Clear — start a fresh session', confirm: 'Clear the session? (/rollback undo brings it back)' }, choice: 'clear' },
    CANCEL,
  ];
}

/** After a failed request (now, or found at start): Retry / New chain / Rollback / Clear / Cancel. */
export async function recoverFailedRequest(ctx: ReplContext, runner: TurnRunner, justFailed: boolean): Promise<void> {
  const t = ctx.theme;
  for (let shown = justFailed; ; shown = true) {
    const state = ctx.session.state;
    const pending = state.pending_transaction;
    if (pending === null) return;
    const failed = state.failed_response;
    // Right after a failure the error is already on screen; at start it is news.
    const what = shown ? '' : `The last request failed${failed ? ` (${sanitizeLine(failed.error)})` : ''}. `;
    const kept = pending.user_message ? `Your message is kept: "${sanitizeLine(preview(pending.user_message))}"` : '';
    if (what || kept) say(ctx, t.yellow(`${what}${kept}`));
    const choices = failedChoices(state);
    const index = await selectFromMenu(
      { out: ctx.out, keys: ctx.term, theme: t },
      {
        title: failed?.code === CONTEXT_LENGTH_EXCEEDED ? 'It does not fit in the context window. What now?' : 'What now?',
        items: choices.map((c) => c.item),
      },
    );
    const choice = index === null ? 'cancel' : (choices[index]?.choice ?? 'cancel');
    let outcome: TurnOutcome;
    switch (choice) {
      case 'retry':
        outcome = await runner.run((signal) => ctx.engine.retryFailed(signal));
        break;
      case 'trim':
        outcome = await runner.run((signal) => ctx.engine.retryTrimmed(signal));
        break;
      case 'new_chain':
        outcome = await runner.run((signal) => ctx.engine.newChain(signal));
        break;
      case 'rollback':
        await rollbackCommand(ctx, '');
        return;
      case 'clear':
        await clearSession(ctx);
        return;
      case 'cancel':
        say(ctx, t.dim('Kept for later.'));
        return;
    }
    if (outcome.kind !== 'failed') return;
  }
}
