// The process manager of exec sessions: one per agentx process, shared by every engine the REPL
// builds (plan mode, /setup) so that a session outlives none of them but agentx itself. It starts
// sessions under the supervisor, hands them out by id, stops them (/stop, agentx exiting), and
// tells listeners what happens (--json events, the REPL's status line).
//
// Sessions never outlive agentx: each supervisor watches the lifeline FIFO (lifeline.ts), which
// closes however agentx dies; on a normal exit the groups are also signalled at once ('exit').
import { StringDecoder } from 'node:string_decoder';
import { killProcessGroup, signalProcessGroup } from '../process-group.ts';
import { openLifeline, type Lifeline } from './lifeline.ts';
import { MAX_SESSIONS, SESSION_KILL_GRACE_MS } from './limits.ts';
import { spawnExecProcess } from './process.ts';
import { ExecSession, type SessionExit, type SessionInfo } from './session.ts';

export type ExecEvent =
  | { type: 'exec_start'; sessionId: number; command: string; tty: boolean; pid: number }
  | { type: 'exec_output'; sessionId: number; chunk: string; droppedBytes: number }
  | ({ type: 'exec_exit'; sessionId: number } & SessionExit);

export interface ExecStartSpec {
  /** The command line, for display. */
  command: string;
  /** What runs (the shell with the command, maybe inside the sandbox). */
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  tty: boolean;
  /** It runs in the read-only sandbox (plan mode may type into it; see exec-tool.ts). */
  readOnly?: boolean;
}

export type StartResult = { ok: true; session: ExecSession } | { ok: false; error: string };

/** Output events are batched: at most one per session per this interval, of at most CHUNK_EVENT_BYTES. */
const CHUNK_EVENT_MS = 100;
const CHUNK_EVENT_BYTES = 16 * 1024;

export interface ExecManagerOptions {
  graceMs?: number;
  tempDir?: string;
  now?: () => number;
}

export class ExecManager {
  private readonly sessions = new Map<number, ExecSession>();
  private readonly listeners = new Set<(ev: ExecEvent) => void>();
  private lifeline: Lifeline | undefined;
  private nextId = 1000;
  /** Sessions of an earlier agentx process of this conversation, which ended with it (store/exec-registry.ts). */
  private readonly endedEarlier = new Map<number, string>();
  private exitHook: (() => void) | undefined;

  constructor(private readonly opts: ExecManagerOptions = {}) {}

  /** Subscribes to session events; returns the unsubscribe. */
  subscribe(listener: (ev: ExecEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(ev: ExecEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch {
        /* a display failure must not break a session */
      }
    }
  }

  /** Sessions still running (the status line's count). */
  runningCount(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (!s.exit) n++;
    return n;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].filter((s) => !s.exit).map((s) => s.info());
  }

  get(id: number): ExecSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Sessions an earlier agentx process ran, which ended with it: their ids are not given out
   * again (the model may still write to one), and write_stdin to one is told what happened.
   */
  rememberEndedEarlier(sessions: readonly { id: number; command: string }[]): void {
    for (const s of sessions) {
      this.endedEarlier.set(s.id, s.command);
      this.nextId = Math.max(this.nextId, s.id + 1);
    }
  }

  /** The command of a session that ended with an earlier agentx process, if `id` was one. */
  endedEarlierCommand(id: number): string | undefined {
    return this.endedEarlier.get(id);
  }

  /** Forgets an ended session once the model has been told how it ended. */
  forget(id: number): void {
    const s = this.sessions.get(id);
    if (s?.exit) this.sessions.delete(id);
  }

  private ensureLifeline(): Lifeline {
    if (this.lifeline) return this.lifeline;
    this.lifeline = openLifeline(this.opts.tempDir);
    this.exitHook = () => this.killAllNow();
    process.once('exit', this.exitHook);
    return this.lifeline;
  }

