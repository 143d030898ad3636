// /ps and /stop: the exec sessions the model started (tools/exec/), as the person sees and
// controls them. What /ps lists is what runs: both read the one process manager. Everything a
// command printed passes the sanitizer before it is shown.
import { resumeExecSessions } from '../../engine/ended-sessions.ts';
import { execRegistryDir } from '../../paths.ts';
import { ExecRegistry } from '../../store/exec-registry.ts';
import { execManager, type ExecManager } from '../../tools/exec/manager.ts';
import type { SessionInfo } from '../../tools/exec/session.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { clipChars } from '../../lib/text.ts';
import { say, type ReplContext } from './context.ts';

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The /ps listing: id, age, command, last output line (one line each). */
export function formatSessions(sessions: readonly SessionInfo[], now: number): string[] {
  if (sessions.length === 0) return ['No exec sessions are running.'];
  return sessions.map((s) => {
    const last = s.lastLine === '' ? '' : `  — ${clipChars(sanitizeLine(s.lastLine), 60)}`;
    return `  ${s.id}  ${age(now - s.startedAt).padStart(6)}  ${s.tty ? '[tty] ' : ''}${clipChars(sanitizeLine(s.command), 60)}${last}`;
  });
}

export function psCommand(ctx: ReplContext, manager: ExecManager = execManager()): void {
  say(ctx, formatSessions(manager.list(), Date.now()).join('\n'));
}

/** /stop [ID]: stops one session, or all of them. */
export async function stopCommand(ctx: ReplContext, arg: string, manager: ExecManager = execManager()): Promise<void> {
  const t = ctx.theme;
  if (arg === '' || arg === 'all') {
    const n = await manager.stopAll();
    say(ctx, n === 0 ? 'No exec sessions are running.' : t.green(`✓ stopped ${n} exec session${n === 1 ? '' : 's'}`));
    return;
  }
  if (!/^\d+$/.test(arg)) {
    say(ctx, t.red('usage: /stop [ID] (see /ps for the ids)'));
    return;
  }
  const stopped = await manager.stop(Number(arg));
  say(ctx, stopped ? t.green(`✓ stopped exec session ${arg}`) : t.red(`No exec session ${arg} is running (see /ps).`));
}

/**
 * At start: sessions an earlier agentx of this project ran ended with it (a crash, kill -9, an
 * exit); the person is told now, the model with the next message (engine/ended-sessions.ts).
 * From here on this process's sessions are recorded for the next start.
 */
export function reportEndedSessions(ctx: ReplContext, manager: ExecManager = execManager()): void {
  const t = ctx.theme;
  const registry = new ExecRegistry(execRegistryDir(ctx.env, ctx.home, ctx.session.dir));
  const { report } = resumeExecSessions(manager, registry, (message) => say(ctx, t.yellow(`⚠ ${sanitizeLine(message)}`)));
  if (report === null) return;
  const [first = '', ...rest] = report.person;
  say(ctx, [t.yellow(`⚠ ${sanitizeLine(first)}`), ...rest.map((l) => t.dim(sanitizeLine(l)))].join('\n'));
  ctx.engine.noteForNextMessage(report.model);
}
