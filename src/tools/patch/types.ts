// The typed form of a V4A patch: what the parser produces and the appliers consume.

/** One line of a hunk body: ' ' context, '-' removed, '+' added. */
export interface HunkLine {
  kind: 'context' | 'delete' | 'insert';
  text: string;
}

/**
 * One hunk (V4A "chunk"): optional `@@` anchors, searched in order, then the lines. The old side
 * (context + deleted lines) must be found in the file; it is replaced by the new side.
 */
export interface Hunk {
  /** `@@ text` anchors in order (a bare `@@` adds none). */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File`: the old side must end at the last line of the file. */
  endOfFile: boolean;
  /** 1-based line of the patch text where the hunk starts (for error messages). */
  patchLine: number;
}

export type FileOperation =
  | { type: 'add'; path: string; lines: string[] }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo: string | null; hunks: Hunk[] };

export type PatchErrorKind =
  | 'parse' // malformed patch text
  | 'match' // a hunk or anchor not found, or ambiguous
  | 'path' // a path outside the workspace or otherwise unusable
  | 'missing' // a file to update or delete does not exist
  | 'not_text' // binary file, invalid UTF-8, or a directory
  | 'too_large' // a file over the size cap
  | 'io'; // the disk refused (permissions, disk full…)

/** A failure the model can act on: the message names the line, file or hunk concerned. */
export class PatchError extends Error {
  readonly kind: PatchErrorKind;

  constructor(kind: PatchErrorKind, message: string) {
    super(message);
    this.name = 'PatchError';
    this.kind = kind;
  }
}

export function oldSide(hunk: Hunk): string[] {
  const out: string[] = [];
  for (const line of hunk.lines) if (line.kind !== 'insert') out.push(line.text);
  return out;
}

export function newSide(hunk: Hunk): string[] {
  const out: string[] = [];
  for (const line of hunk.lines) if (line.kind !== 'delete') out.push(line.text);
  return out;
}
