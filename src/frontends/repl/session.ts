// The interactive session on disk: every transition is saved at once (crash safety depends on
// the journal being on disk before a command runs), and the shared checkpoint is published
// after each successful turn and each rollback (SPEC §3.1, §3.2).
import { copyFileSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { SessionHandle } from '../../agent/turn.ts';
import { checkpointFromState } from '../../session/checkpoint.ts';
import { fileStamp } from '../../session/fsutil.ts';
import { clearState, type SessionState } from '../../session/state.ts';
import { deleteSessionFiles, saveCheckpoint, saveState, STATE_FILE } from '../../session/store.ts';

export class ReplSession implements SessionHandle {
  readonly statePath: string;
  private saveError: string | undefined;
  /** Called once, after the first successful save (git-exclude.ts hooks in here). */
  onFirstSave: (() => void) | undefined;

  constructor(
    readonly dir: string,
    private current: SessionState,
    /** False when the state file is untrusted: the session then lives in memory only. */
    private readonly writable: boolean,
    private readonly warn: (message: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.statePath = join(dir, STATE_FILE);
  }

  get state(): SessionState {
    return this.current;
  }

  update(transition: (s: SessionState) => SessionState): void {
    this.current = transition(this.current);
    this.persist();
  }

  persist(): void {
    if (!this.writable) return;
    try {
      saveState(this.statePath, this.current);
      this.saveError = undefined;
      const first = this.onFirstSave;
      this.onFirstSave = undefined;
      first?.();
    } catch (err) {
      // Said once per distinct problem, not on every token of a turn.
      const message = `cannot save ${STATE_FILE}: ${(err as Error).message}`;
      if (message !== this.saveError) this.warn(message);
      this.saveError = message;
    }
  }

  publishCheckpoint(source: 'turn' | 'rollback'): void {
    if (!this.writable) return;
    const cp = checkpointFromState(this.current, source, this.now());
    if (cp === null) return;
    try {
      saveCheckpoint(this.dir, cp);
    } catch (err) {
      this.warn(`cannot save the checkpoint: ${(err as Error).message}`);
    }
  }

  /** Copies the state file to `.agentx_responseid.bak-<timestamp>` (never over an existing file). */
  backup(): string | undefined {
    if (!this.writable) return undefined;
    const name = `${STATE_FILE}.bak-${fileStamp(this.now())}`;
    try {
      copyFileSync(this.statePath, join(this.dir, name), constants.COPYFILE_EXCL);
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** /clear: the files go (so one-shots start fresh too) and nothing old stays in memory. */
  clear(): string[] {
    this.current = clearState();
    return this.writable ? deleteSessionFiles(this.dir) : [];
  }
}
