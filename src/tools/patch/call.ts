// One apply_patch call from end to end, for the tool adapter: parse the item (any form), apply it
// in the workspace (or, on a retry after a crash, first check what is already applied), and
// build everything the engine needs — the output item, the --json event and the display data.
import { alreadyApplied } from './applied.ts';
import type { PatchToolForm } from './definitions.ts';
import { patchDisplay, patchEventData } from './report.ts';
import type { PatchDisplay, PatchEventData } from './report.ts';
import { applyPatch, failureOutput } from './run.ts';
import type { PatchOptions, PatchResult } from './run.ts';
import type { FileOperation } from './types.ts';
import { parsePatchCall, patchCallForm, patchOutputItem } from './wire.ts';
import type { PatchOutputItem } from './wire.ts';

export interface PatchCallOutcome {
  form: PatchToolForm;
  callId: string;
  /** The parsed operations (empty when the patch did not parse). */
  operations: FileOperation[];
  result: PatchResult;
  /** The input item answering the call. */
  output: PatchOutputItem;
  event: PatchEventData;
  display: PatchDisplay;
}

function outcome(form: PatchToolForm, callId: string, operations: FileOperation[], result: PatchResult): PatchCallOutcome {
  return {
    form, callId, operations, result,
    output: patchOutputItem(form, callId, result),
    event: patchEventData(callId, form, operations, result),
    display: patchDisplay(result),
  };
}

function target(op: FileOperation): string {
  return op.type === 'update' && op.moveTo !== null ? `${op.path} -> ${op.moveTo}` : op.path;
}

/**
 * Runs one patch call. `retry`: the call was journaled as started but never completed (agentx
 * stopped); operations already on disk are not applied again, and when all are, the call is
 * answered as already applied.
 */
export async function runPatchCall(item: unknown, opts: PatchOptions & { retry?: boolean }): Promise<PatchCallOutcome> {
  const parsed = parsePatchCall(item);
  if (!parsed.ok) {
    const form = patchCallForm(item) ?? parsed.form;
    return outcome(form, parsed.callId, [], { ok: false, error: { kind: 'parse', message: parsed.error }, output: failureOutput(parsed.error) });
  }
  const { form, callId, operations } = parsed.call;
  if (!opts.retry) return outcome(form, callId, operations, await applyPatch(operations, opts));
  const check = await alreadyApplied(operations, opts);
  const done = operations.filter((_, i) => check.operations[i]);
  const pending = operations.filter((_, i) => !check.operations[i]);
  if (pending.length === 0) {
    const output = `Already applied (agentx stopped after applying this patch, before reporting it): ${operations.map(target).join(', ')}`;
    return outcome(form, callId, operations, { ok: true, changes: [], output });
  }
  const result = await applyPatch(pending, opts);
  if (done.length === 0) return outcome(form, callId, operations, result);
  const note = `Already applied before agentx stopped: ${done.map(target).join(', ')}`;
  return outcome(form, callId, operations, { ...result, output: `${note}\n${result.output}` });
}
