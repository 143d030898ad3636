// A rollback that restores files is one step: the conversation part is journaled in the session
// state before the first file is written, and finished together with the file restore (issue 23
// §6). A kill -9 in the middle leaves the state saying "rollback in progress: this plan, then this
// conversation change"; the next start restores the files again (a restore re-checks every file,
// so running it twice is harmless) and makes the conversation change in the same write that ends
// the journal — never files rolled back under a conversation that was not, and `/rollback undo`
// kept.
import { cloneJson } from '../lib/clone-json.ts';
import { filesOnlyBackup, ROLLBACK_IN_PROGRESS_KEY, rollbackTo, undoRollback, withFilesUndo, type FileSpan, type SessionState } from '../store/state.ts';
import type { RestorePlan, RestoreResult } from '../workspace/index.ts';
import { snapshotOrNull, type WorkspaceFiles } from './files.ts';
import type { SessionHandle } from './turn.ts';

/** What a rollback restores: the conversation, the files, or both. */
export type RollbackScope = 'both' | 'conversation' | 'files';

/** The conversation change that follows a file restore. */
export type RollbackStep = { op: 'rollback'; index: number; scope: 'both' | 'files' } | { op: 'undo' };

/** Journaled in the state (an extra key the store keeps as it is) while files are being restored. */
export interface RollbackInProgress {
  step: RollbackStep;
  plan: RestorePlan;
  /** The snapshot taken just before the restore (the undo span's start), or null. */
  before: string | null;
}

const KEY = ROLLBACK_IN_PROGRESS_KEY;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStep(v: unknown): v is RollbackStep {
  if (!isRecord(v)) return false;
  if (v.op === 'undo') return true;
  return v.op === 'rollback' && Number.isInteger(v.index) && (v.scope === 'both' || v.scope === 'files');
}

function isPlan(v: unknown): v is RestorePlan {
  // Shape only: the restore itself refuses unsafe paths and a plan for another directory.
  return (
    isRecord(v) &&
    typeof v.workspace === 'string' &&
    typeof v.startSnapshot === 'string' &&
    Array.isArray(v.actions) &&
    v.actions.every((a) => isRecord(a) && typeof a.path === 'string') &&
    Array.isArray(v.skipped)
  );
}

/** The journaled rollback of this state, or null (none, or not in a shape this agentx wrote). */
export function rollbackInProgress(s: SessionState): RollbackInProgress | null {
  const r = s[KEY];
  if (!isRecord(r) || !isStep(r.step) || !isPlan(r.plan)) return null;
  return { step: r.step, plan: r.plan, before: typeof r.before === 'string' ? r.before : null };
}

/** The state with a rollback journaled: nothing else changes yet. */
export function beginRollback(s: SessionState, r: RollbackInProgress): SessionState {
  return { ...s, [KEY]: cloneJson(r) };
}

function withoutJournal(s: SessionState): SessionState {
  const { [KEY]: _done, ...rest } = s;
  return rest;
}

/** Ends the journal and makes the conversation change, in one transition (one write). */
export function finishRollback(s: SessionState, step: RollbackStep, undo: FileSpan | null): SessionState {
  const base = withoutJournal(s);
  if (step.op === 'undo') return withFilesUndo(undoRollback(base), undo);
  if (step.scope === 'files') return filesOnlyBackup(base, undo);
  return withFilesUndo(rollbackTo(base, step.index), undo);
}

export interface RollbackDeps {
  session: SessionHandle;
  workspace: WorkspaceFiles | undefined;
}

const NOTHING_RESTORED: RestoreResult = { restored: [], skipped: [], failed: [] };

/** Restores the journaled plan, then finishes the journal with the conversation change. */
async function complete(deps: RollbackDeps, r: RollbackInProgress): Promise<RestoreResult> {
  const ws = deps.workspace;
  let result: RestoreResult;
  try {
    result =
      ws === undefined
        ? { ...NOTHING_RESTORED, failed: r.plan.actions.map((a) => ({ path: a.path, error: 'file rollback is unavailable' })) }
        : await ws.applyRestore(r.plan);
  } catch (err) {
    // The files could not be restored (the store is busy, unreadable): the conversation change is
    // still made, so the session does not stay half rolled back; what failed is reported.
    const error = err instanceof Error ? err.message : String(err);
    result = { ...NOTHING_RESTORED, failed: r.plan.actions.map((a) => ({ path: a.path, error })) };
  }
  const after = ws !== undefined && r.before !== null ? await snapshotOrNull(ws) : null;
  const undo = r.before !== null && after !== null ? { from: r.before, to: after } : null;
  try {
    deps.session.update((s) => finishRollback(s, r.step, undo));
  } catch (err) {
    // The change no longer applies (no such checkpoint, nothing to undo): the journal goes, or
    // every later start would try again; the caller says why.
    deps.session.update(withoutJournal);
    throw err;
  }
  return result;
}

/**
 * A conversation change with a file restore, as one journaled step. The journal is written
 * (required: if it cannot reach the disk, nothing is restored) before the first file is touched.
 */
export async function journaledRollback(deps: RollbackDeps, step: RollbackStep, plan: RestorePlan): Promise<RestoreResult> {
  const before = deps.workspace === undefined ? null : await snapshotOrNull(deps.workspace);
  const r: RollbackInProgress = { step, plan, before };
  deps.session.update((s) => beginRollback(s, r), { required: true });
  return complete(deps, r);
}

/** Finishes a rollback a killed session left journaled; null when there was none. */
export async function finishInterruptedRollback(deps: RollbackDeps): Promise<{ step: RollbackStep; result: RestoreResult } | null> {
  const r = rollbackInProgress(deps.session.state);
  if (r === null) {
    // A journal in a shape this agentx cannot use is dropped, not carried forever.
    if (deps.session.state[KEY] !== undefined) deps.session.update(withoutJournal);
    return null;
  }
  return { step: r.step, result: await complete(deps, r) };
}
