// /rollback (SPEC §3.7): pick a checkpoint (newest first, 1 = newest), restore it, publish the
// checkpoint, and say plainly that side effects are not undone. `/rollback undo` reverts it.
import { preview, type HistoryEntry } from '../../store/state.ts';
import { selectFromMenu } from '../../ui/menu.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';

function localTime(iso: string, now: Date): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '??:??:??';
  const pad = (n: number): string => String(n).padStart(2, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

export function checkpointLabel(h: HistoryEntry, now: Date): string {
  const tokens = h.usage.inputTokens + h.usage.outputTokens;
  return `${localTime(h.timestamp, now)}  "${h.user_preview}" → "${h.assistant_preview}"  (${tokens} tokens)`;
}

const SIDE_EFFECTS = 'Shell commands and other side effects since then are NOT undone (files they changed stay changed).';

function announce(ctx: ReplContext, what: string): void {
  const s = ctx.session.state;
  say(ctx, ctx.theme.green(`✓ ${what}: ${s.usage.turns} turn${s.usage.turns === 1 ? '' : 's'}, last: "${sanitizeLine(preview(s.last_user_message ?? ''))}"`));
  say(ctx, ctx.theme.yellow(SIDE_EFFECTS));
}

export async function rollbackCommand(ctx: ReplContext, arg: string): Promise<void> {
  const t = ctx.theme;
  if (arg === 'undo') {
    if (ctx.session.state.rollback_backup === null) {
      say(ctx, 'Nothing to undo: no rollback has been made.');
      return;
    }
    ctx.engine.rollbackUndo();
    ctx.costs.undoRollback();
    announce(ctx, 'Undid the rollback');
    return;
  }
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
  const position = history.length - index;
  const target = history[position];
  ctx.engine.rollback(index);
  ctx.costs.rollback(target?.usage.turns ?? 0);
  announce(ctx, `Rolled back to checkpoint ${index} (${target ? localTime(target.timestamp, now) : '?'})`);
  say(ctx, t.dim('/rollback undo restores the state before this rollback.'));
}
