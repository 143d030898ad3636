// The two recovery menus: tool calls left by a session that died mid-turn (SPEC §3.5), and a
// request that failed after the automatic retries (SPEC §3.6). Exactly-once throughout: a call
// journaled `completed` is never run again; its recorded output is what the model receives.
import { newChainInput } from '../../agent/new-chain.ts';
import { unfinishedCallOutput } from '../../agent/tool-calls.ts';
import { continueTurn, executeCalls, leftoverOutputs } from '../../agent/turn.ts';
import { markToolCall, preview, type ToolJournalEntry } from '../../session/state.ts';
import { commandsInline } from '../../ui/command-view.ts';
import { selectFromMenu } from '../../ui/menu.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';
import { rollbackCommand } from './rollback.ts';
import type { TurnOutcome, TurnRunner } from './turns.ts';

function callCommand(c: ToolJournalEntry): string {
  if (c.type === 'shell_call') return (c.action?.commands ?? []).join(' && ') || '(no command)';
  return `${c.name ?? 'function'}(${(c.arguments ?? '').slice(0, 120)})`;
}

/** Answers every unfinished call with a "did not finish" output, so nothing is re-run. */
function settleUnfinished(ctx: ReplContext, askFirst: boolean): void {
  for (const c of ctx.session.state.pending_tool_calls) {
    if (c.status === 'completed') continue;
    const output = unfinishedCallOutput(c, askFirst);
    ctx.session.update((s) => markToolCall(s, c.call_id, 'completed', output));
  }
}

/** Files and memory of the session gone; returns the removed file names. */
function resetSession(ctx: ReplContext): string[] {
  const removed = ctx.session.clear();
  ctx.costs.reset();
  // A fresh conversation knows only the instructions' directory, where agentx started.
  ctx.announcedCwd = ctx.session.dir;
  return removed;
}

/** "New session": the old state is kept in a backup file, then everything starts fresh. */
export function startNewSession(ctx: ReplContext): void {
  const backup = ctx.session.backup();
  resetSession(ctx);
  say(ctx, ctx.theme.green(`✓ new session started${backup ? `; the previous state is saved in ${backup}` : ''}`));
}

/** /clear: state and checkpoint files removed, nothing of the old session kept in memory. */
export function clearSession(ctx: ReplContext): void {
  const removed = resetSession(ctx);
  const files = removed.length > 0 ? ` (removed ${removed.join(', ')})` : '';
  say(ctx, ctx.theme.green(`✓ cleared${files}: a fresh conversation starts with your next message`));
}

/** At start: the tool calls of a turn that never finished. Returns what the continuation did, if any. */
export async function resolvePendingCalls(ctx: ReplContext, runner: TurnRunner): Promise<TurnOutcome | undefined> {
  const state = ctx.session.state;
  const calls = state.pending_tool_calls;
  const unfinished = calls.filter((c) => c.status !== 'completed');
  // All answered and the turn was interrupted (the next message carries the outputs) or its
  // follow-up request failed (the failed-request menu resends exactly that): nothing to ask.
  const settled = unfinished.length === 0 && (state.interrupted_turn !== null || state.pending_transaction !== null);
  if (calls.length === 0 || settled) return undefined;
  const t = ctx.theme;
  say(ctx, t.yellow(`The previous session stopped in the middle of a turn ("${sanitizeLine(preview(state.last_user_message ?? ''))}"). Its tool calls:`));
  for (const c of calls) {
    const status = c.status === 'completed' ? t.green('completed (its output will be sent, not re-run)') : c.status === 'started' ? t.red('started, did not finish') : t.dim('never started');
    say(ctx, `  ${t.cyan(`$ ${commandsInline([callCommand(c)], t)}`)}  ${status}`);
  }
  const choice = await selectFromMenu({ out: ctx.out, keys: ctx.term, theme: t }, {
    title: 'How do you want to go on?',
    items: [
      'Continue — tell the model these calls were interrupted; it decides what to do',
      'Continue, ask first — same, and the model must ask you before running them again',
      'Retry — run the calls that did not complete, then continue the turn',
      { label: 'New session — back the state up, clear it, start fresh', confirm: 'Start a new session? These calls are abandoned (the state is kept in a backup file).' },
    ],
  });
  if (choice === null) {
    say(ctx, t.dim('Left as it is: your next message tells the model these calls did not finish.'));
    return undefined;
  }
  if (choice === 3) {
    startNewSession(ctx);
    return undefined;
  }
  const userText = ctx.session.state.last_user_message ?? '';
  if (choice === 2) {
    return runner.run(userText, async (signal) => {
      const outputs = await executeCalls(ctx.deps, signal);
      return continueTurn(ctx.deps, { input: outputs, previousResponseId: ctx.session.state.response_id }, userText, signal);
    });
  }
  settleUnfinished(ctx, choice === 1);
  const input = leftoverOutputs(ctx.session.state);
  return runner.run(userText, (signal) => continueTurn(ctx.deps, { input, previousResponseId: ctx.session.state.response_id }, userText, signal));
}

/** After a failed request (now, or found at start): Retry / New chain / Rollback / Clear / Cancel. */
export async function recoverFailedRequest(ctx: ReplContext, runner: TurnRunner, justFailed: boolean): Promise<void> {
  const t = ctx.theme;
  for (let shown = justFailed; ; shown = true) {
    const pending = ctx.session.state.pending_transaction;
    if (pending === null) return;
    const failed = ctx.session.state.failed_response;
    // Right after a failure the error is already on screen; at start it is news.
    const what = shown ? '' : `The last request failed${failed ? ` (${sanitizeLine(failed.error)})` : ''}. `;
    const kept = pending.user_message ? `Your message is kept: "${sanitizeLine(preview(pending.user_message))}"` : '';
    if (what || kept) say(ctx, t.yellow(`${what}${kept}`));
    const choice = await selectFromMenu({ out: ctx.out, keys: ctx.term, theme: t }, {
      title: 'What now?',
      items: [
        'Retry — send the same request again (no command is re-run)',
        'New chain — start a new server-side chain from the local context',
        'Rollback — go back to an earlier checkpoint',
        { label: 'Clear — start a fresh session', confirm: 'Clear the session? Its state and checkpoint files are deleted.' },
        'Cancel — keep it for later (↑ recalls your message; the next start offers this again)',
      ],
    });
    const userText = pending.user_message ?? '';
    let outcome: TurnOutcome;
    switch (choice) {
      case 0:
        outcome = await runner.run(userText, (signal) => continueTurn(ctx.deps, { input: pending.input, previousResponseId: pending.previous_response_id }, userText, signal));
        break;
      case 1: {
        const input = newChainInput(ctx.session.state, pending.input);
        outcome = await runner.run(userText, (signal) => continueTurn(ctx.deps, { input, previousResponseId: null }, userText, signal));
        break;
      }
      case 2:
        await rollbackCommand(ctx, '');
        return;
      case 3:
        clearSession(ctx);
        return;
      default:
        say(ctx, t.dim('Kept for later.'));
        return;
    }
    if (outcome.kind !== 'failed') return;
  }
}
