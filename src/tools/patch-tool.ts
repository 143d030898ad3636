// The apply_patch tool: precise file edits in the format OpenAI's models are trained on (V4A),
// offered in one of three forms (--patch-tool): the built-in `apply_patch` tool, a JSON function
// or a freeform custom tool. Parsing, matching and the all-or-nothing workspace writes live in
// tools/patch/; this module plugs them into the registry.
import type { ToolCallItem, ToolDefinition } from '../wire/items.ts';
import { formatPatch, parsePatchCall, patchCallForm, patchToolDefinition, runPatchCall, type ParsedPatch, type PatchToolForm } from './patch/index.ts';
import type { ParsedCall, Tool, ToolContext, ToolResult } from './tool.ts';
import { callRefOf, notRunReply } from './wire-output.ts';

export interface PatchCall extends ParsedCall {
  item: ToolCallItem;
  /** The call as parsed once, in `parse`: its form and operations. */
  patch: ParsedPatch;
}

export interface PatchToolOptions {
  form: PatchToolForm;
  /** The sandbox is read-only: edits are refused like any other write. */
  readOnly: boolean;
  /** Paths the sandbox hides from commands (sandboxed.ts `hides`): a patch may not change them either. */
  hidden?: (realPath: string) => boolean;
}

/** Preview lines for --confirm: the patch itself, at most this many lines. */
const PREVIEW_LINES = 60;

export function createPatchTool(opts: PatchToolOptions): Tool<PatchCall> {
  async function run(call: PatchCall, ctx: ToolContext): Promise<ToolResult> {
    if (opts.readOnly) {
      const message = 'the sandbox is read-only (--sandbox read-only): files cannot be changed';
      ctx.progress({ type: 'files_changed', callId: call.callId, tool: 'apply_patch', ok: false, changes: [], message });
      return { reply: notRunReply(callRefOf(call.item), message), summary: [`apply_patch refused: ${message}`], interrupted: false };
    }
    const result = await runPatchCall(call.patch, { root: ctx.workspaceRoot, cwd: ctx.cwd, retry: ctx.retry, ...(opts.hidden ? { hidden: opts.hidden } : {}) });
    ctx.progress({
      type: 'files_changed',
      callId: call.callId,
      tool: 'apply_patch',
      ok: result.ok,
      changes: result.ok ? result.changes : [],
      message: result.ok ? result.output : result.error.message,
    });
    return { reply: { ok: result.ok, text: result.output }, summary: [`apply_patch: ${result.output.slice(0, 400)}`], interrupted: false };
  }

  return {
    name: 'apply_patch',
    writes: true,
    definitions: (): ToolDefinition[] => [patchToolDefinition(opts.form)],
    accepts: (item) => patchCallForm(item) !== null,
    parse(item) {
      const parsed = parsePatchCall(item);
      if (!parsed.ok) return { ok: false, callId: item.call_id, error: parsed.error };
      const ops = parsed.call.operations;
      const title = ops.map((op) => (op.type === 'update' && op.moveTo !== null ? `${op.path} → ${op.moveTo}` : op.path)).join(', ');
      const lines = formatPatch(ops).split('\n');
      const preview = lines.length > PREVIEW_LINES ? [...lines.slice(0, PREVIEW_LINES), `… ${lines.length - PREVIEW_LINES} more lines`] : lines;
      return { ok: true, call: { callId: item.call_id, title: `edit ${title}`, commands: [], preview, item, patch: parsed.call } };
    },
    run,
  };
}