  async start(spec: ExecStartSpec): Promise<StartResult> {
    if (this.runningCount() >= MAX_SESSIONS) {
      return {
        ok: false,
        error: `too many exec sessions: ${MAX_SESSIONS} are running (the limit). Stop one first: write_stdin "\\u0003" to interrupt it, or ask the person to /stop it`,
      };
    }
    const id = this.nextId++;
    const now = this.opts.now ?? Date.now;
    const batch = chunkBatcher((chunk, dropped) => this.emit({ type: 'exec_output', sessionId: id, chunk, droppedBytes: dropped }));
    const session = new ExecSession(id, spec.command, spec.tty, now(), (chunk) => batch.push(chunk));
    session.readOnly = spec.readOnly === true;
    try {
      session.process = await spawnExecProcess({
        argv: spec.argv,
        cwd: spec.cwd,
        env: spec.env,
        tty: spec.tty,
        lifeline: this.ensureLifeline().path,
        graceMs: this.opts.graceMs ?? SESSION_KILL_GRACE_MS,
        tempDir: this.opts.tempDir,
        onData: (chunk) => session.push(chunk),
        onExit: (code, signal) => {
          session.ended(code, signal);
          batch.flush();
          // Whatever the command left running in its group goes with it.
          if (session.process) signalProcessGroup(session.process.pid, 'SIGKILL');
          this.emit({ type: 'exec_exit', sessionId: id, ...(session.exit ?? { code, signal, stopped: false }) });
        },
      });
    } catch (err) {
      return { ok: false, error: `cannot start the command: ${err instanceof Error ? err.message : String(err)}` };
    }
    this.sessions.set(id, session);
    this.emit({ type: 'exec_start', sessionId: id, command: spec.command, tty: spec.tty, pid: session.process.pid });
    return { ok: true, session };
  }

  /** Stops one session (TERM, grace, KILL to its group); false when no such session runs. */
  async stop(id: number): Promise<boolean> {
    const s = this.sessions.get(id);
    if (!s || s.exit || !s.process) return false;
    s.markStopping();
    await killProcessGroup(s.process.pid, this.opts.graceMs ?? SESSION_KILL_GRACE_MS);
    await s.wait(this.opts.graceMs ?? SESSION_KILL_GRACE_MS, undefined);
    return true;
  }

  /** Stops every running session; resolves with how many were stopped. */
  async stopAll(): Promise<number> {
    const running = this.list().map((s) => s.id);
    await Promise.all(running.map((id) => this.stop(id)));
    return running.length;
  }

  /** Synchronous, for the process's 'exit': SIGKILL to every group, then the lifeline closes. */
  killAllNow(): void {
    for (const s of this.sessions.values()) {
      if (!s.exit && s.process) {
        s.markStopping();
        signalProcessGroup(s.process.pid, 'SIGKILL');
      }
    }
    this.lifeline?.close();
    this.lifeline = undefined;
    if (this.exitHook) process.off('exit', this.exitHook);
    this.exitHook = undefined;
  }
}

/**
 * Batches a session's live output for events: one per CHUNK_EVENT_MS, of at most
 * CHUNK_EVENT_BYTES, the excess counted. Bytes are decoded only for what is sent.
 */
function chunkBatcher(send: (chunk: string, droppedBytes: number) => void): { push(chunk: Buffer): void; flush(): void } {
  const decoder = new StringDecoder('utf8');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pendingBytes === 0 && dropped === 0) return;
    const text = decoder.write(Buffer.concat(pending));
    const d = dropped;
    pending = [];
    pendingBytes = 0;
    dropped = 0;
    send(text, d);
  };
  return {
    push(chunk) {
      const room = CHUNK_EVENT_BYTES - pendingBytes;
      const take = Math.min(room, chunk.length);
      // A copy: a slice would pin the pipe's whole chunk until the flush.
      if (take > 0) pending.push(Buffer.from(chunk.subarray(0, take)));
      pendingBytes += take;
      dropped += chunk.length - take;
      timer ??= setTimeout(flush, CHUNK_EVENT_MS);
      timer.unref();
    },
    flush,
  };
}

let shared: ExecManager | undefined;

/** The agentx process's manager (created on first use). */
export function execManager(): ExecManager {
  shared ??= new ExecManager();
  return shared;
}
