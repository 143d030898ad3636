// The workspace's files around a turn (issue 16): a snapshot before the first tool call that can
// write and one when the turn ends, kept as the checkpoint's file span; and the file half of
// /rollback, /rollback undo and /diff. The snapshot store itself is workspace/ (loaded lazily by
// the front-ends, so only types are imported here).
import type { FileSpan } from '../store/types.ts';
import type { DiffResult, RestorePlan, RestoreResult } from '../workspace/index.ts';

/** The part of workspace/index.ts's WorkspaceSnapshots the engine uses. */
export interface WorkspaceFiles {
  /** Null when file rollback is off; may throw (the front-end's wrapper says so once). */
  snapshot(): Promise<{ id: string } | null>;
  diffSpans(spans: readonly FileSpan[]): Promise<DiffResult>;
  planRestore(spans: readonly FileSpan[]): Promise<RestorePlan>;
  applyRestore(plan: RestorePlan): Promise<RestoreResult>;
}

/** A failed snapshot never stops a turn: the files of that turn just cannot be rolled back. */
export async function snapshotOrNull(ws: WorkspaceFiles): Promise<string | null> {
  try {
    return (await ws.snapshot())?.id ?? null;
  } catch {
    return null;
  }
}

/** The snapshots of one turn: `from` before its first writing call, `to` at its end. */
export class TurnFiles {
  private from: string | null = null;
  private tried = false;

  constructor(private readonly ws: WorkspaceFiles | undefined) {}

  /** Called before each call of a tool that can write; only the first one snapshots. */
  /** Whether beforeWrite still has a snapshot to take (it can take a while in a big tree). */
  get snapshotsFirst(): boolean {
    return !this.tried && this.ws !== undefined;
  }

  async beforeWrite(): Promise<void> {
    if (this.tried || this.ws === undefined) return;
    this.tried = true;
    this.from = await snapshotOrNull(this.ws);
  }

  /** The turn's span, or null when nothing could have written (or a snapshot failed). Once. */
  async end(): Promise<FileSpan | null> {
    const from = this.from;
    this.from = null;
    if (from === null || this.ws === undefined) return null;
    const to = await snapshotOrNull(this.ws);
    // The same id: nothing changed (a snapshot of an unchanged tree is the same commit).
    return to === null || to === from ? null : { from, to };
  }
}
