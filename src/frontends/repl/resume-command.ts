// Earlier conversations of the project (store/session-archive.ts): kept when `/clear` or "New
// session" leaves one, listed and brought back by `/resume` and `agentx resume [--last]`. The
// conversation being left is archived first, so a resume loses nothing either. What a resumed
// state left unfinished (tool calls, a failed request) is settled by the caller with the same
// menus as after a crash: nothing runs again without the person's choice.
import { errorMessage } from '../../lib/fsutil.ts';
import { preview } from '../../lib/text.ts';
import { sessionArchiveDir } from '../../paths.ts';
import { archiveSession, listArchive, readArchivedState, removeFromArchive, setAsideRefused, type ArchivedSession } from '../../store/session-archive.ts';
import { selectFromMenu } from '../../ui/menu.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';

type ArchiveContext = Pick<ReplContext, 'env' | 'home' | 'session' | 'engine' | 'archivedCopy'>;

function archiveDir(ctx: ArchiveContext): string {
  return sessionArchiveDir(ctx.env, ctx.home, ctx.session.dir);
}

/**
 * Keeps the current conversation among the earlier ones before it is left. Returns false (said in
 * one line) when it could not: the caller then keeps the conversation rather than lose it. The
 * entry written is remembered (`archivedCopy`): the conversation being left is what `/rollback
 * undo` brings back, and then its copy goes.
 */
export async function archiveCurrent(ctx: ArchiveContext & Pick<ReplContext, 'out' | 'theme'>): Promise<boolean> {
  if (!ctx.session.persistent) return true; // A session in memory only has nowhere to keep it either.
  // What its calls changed is listed with it; a snapshot store that cannot say (pruned, git
  // failing) leaves the list without it rather than keep the conversation from being kept.
  const files = await ctx.engine.conversationFileChanges().catch(() => undefined);
  const state = ctx.session.state;
  try {
    // Whole, outputs and retry data inline, unlike the state file: an entry may wait weeks for
    // /resume while the conversation log is pruned (log/prune.ts keeps the newest branches), and a
    // completed output lost with it would turn its call back into `started` — offered to run again.
    const file = archiveSession(archiveDir(ctx), state, new Date(), files);
    ctx.archivedCopy = file === undefined ? undefined : { file, responseId: state.response_id, turns: state.usage.turns };
    return true;
  } catch (err) {
    say(ctx, ctx.theme.red(sanitizeLine(`✗ could not keep the conversation among the earlier ones (${archiveDir(ctx)}): ${errorMessage(err)}`)));
    return false;
  }
}

/**
 * After `/rollback undo` the branch the rollback left is the session again: its copy among the
 * earlier conversations (kept by the rollback) would only list it twice. That copy is the one
 * archiveCurrent remembered, if it is this conversation (same chain head and turns); after a
 * restart nothing is remembered, and the newest entry listed with the same head and turns goes.
 * A failure to read the archive just leaves the copy.
 */
