// How the fake model sends a patch: as built-in `apply_patch_call` items (one per file), as a
// `function_call` named apply_patch with {"input": envelope}, or as a freeform
// `custom_tool_call` named apply_patch, whichever the request's tools offer. The envelope is
// split into file operations here with a few lines of our own (not agentx's parser), so the
// emulator stays an independent witness of the wire format.
import { asRecords, asString, isRecord } from './wire.ts';

export type PatchFlavour = 'builtin' | 'function' | 'custom' | 'none';

export type BuiltinPatchOperation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string }
  | { type: 'delete_file'; path: string };

export const NO_PATCH_TEXT = 'I cannot edit files here: this request offers no apply_patch tool.';
export const NO_MOVE_TEXT = 'I cannot send this patch as built-in apply_patch calls: it moves a file (*** Move to:).';
const PATCH_NAME = 'apply_patch';

/** Which form a patch takes, from the request's tools (the built-in tool first). */
export function patchFlavour(tools: unknown[]): PatchFlavour {
  const records = tools.filter(isRecord);
  if (records.some((t) => t.type === 'apply_patch')) return 'builtin';
  if (records.some((t) => t.type === 'custom' && t.name === PATCH_NAME)) return 'custom';
  if (records.some((t) => t.type === 'function' && t.name === PATCH_NAME)) return 'function';
  return 'none';
}

const HEADER = /^\*\*\* (Add|Delete|Update) File: (.+)$/;

/** The per-file operations of an envelope, or a reason it cannot be sent as built-in calls. */
export function splitPatch(envelope: string): BuiltinPatchOperation[] | string {
  const lines = envelope.split(/\r?\n/);
  const begin = lines.findIndex((l) => l.trim() === '*** Begin Patch');
  const end = lines.findLastIndex((l) => l.trim() === '*** End Patch');
  if (begin < 0 || end <= begin) return 'the patch has no *** Begin Patch … *** End Patch envelope';
  const ops: BuiltinPatchOperation[] = [];
  let current: { kind: string; path: string; body: string[] } | null = null;
  const flush = (): string | null => {
    if (!current) return null;
    const diff = current.body.length > 0 ? `${current.body.join('\n')}\n` : '';
    if (current.kind === 'Delete') ops.push({ type: 'delete_file', path: current.path });
    else if (current.body[0]?.startsWith('*** Move to:')) return NO_MOVE_TEXT;
    else ops.push({ type: current.kind === 'Add' ? 'create_file' : 'update_file', path: current.path, diff });
    return null;
  };
  for (const line of lines.slice(begin + 1, end)) {
    const header = HEADER.exec(line.trim());
    if (header) {
      const problem = flush();
      if (problem) return problem;
      current = { kind: header[1] ?? '', path: (header[2] ?? '').trim(), body: [] };
    } else if (current) current.body.push(line);
  }
  return flush() ?? ops;
}

/** The last `*** Begin Patch` … `*** End Patch` block of a user message (the default brain's directive). */
export function requestedPatch(text: string): string | null {
  const end = text.lastIndexOf('*** End Patch');
  const begin = end < 0 ? -1 : text.lastIndexOf('*** Begin Patch', end);
  return begin < 0 ? null : `${text.slice(begin, end + '*** End Patch'.length)}\n`;
}

/** What the default brain reports of an apply_patch output (or null for other items). */
export function patchOutputText(item: Record<string, unknown>): string | null {
  if (item.type === 'apply_patch_call_output') return `apply_patch ${asString(item.status) ?? '?'}: ${asString(item.output) ?? ''}`;
  if (item.type === 'custom_tool_call_output') {
    return typeof item.output === 'string'
      ? item.output
      : asRecords(item.output)
          .map((p) => asString(p.text) ?? '')
          .join('');
  }
  return null;
}
