// Which exec sessions are live, on disk (docs/exec-sessions.md, "Journal and crashes"). Sessions
// never outlive agentx (the lifeline), but a dead agentx cannot say that they ended: kill -9 or
// a crash leaves the model believing its dev server still runs, and the person knowing nothing.
// So each agentx process keeps one small file per project in the private state store naming the
// sessions it runs, their command and their last output; the next agentx of that project finds
// the files of processes that are gone, reports their sessions as ended, and deletes the files.
//
// A file names its process by pid *and* start time: a pid the kernel reused belongs to another
// process, and its file must not be taken for a live agentx's (nor a live one's for a dead one's).
import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { isPidAlive } from '../lib/fsutil.ts';
import { isRecord } from '../lib/guards.ts';
import { procStartTime } from '../lib/zombie.ts';

export interface LiveSessionRecord {
  id: number;
  command: string;
  tty: boolean;
  started_at: string;
  /** The end of what it printed (sanitized when shown, capped here). */
  last_output: string;
}

/** The sessions a process that is gone was running when it ended. */
export interface EndedOwner {
  pid: number;
  sessions: LiveSessionRecord[];
}

/** A file this big is not one of ours (64 sessions × a few KiB at most). */
const MAX_FILE_BYTES = 1024 * 1024;
const LAST_OUTPUT_MAX_CHARS = 2000;
const COMMAND_MAX_CHARS = 2000;

function parseSession(v: unknown): LiveSessionRecord | null {
  if (!isRecord(v) || typeof v.id !== 'number' || !Number.isInteger(v.id) || typeof v.command !== 'string') return null;
  return {
    id: v.id,
    command: v.command.slice(0, COMMAND_MAX_CHARS),
    tty: v.tty === true,
    started_at: typeof v.started_at === 'string' ? v.started_at : '',
    last_output: typeof v.last_output === 'string' ? v.last_output.slice(-LAST_OUTPUT_MAX_CHARS) : '',
  };
}

function readOwner(path: string): { pid: number; start: string | null; sessions: LiveSessionRecord[] } | null {
  let v: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_FILE_BYTES) return null;
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(v) || typeof v.pid !== 'number' || !Array.isArray(v.sessions)) return null;
  const sessions = v.sessions.map(parseSession).filter((s): s is LiveSessionRecord => s !== null);
  return { pid: v.pid, start: typeof v.start === 'string' ? v.start : null, sessions };
}

/** Whether the process a file names still runs (same pid, same start time). */
function ownerAlive(pid: number, start: string | null): boolean {
  if (!isPidAlive(pid)) return false;
  const now = procStartTime(pid);
  // Without /proc nothing more is known: a live pid counts as the owner.
  return start === null || now === undefined || now === start;
}

export class ExecRegistry {
  private readonly file: string;
  private readonly start: string | null;

  /** `dir`: the project's directory of registry files (paths.ts execRegistryDir). */
  constructor(
    readonly dir: string,
    private readonly pid: number = process.pid,
  ) {
    this.file = join(dir, `${pid}.json`);
    this.start = procStartTime(pid) ?? null;
  }

  /** Records the sessions that run now (atomically replaced; fsync'd when `durable`); none: the file goes. */
  write(sessions: readonly LiveSessionRecord[], durable: boolean): void {
    if (sessions.length === 0) {
      try {
        unlinkSync(this.file);
      } catch {
        /* none yet */
      }
      return;
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const capped = sessions.map((s) => ({ ...s, command: s.command.slice(0, COMMAND_MAX_CHARS), last_output: s.last_output.slice(-LAST_OUTPUT_MAX_CHARS) }));
    writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, pid: this.pid, start: this.start, sessions: capped })}\n`, 0o600, { durable });
  }

  /**
   * The sessions of this project's agentx processes that are gone: read, then their files
   * deleted (each is reported once). Files of live processes are left alone; unreadable files of
   * dead ones are deleted too (nothing can be said of them).
   */
  claimEnded(): EndedOwner[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const ended: EndedOwner[] = [];
    for (const name of names) {
      const m = /^(\d+)\.json$/.exec(name);
      if (m === null) continue;
      const path = join(this.dir, name);
      const owner = readOwner(path);
      // Our own pid: ours, unless an earlier process had it (the kernel reused the pid).
      if (Number(m[1]) === this.pid && (owner === null || owner.start === this.start)) continue;
      if (owner !== null && owner.pid !== this.pid && ownerAlive(owner.pid, owner.start)) continue;
      if (owner === null && isPidAlive(Number(m[1]))) continue;
      try {
        unlinkSync(path);
      } catch {
        continue; // Another agentx claimed it first.
      }
      if (owner !== null && owner.sessions.length > 0) ended.push({ pid: owner.pid, sessions: owner.sessions });
    }
    return ended;
  }
}
