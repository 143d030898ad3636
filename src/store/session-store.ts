// The one session store every front-end uses: the state in memory, each transition saved at
// once, and save errors made visible. A transition marked `required` guards an effect (a tool
// call's `started` mark guards running it): if it cannot be saved, it is not applied and
// SessionSaveError is thrown, so the effect does not happen. Other save failures are reported
// once per distinct problem and the session goes on (the next save may succeed).
import { copyFileSync, constants, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errorCode, fileStamp } from '../lib/fsutil.ts';
import { checkpointFromState, type Checkpoint } from './checkpoint.ts';
import { JournalOutputs, type OutputLog } from './journal-outputs.ts';
import type { SessionState } from './state.ts';
import { CHECKPOINT_FILE, saveCheckpoint, saveState, STATE_FILE } from './store.ts';

export class SessionSaveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionSaveError';
  }
}

/**
 * durable: fsync'd writes (the interactive session: the conversation itself);
 * fast: atomic but not fsync'd (one-shot files: diagnosis data, see store/fs.ts);
 * memory: nothing is written (untrusted file, read-only directory).
 */
export type Persistence = 'durable' | 'fast' | 'memory';

export interface SessionStoreOptions {
  /** The session directory (where the shared checkpoint lives). */
  dir: string;
  /** The state file. */
  path: string;
  initial: SessionState;
  persistence: Persistence;
  /** The interactive session publishes `.agentx_checkpoint` for one-shots; one-shots do not. */
  publishesCheckpoint: boolean;
  warn(message: string): void;
  now?: () => Date;
  /**
   * The project's conversation log: completed tool outputs, and the outputs and long messages of
   * a failed request's retry data, are kept there; the state file points at them (journal-outputs.ts).
   * Without it (no private state store) they stay inline.
   */
  outputLog?: OutputLog;
}

export interface UpdateOptions {
  required?: boolean;
}

export class SessionStore {
  private current: SessionState;
  private persistence: Persistence;
  private lastProblem: string | undefined;
  /** A staged transition is in memory only: the next update (or flush) writes it with the rest. */
  private unsaved = false;
  private readonly now: () => Date;
  /** State files written so far (the bench reports writes per tool call from it). */
  saves = 0;
  /** Called once, after the first successful save (git-exclude.ts hooks in here). */
  onFirstSave: (() => void) | undefined;

  private readonly outputs: JournalOutputs | undefined;

  constructor(private readonly opts: SessionStoreOptions) {
    this.persistence = opts.persistence;
    this.now = opts.now ?? (() => new Date());
    this.outputs = opts.outputLog === undefined ? undefined : new JournalOutputs(opts.outputLog, opts.persistence === 'durable', this.now);
    this.current = this.fromFile(opts.initial);
  }

  get state(): SessionState {
    return this.current;
  }

  get dir(): string {
    return this.opts.dir;
  }

  get path(): string {
    return this.opts.path;
  }

  get persistent(): boolean {
    return this.persistence !== 'memory';
  }

  update(transition: (s: SessionState) => SessionState, options: UpdateOptions = {}): void {
    const next = transition(this.current);
    const required = options.required === true;
    const problem = this.write(next, { reportFailure: !required, urgent: required });
    if (problem !== undefined && options.required) throw new SessionSaveError(problem);
    this.current = next;
    if (problem === undefined) this.unsaved = false;
  }

  /**
   * Applies a transition in memory only; the next update or flush saves it together with its own
   * change, so two transitions that follow each other cost one durable write. For what may wait
   * for the next write (a call's `completed` mark until the next call's `started` mark: on disk
   * either way before anything that depends on it), never for what guards an effect.
   */
  stage(transition: (s: SessionState) => SessionState): void {
    this.current = transition(this.current);
    this.unsaved = true;
  }

  /** Writes what was staged, if anything (failures are reported like any save). */
  flush(): void {
    if (!this.unsaved) return;
    if (this.write(this.current) === undefined) this.unsaved = false;
  }

  /**
   * Saves the current state now; on failure the session continues in memory only. Returns the
   * problem (for a one-line notice) or undefined. Used at start, where a directory that cannot be
   * written must not stop the session.
   */
  saveOrGoMemory(): string | undefined {
    const problem = this.write(this.current, { reportFailure: false });
    if (problem !== undefined) this.persistence = 'memory';
    return problem;
  }

  /**
   * A state read from a file other than the state file (an archive entry being resumed; entries
   * written by earlier builds hold pointers): its pointers read back into outputs from the log,
   * which then counts them as logged, so the next save does not append them again. An output the log no longer has is said through `warn`.
   */
  fromFile(state: SessionState): SessionState {
    if (this.outputs === undefined) return state;
    const loaded = this.outputs.fromFile(state);
    for (const notice of loaded.notices) this.opts.warn(notice);
    return loaded.state;
  }

  publishCheckpoint(source: Checkpoint['source']): void {
    if (!this.opts.publishesCheckpoint || !this.persistent) return;
    const cp = checkpointFromState(this.current, source, this.now());
    if (cp === null) return;
    try {
      saveCheckpoint(this.opts.dir, cp);
    } catch (err) {
      this.report(`cannot save ${CHECKPOINT_FILE}: ${describe(err)}`);
    }
  }

  /** Removes the shared checkpoint, so one-shots start fresh (after /clear). */
  withdrawCheckpoint(): void {
    if (!this.opts.publishesCheckpoint || !this.persistent) return;
    try {
      unlinkSync(join(this.opts.dir, CHECKPOINT_FILE));
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') this.report(`cannot remove ${CHECKPOINT_FILE}: ${describe(err)}`);
    }
  }

  /** Copies the state file to `<state>.bak-<timestamp>` (never over an existing file). */
  backup(): string | undefined {
    if (!this.persistent) return undefined;
    const name = `${STATE_FILE}.bak-${fileStamp(this.now())}`;
    try {
      copyFileSync(this.opts.path, join(this.opts.dir, name), constants.COPYFILE_EXCL);
      return name;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * `urgent`: the write guards an effect (a `required` transition: a call's `started` mark), so it
   * does not wait for the log's fsync of the records it points at (journal-outputs.ts says why
   * that is safe); every other write syncs them first.
   */
  private write(state: SessionState, { reportFailure = true, urgent = false }: { reportFailure?: boolean; urgent?: boolean } = {}): string | undefined {
    if (this.persistence === 'memory') return undefined;
    try {
      // The records go to the log first: the file never points at a record that is not there.
      saveState(this.opts.path, this.outputs?.toFile(state, { urgent }) ?? state, { durable: this.persistence === 'durable' });
      this.saves++;
      this.lastProblem = undefined;
      const first = this.onFirstSave;
      this.onFirstSave = undefined;
      first?.();
      return undefined;
    } catch (err) {
      const problem = `cannot save ${basename(this.opts.path)}: ${describe(err)}`;
      if (reportFailure) this.report(problem);
      return problem;
    }
  }

  /** Said once per distinct problem, not on every transition of a turn. */
  private report(problem: string): void {
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    this.opts.warn(problem);
  }
}

function describe(err: unknown): string {
  return errorCode(err) ?? (err instanceof Error ? err.message : String(err));
}
