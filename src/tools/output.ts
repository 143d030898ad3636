// Output capping shared by the pure `capOutput` and the streaming collector, so a command's
// output is cut the same way whether it arrives whole or in pipe-sized chunks.

/** The line that replaces the cut middle; the model and the user both need to see how much is gone. */
export function truncationMarker(cutBytes: number): string {
  return `\n… [${cutBytes} bytes truncated] …\n`;
}

/** The head gets the odd byte: the start of output (the command's own header lines) is read first. */
function splitBudget(maxBytes: number): { headBytes: number; tailBytes: number } {
  const headBytes = Math.ceil(maxBytes / 2);
  return { headBytes, tailBytes: maxBytes - headBytes };
}

/** NaN and negatives cap to nothing; Infinity means "no cap" and must still split into numbers. */
function normalizeMax(maxBytes: number): number {
  if (Number.isNaN(maxBytes) || maxBytes <= 0) return 0;
  return Math.floor(Math.min(maxBytes, Number.MAX_SAFE_INTEGER));
}

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

/**
 * Joins a head and a tail around the marker. Cut points are moved onto character boundaries so
 * a cut never produces U+FFFD; the bytes dropped doing so count as cut.
 */
function joinHeadTail(head: Buffer, tail: Buffer, totalBytes: number): { text: string; cutBytes: number } {
  const h = head.subarray(0, head.length - incompleteEndLength(head));
  const t = tail.subarray(orphanStartLength(tail));
  const cutBytes = totalBytes - h.length - t.length;
  return { text: h.toString('utf8') + truncationMarker(cutBytes) + t.toString('utf8'), cutBytes };
}

/**
 * Caps `text` to about `maxBytes` UTF-8 bytes, keeping head and tail (about half each) and a
 * marker saying how many bytes were cut. The marker itself is not counted against `maxBytes`.
 */
export function capOutput(text: string, maxBytes: number): { text: string; cutBytes: number } {
  const max = normalizeMax(maxBytes);
  if (Buffer.byteLength(text, 'utf8') <= max) return { text, cutBytes: 0 };
  const buf = Buffer.from(text, 'utf8');
  const { headBytes, tailBytes } = splitBudget(max);
  return joinHeadTail(buf.subarray(0, headBytes), buf.subarray(buf.length - tailBytes), buf.length);
}

/**
 * Collects one stream with bounded memory: the first half of the budget is kept as the head,
 * later bytes go through a rolling tail that drops whole chunks once enough newer bytes exist.
 * Retained memory is at most the budget plus one chunk, however much the command prints.
 */
export class OutputCollector {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(maxBytes: number) {
    const { headBytes, tailBytes } = splitBudget(normalizeMax(maxBytes));
    this.headLimit = headBytes;
    this.tailLimit = tailBytes;
  }

  get totalBytes(): number {
    return this.total;
  }

  /** Bytes currently held, for tests that check memory stays bounded. */
  get retainedBytes(): number {
    return this.headLength + this.tailLength;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headLimit) {
      const take = Math.min(this.headLimit - this.headLength, rest.length);
      // Copy: a slice would pin the whole chunk for as long as the head lives.
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailLength += rest.length;
    this.trimTail();
  }

  private trimTail(): void {
    let drop = 0;
    let length = this.tailLength;
    for (const c of this.tail) {
      if (length - c.length < this.tailLimit) break;
      length -= c.length;
      drop++;
    }
    if (drop === 0) return;
    this.tail = this.tail.slice(drop);
    this.tailLength = length;
  }

  result(): { text: string; cutBytes: number } {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.total <= this.headLimit + this.tailLimit) {
      return { text: Buffer.concat([head, tail]).toString('utf8'), cutBytes: 0 };
    }
    return joinHeadTail(head, tail.subarray(tail.length - this.tailLimit), this.total);
  }
}
