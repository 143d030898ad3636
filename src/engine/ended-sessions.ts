// Exec sessions across the death of agentx (docs/exec-sessions.md, "Journal and crashes"). While
// agentx runs, the registry on disk (store/exec-registry.ts) follows the process manager: which
// sessions run, their command and the end of their output. When agentx starts again, the
// sessions of the process that is gone are reported — to the person at once, to the model with
// the next message — as ended with it: never restarted, and their ids never given out again.
import type { ExecRegistry, EndedOwner, LiveSessionRecord } from '../store/exec-registry.ts';
import type { ExecManager } from '../tools/exec/manager.ts';

/** Output alone rewrites the registry at most this often (its last output is a courtesy, not a record). */
const OUTPUT_FLUSH_MS = 2_000;

function liveRecords(manager: ExecManager): LiveSessionRecord[] {
  return manager.list().map((info) => ({
    id: info.id,
    command: info.command,
    tty: info.tty,
    started_at: new Date(info.startedAt).toISOString(),
    last_output: manager.get(info.id)?.recentOutput() ?? '',
  }));
}

/**
 * Keeps `registry` in step with `manager`: at once when a session starts or ends, and every
 * OUTPUT_FLUSH_MS while sessions print. Returns the unsubscribe. Not fsync'd: what the file is
 * for is agentx's own death (kill -9, a crash), which the page cache survives; an fsync would
 * add milliseconds to every exec_command for the power-loss case only.
 * A registry that cannot be written costs the report after a crash, never a session: `onError`
 * is told once.
 */
export function trackLiveSessions(manager: ExecManager, registry: ExecRegistry, onError: (message: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  const write = (): void => {
    clearTimeout(timer);
    timer = undefined;
    try {
      registry.write(liveRecords(manager), false);
    } catch (err) {
      if (!failed)
        onError(
          `cannot record the running exec sessions in ${registry.dir} (${err instanceof Error ? err.message : String(err)}); after a crash they will not be reported`,
        );
      failed = true;
    }
  };
  const unsubscribe = manager.subscribe((ev) => {
    if (ev.type === 'exec_start' || ev.type === 'exec_exit') write();
    else {
      timer ??= setTimeout(() => write(), OUTPUT_FLUSH_MS);
      timer.unref();
    }
  });
  return () => {
    clearTimeout(timer);
    unsubscribe();
  };
}

export interface EndedReport {
  /** Lines for the person (unsanitized: the front-end sanitizes what a command printed). */
  person: string[];
  /** A note for the model's next message. */
  model: string;
}

function lastLines(text: string, lines: number): string {
  return text
    .split(/\r?\n|\r/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-lines)
    .join('\n');
}

/** What the person and the model are told about sessions that ended with an earlier agentx; null when there were none. */
export function endedSessionsReport(owners: readonly EndedOwner[]): EndedReport | null {
  const sessions = owners.flatMap((o) => o.sessions.map((s) => ({ ...s, pid: o.pid }))).sort((a, b) => a.id - b.id);
  if (sessions.length === 0) return null;
  const n = sessions.length;
  const person = [
    `${n} exec session${n === 1 ? '' : 's'} ended when the previous agentx process ended (crash, kill or exit); agentx does not restart ${n === 1 ? 'it' : 'them'}:`,
    ...sessions.map((s) => {
      const last = lastLines(s.last_output, 1);
      return `  ${s.id}  ${s.command}${last === '' ? '' : `  — last output: ${last}`}`;
    }),
  ];
  const model = [
    `Note: agentx was restarted. ${n === 1 ? 'This exec session was' : 'These exec sessions were'} running when the previous agentx process ended (a crash, a kill or an exit), and ended with it: ${n === 1 ? 'it is' : 'they are'} gone, not restarted, and write_stdin to ${n === 1 ? 'it' : 'them'} fails. Start a command again with exec_command if it is still needed.`,
    ...sessions.map((s) => {
      const last = lastLines(s.last_output, 5);
      return `- session ${s.id}: ${JSON.stringify(s.command)}${s.started_at === '' ? '' : `, started ${s.started_at}`}${last === '' ? ', no output' : `; its last output:\n${last}`}`;
    }),
  ].join('\n');
  return { person, model };
}

/**
 * At start: claims the sessions of this project's agentx processes that are gone, keeps their ids
 * from being reused, starts tracking ours, and returns what to tell (null: nothing ended).
 */
export function resumeExecSessions(
  manager: ExecManager,
  registry: ExecRegistry,
  onError: (message: string) => void,
): { report: EndedReport | null; stop: () => void } {
  const owners = registry.claimEnded();
  manager.rememberEndedEarlier(owners.flatMap((o) => o.sessions));
  return { report: endedSessionsReport(owners), stop: trackLiveSessions(manager, registry, onError) };
}
