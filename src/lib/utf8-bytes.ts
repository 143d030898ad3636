// Cutting UTF-8 bytes on character boundaries, so that a cut never turns into U+FFFD when the
// bytes are decoded: the head of a cut ends on a whole character, its tail starts on one. Used by
// every byte-level cut of command output (tools/output.ts, tools/exec/session-buffer.ts).

const isContinuation = (b: number): boolean => (b & 0xc0) === 0x80;

/** Length of a UTF-8 sequence left unfinished at the end of `buf` (0 when it ends on a whole character). */
function incompleteEndLength(buf: Buffer): number {
  const scan = Math.min(3, buf.length);
  for (let i = 1; i <= scan; i++) {
    const b = buf[buf.length - i] ?? 0;
    if (isContinuation(b)) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > i ? i : 0;
  }
  return 0;
}

/** Continuation bytes at the start of `buf`: the rest of a character whose lead byte was cut. */
function orphanStartLength(buf: Buffer): number {
  let n = 0;
  while (n < 3 && n < buf.length && isContinuation(buf[n] ?? 0)) n++;
  return n;
}

/** The bytes of `buf` up to its last whole character (a view, nothing copied). */
export function upToLastWholeChar(buf: Buffer): Buffer {
  return buf.subarray(0, buf.length - incompleteEndLength(buf));
}

/** The bytes of `buf` from its first whole character on (a view, nothing copied). */
export function fromFirstWholeChar(buf: Buffer): Buffer {
  return buf.subarray(orphanStartLength(buf));
}