export function dropArchivedCopyOfCurrent(ctx: ArchiveContext): void {
  if (!ctx.session.persistent) return;
  const s = ctx.session.state;
  const remembered = ctx.archivedCopy;
  ctx.archivedCopy = undefined;
  const same = (e: { responseId: string | null; turns: number }): boolean => e.responseId === s.response_id && e.turns === s.usage.turns;
  if (remembered !== undefined) {
    if (same(remembered)) removeFromArchive(remembered);
    return;
  }
  // Without a chain head the newest entry with 0 turns could be any conversation left early.
  if (s.response_id === null) return;
  let listing;
  try {
    listing = listArchive(archiveDir(ctx));
  } catch {
    return;
  }
  const copy = listing.sessions.find(same);
  if (copy !== undefined) removeFromArchive(copy);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `2026-12-05 20:41`: local time, to the minute. */
function shortDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '????-??-?? ??:??';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * `last: "fix the parser"`: the last message of a conversation being resumed or rolled back to,
 * sanitized. A state with none (a legacy or unsealed state file keeps only the conversation's
 * response id; a session that never sent one) says so rather than show an empty `last: ""`.
 */
export function lastMessageLabel(message: string | null | undefined): string {
  const shown = sanitizeLine(preview(message ?? ''));
  return shown.trim() === '' ? 'last: (no message saved)' : `last: "${shown}"`;
}

/**
 * One earlier conversation in the list: when it was left, how long it was, how it began and
 * where it ended (sanitized: a message may hold anything pasted, or echoed by the model).
 */
export function archivedLabel(s: Pick<ArchivedSession, 'archivedAt' | 'turns' | 'firstPrompt' | 'filesChanged'> & { lastMessage?: string | null }): string {
  const first = s.firstPrompt === '' ? '(no message)' : `"${sanitizeLine(preview(s.firstPrompt))}"`;
  const last = s.lastMessage ?? '';
  const ending = last === '' || preview(last) === preview(s.firstPrompt) ? '' : ` … last: "${sanitizeLine(preview(last))}"`;
  return `${shortDate(s.archivedAt)}  ${s.turns} turn${s.turns === 1 ? '' : 's'}${filesLabel(s.filesChanged)}  ${first}${ending}`;
}

/** `, 2 files (src/a.ts, README.md)`: how many files its calls changed and the first few names. */
function filesLabel(files: ArchivedSession['filesChanged']): string {
  if (files === undefined || files.count === 0) return '';
  const names = files.paths
    .slice(0, 3)
    .map((p) => sanitizeLine(p))
    .join(', ');
  const more = files.count > 3 ? ', …' : '';
  return `, ${files.count} file${files.count === 1 ? '' : 's'} (${names}${more})`;
}

/**
 * `/resume [N|--last]` (and `agentx resume [--last]` at start): lists the earlier conversations,
 * newest first, and switches to the one chosen. Returns true when the session changed (the
 * caller then settles what it left unfinished).
 */
export async function resumeCommand(ctx: ReplContext, arg: string): Promise<boolean> {
  const t = ctx.theme;
  let listing;
  try {
    listing = listArchive(archiveDir(ctx));
  } catch (err) {
    say(ctx, t.red(sanitizeLine(`✗ cannot read the earlier conversations in ${archiveDir(ctx)}: ${errorMessage(err)}`)));
    return false;
  }
  if (listing.refused.length > 0) {
    const n = listing.refused.length;
    say(
      ctx,
      t.yellow(
        sanitizeLine(
          `⚠ ${n} file${n === 1 ? '' : 's'} among the earlier conversations ${n === 1 ? 'was' : 'were'} not written there by agentx (the seal does not verify) or ${n === 1 ? 'is' : 'are'} damaged: not offered, kept aside as .refused (${listing.refused[0] ?? ''}${n > 1 ? ', …' : ''})`,
        ),
      ),
    );
    setAsideRefused(listing.refused);
  }
  const sessions = listing.sessions;
  if (sessions.length === 0) {
    say(ctx, 'No earlier conversations in this project yet: /clear and "New session" keep the one they leave.');
    return false;
  }
  const picked = await choose(ctx, sessions, arg);
  if (picked === undefined) return false;
  return switchTo(ctx, picked);
}

async function choose(ctx: ReplContext, sessions: ArchivedSession[], arg: string): Promise<ArchivedSession | undefined> {
  if (arg === '--last' || arg === 'last') return sessions[0];
  if (/^\d+$/.test(arg)) {
    const found = sessions[Number(arg) - 1];
    if (found === undefined)
      say(ctx, ctx.theme.red(`no earlier conversation ${arg}: there ${sessions.length === 1 ? 'is 1' : `are ${sessions.length}`} (/resume lists them)`));
    return found;
  }
  if (arg !== '') {
    say(ctx, ctx.theme.red('usage: /resume [N|--last]'));
    return undefined;
  }
  const index = await selectFromMenu(
    { out: ctx.out, keys: ctx.term, theme: ctx.theme },
    {
      title: 'Resume which conversation? (the current one is kept among them)',
      items: sessions.map(archivedLabel),
    },
  );
  if (index === null) {
    say(ctx, ctx.theme.dim('cancelled: the conversation is unchanged'));
    return undefined;
  }
  return sessions[index];
}

async function switchTo(ctx: ReplContext, entry: ArchivedSession): Promise<boolean> {
  // Parsed whole only now, for the one chosen (the list read only the entries' small fields).
  const state = readArchivedState(entry);
  if (state === null) {
    say(ctx, ctx.theme.red(sanitizeLine(`✗ the earlier conversation ${entry.file} can no longer be read (changed or damaged): nothing was switched`)));
    return false;
  }
  if (!(await archiveCurrent(ctx))) return false;
  // Its outputs are read back from the conversation log, where they already are (not appended again).
  ctx.engine.resumeConversation(ctx.session.fromFile(state));
  // It is the project's session now, no longer an earlier one (the current one took its place).
  removeFromArchive(entry);
  // One-shots beside the REPL go on from the resumed conversation (or start fresh if it has no head).
  ctx.session.withdrawCheckpoint();
  ctx.session.publishCheckpoint('rollback');
  ctx.costs.reset();
  ctx.announcedCwd = ctx.session.dir;
  const s = ctx.session.state;
  say(
    ctx,
    ctx.theme.green(
      `✓ resumed the conversation of ${shortDate(entry.archivedAt)}: ${s.usage.turns} turn${s.usage.turns === 1 ? '' : 's'}, ${lastMessageLabel(s.last_user_message)}`,
    ),
  );
  return true;
}
