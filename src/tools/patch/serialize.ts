// Writing operations back as V4A text: the whole envelope, or the headerless diff of one
// built-in operation. parsePatch(formatPatch(ops)) gives back the same operations.
import type { BuiltinOperation } from './parse.ts';
import type { FileOperation, Hunk } from './types.ts';

const PREFIX = { context: ' ', delete: '-', insert: '+' } as const;

function hunkLines(hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  for (const [i, hunk] of hunks.entries()) {
    if (hunk.anchors.length === 0 && i > 0) out.push('@@');
    for (const anchor of hunk.anchors) out.push(`@@ ${anchor}`);
    for (const line of hunk.lines) out.push(`${PREFIX[line.kind]}${line.text}`);
    if (hunk.endOfFile) out.push('*** End of File');
  }
  return out;
}

function sectionLines(op: FileOperation): string[] {
  switch (op.type) {
    case 'add':
      return [`*** Add File: ${op.path}`, ...op.lines.map((l) => `+${l}`)];
    case 'delete':
      return [`*** Delete File: ${op.path}`];
    case 'update':
      return [`*** Update File: ${op.path}`, ...(op.moveTo === null ? [] : [`*** Move to: ${op.moveTo}`]), ...hunkLines(op.hunks)];
  }
}

/** The envelope (`*** Begin Patch` … `*** End Patch`) holding these operations. */
export function formatPatch(ops: readonly FileOperation[]): string {
  return `${['*** Begin Patch', ...ops.flatMap(sectionLines), '*** End Patch'].join('\n')}\n`;
}

/**
 * The built-in `apply_patch_call` operation for one file operation, or null for a move (the
 * built-in tool has no move operation).
 */
export function toBuiltinOperation(op: FileOperation): BuiltinOperation | null {
  switch (op.type) {
    case 'add':
      return { type: 'create_file', path: op.path, diff: op.lines.map((l) => `+${l}\n`).join('') };
    case 'delete':
      return { type: 'delete_file', path: op.path };
    case 'update':
      return op.moveTo === null ? { type: 'update_file', path: op.path, diff: `${hunkLines(op.hunks).join('\n')}\n` } : null;
  }
}
