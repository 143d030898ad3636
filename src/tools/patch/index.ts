// The apply_patch tool's library: V4A parsing, hunk application, the workspace applier, the
// exactly-once check, the three wire forms and what the model is told. See the README, "Editing files: apply_patch".
export { PatchError, newSide, oldSide } from './types.ts';
export type { FileOperation, Hunk, HunkLine, PatchErrorKind } from './types.ts';
export { parseBuiltinOperation, parsePatch } from './parse.ts';
export type { BuiltinOperation } from './parse.ts';
export { applyHunks, describeHunk, reverseHunks } from './apply.ts';
export type { Applied, ApplyOptions, Edit } from './apply.ts';
export { countChanges, diffLines, refineEdits, unifiedDiff } from './diff.ts';
export { addedFileText, joinLines, splitLines } from './text.ts';
export { DEFAULT_MAX_BYTES } from './fsio.ts';
export { isInside, resolvePatchPath, workspaceRoots } from './paths.ts';
export type { FileChange } from './plan.ts';
export { applyPatch, failureOutput, successOutput, summaryLine } from './run.ts';
export type { PatchOptions, PatchResult } from './run.ts';
export { alreadyApplied, preImage } from './applied.ts';
export type { AppliedCheck } from './applied.ts';
export { formatPatch, toBuiltinOperation } from './serialize.ts';
export { parsePatchCall, patchCallForm } from './wire.ts';
export type { ParsedPatchCall, PatchCall as ParsedPatch } from './wire.ts';
export {
  APPLY_PATCH_NAME,
  CUSTOM_DESCRIPTION,
  FUNCTION_DESCRIPTION,
  FUNCTION_PARAMETERS,
  LARK_GRAMMAR,
  PATCH_TOOL_FORMS,
  patchToolDefinition,
} from './definitions.ts';
export type { PatchToolDefinition, PatchToolForm } from './definitions.ts';
export { runPatchCall } from './call.ts';
