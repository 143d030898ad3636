// What a front-end shows of a patch call (summary lines, +N -M, the diff text) and what the
// --json event carries. Plain data: colouring and folding are the renderer's business.
import type { PatchToolForm } from './definitions.ts';
import type { FileChange } from './plan.ts';
import { summaryLine } from './run.ts';
import type { PatchResult } from './run.ts';
import type { FileOperation } from './types.ts';

export interface PatchFileEvent {
  operation: FileChange['operation'];
  path: string;
  move_path: string | null;
  /** Null when the patch failed (nothing changed). */
  added: number | null;
  removed: number | null;
}

export interface PatchEventData {
  call_id: string;
  form: PatchToolForm;
  status: 'completed' | 'failed';
  files: PatchFileEvent[];
  added: number;
  removed: number;
  error: string | null;
}

function plannedFile(op: FileOperation): PatchFileEvent {
  const operation = op.type === 'update' && op.moveTo !== null ? 'move' : op.type;
  return { operation, path: op.path, move_path: op.type === 'update' ? op.moveTo : null, added: null, removed: null };
}

/**
 * The --json event of one patch call. `operations` are the parsed operations (empty when the
 * patch did not parse), used to name the files of a failed call.
 */
export function patchEventData(callId: string, form: PatchToolForm, operations: readonly FileOperation[], result: PatchResult): PatchEventData {
  if (!result.ok) {
    return { call_id: callId, form, status: 'failed', files: operations.map(plannedFile), added: 0, removed: 0, error: result.error.message };
  }
  const files = result.changes.map((c) => ({ operation: c.operation, path: c.path, move_path: c.movePath, added: c.added, removed: c.removed }));
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  return { call_id: callId, form, status: 'completed', files, added, removed, error: null };
}

export interface PatchFileDisplay {
  /** "Updated src/a.ts (+3 -1)" */
  summary: string;
  added: number;
  removed: number;
  /** Plain unified diff ('' for a binary deletion or a pure rename). */
  diff: string;
}

export type PatchDisplay = { ok: true; files: PatchFileDisplay[] } | { ok: false; error: string };

/** The terminal's view of a patch result, before colouring. */
export function patchDisplay(result: PatchResult): PatchDisplay {
  if (!result.ok) return { ok: false, error: result.error.message };
  return { ok: true, files: result.changes.map((c) => ({ summary: summaryLine(c), added: c.added, removed: c.removed, diff: c.diff })) };
}
