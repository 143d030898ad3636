// One parsed apply_patch call from end to end, for the tool adapter: apply it in the workspace (or,
// on a retry after a crash, first check what is already applied) and say what happened (the
// adapter replies with it; wire-output.ts makes the output item of the call's form). The
// call is parsed once, by the adapter's `parse` (wire.ts parsePatchCall); a call that does not
// parse never gets here: the registry answers it as not run.
import { alreadyApplied } from './applied.ts';
import { applyPatch } from './run.ts';
import type { PatchOptions, PatchResult } from './run.ts';
import type { FileOperation } from './types.ts';
import type { PatchCall } from './wire.ts';

function target(op: FileOperation): string {
  return op.type === 'update' && op.moveTo !== null ? `${op.path} -> ${op.moveTo}` : op.path;
}

async function apply(operations: FileOperation[], opts: PatchOptions & { retry?: boolean }): Promise<PatchResult> {
  if (!opts.retry) return applyPatch(operations, opts);
  const check = await alreadyApplied(operations, opts);
  const done = operations.filter((_, i) => check.operations[i]);
  const pending = operations.filter((_, i) => !check.operations[i]);
  if (pending.length === 0) {
    const output = `Already applied (agentx stopped after applying this patch, before reporting it): ${operations.map(target).join(', ')}`;
    return { ok: true, changes: [], output };
  }
  const result = await applyPatch(pending, opts);
  if (done.length === 0) return result;
  const note = `Already applied before agentx stopped: ${done.map(target).join(', ')}`;
  return { ...result, output: `${note}\n${result.output}` };
}

/**
 * Runs one parsed patch call. `retry`: the call was journaled as started but never completed
 * (agentx stopped); operations already on disk are not applied again, and when all are, the call
 * is answered as already applied.
 */
export function runPatchCall(call: PatchCall, opts: PatchOptions & { retry?: boolean }): Promise<PatchResult> {
  return apply(call.operations, opts);
}
