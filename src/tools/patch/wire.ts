// The three wire forms of a patch call, narrowed from untyped JSON: a built-in `apply_patch_call`
// (one file operation), a `function_call` named apply_patch (`{"input": envelope}`), and a
// `custom_tool_call` named apply_patch (the envelope as raw input). The output item answering
// each form is wire-output.ts's.
import { APPLY_PATCH_NAME } from './definitions.ts';
import type { PatchToolForm } from './definitions.ts';
import { parseBuiltinOperation, parsePatch } from './parse.ts';
import type { BuiltinOperation } from './parse.ts';
import { PatchError } from './types.ts';
import type { FileOperation } from './types.ts';
import { isRecord } from '../../lib/guards.ts';

export interface PatchCall {
  form: PatchToolForm;
  callId: string;
  operations: FileOperation[];
}

export type ParsedPatchCall =
  | { ok: true; call: PatchCall }
  /** The call cannot be applied (malformed patch or arguments); answer it with `error`. */
  | { ok: false; form: PatchToolForm; callId: string; error: string };

const BUILTIN_TYPES = new Set(['create_file', 'update_file', 'delete_file']);

function isBuiltinOperation(value: unknown): value is BuiltinOperation {
  return (
    isRecord(value) &&
    typeof value.type === 'string' &&
    BUILTIN_TYPES.has(value.type) &&
    typeof value.path === 'string' &&
    (value.diff === undefined || value.diff === null || typeof value.diff === 'string')
  );
}

/** Which form a response output item is, or null when it is not an apply_patch call. */
export function patchCallForm(item: unknown): PatchToolForm | null {
  if (!isRecord(item) || typeof item.call_id !== 'string') return null;
  if (item.type === 'apply_patch_call') return 'builtin';
  if (item.type === 'function_call' && item.name === APPLY_PATCH_NAME) return 'function';
  if (item.type === 'custom_tool_call' && item.name === APPLY_PATCH_NAME) return 'custom';
  return null;
}

/** The envelope text of a function-form call's arguments. Throws PatchError. */
function functionInput(args: unknown): string {
  if (typeof args !== 'string') throw new PatchError('parse', 'the apply_patch call has no arguments');
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch (err) {
    throw new PatchError(
      'parse',
      `the arguments are not valid JSON (${err instanceof Error ? err.message : String(err)}); send {"input": "<the whole patch>"}`,
    );
  }
  if (!isRecord(parsed) || typeof parsed.input !== 'string') throw new PatchError('parse', 'the arguments need a string "input" holding the whole patch');
  return parsed.input;
}

function operationsOf(form: PatchToolForm, item: Record<string, unknown>): FileOperation[] {
  switch (form) {
    case 'builtin': {
      const op = item.operation;
      if (!isBuiltinOperation(op))
        throw new PatchError('parse', 'the apply_patch_call has no valid operation (create_file, update_file or delete_file with a path)');
      return [parseBuiltinOperation({ type: op.type, path: op.path, diff: op.diff ?? undefined })];
    }
    case 'function':
      return parsePatch(functionInput(item.arguments));
    case 'custom':
      if (typeof item.input !== 'string') throw new PatchError('parse', 'the apply_patch call has no input');
      return parsePatch(item.input);
  }
}

/** Parses an apply_patch call of any form into file operations (never throws). */
export function parsePatchCall(item: unknown): ParsedPatchCall {
  const form = patchCallForm(item);
  if (form === null || !isRecord(item)) {
    return { ok: false, form: 'builtin', callId: isRecord(item) && typeof item.call_id === 'string' ? item.call_id : '', error: 'not an apply_patch call' };
  }
  const callId = String(item.call_id);
  try {
    return { ok: true, call: { form, callId, operations: operationsOf(form, item) } };
  } catch (err) {
    return { ok: false, form, callId, error: err instanceof Error ? err.message : String(err) };
  }
}
