// Output capping shared by the pure `capOutput` and the streaming collector, so a command's
// output is cut the same way whether it arrives whole or in pipe-sized chunks. Where to cut is
// lib/text.ts's `keepEnds`; this file only says how a cut shows and keeps bytes for it.
import { cutMiddle, headShare, keepEnds, type Cut, type CutStyle, type TextEnds } from '../lib/text.ts';
import { fromFirstWholeChar, upToLastWholeChar } from '../lib/utf8-bytes.ts';

/** The line that replaces the cut middle; the model and the user both need to see how much is gone. */
export function truncationMarker(cutBytes: number): string {
  return `\n… [${cutBytes} bytes truncated] …\n`;
}

// The cap is per stream (stdout and stderr each get `maxBytes`) and limits the command's own
// bytes; the marker is the agent's note about them, so it comes on top and is not counted.
const OUTPUT_CUT: CutStyle = { marker: truncationMarker, markerInBudget: false };

/** Moving a head cut back onto a character boundary frees at most 3 bytes, which the tail may use. */
const MAX_HEAD_SLACK = 3;

/** NaN and negatives cap to nothing; Infinity means "no cap" and must still split into numbers. */
function normalizeMax(maxBytes: number): number {
  if (Number.isNaN(maxBytes) || maxBytes <= 0) return 0;
  return Math.floor(Math.min(maxBytes, Number.MAX_SAFE_INTEGER));
}

/**
 * Caps `text` to `maxBytes` UTF-8 bytes, keeping head and tail (about half each) and a marker
 * saying how many bytes were cut. The marker itself is not counted against `maxBytes`.
 */
export function capOutput(text: string, maxBytes: number): Cut {
  return cutMiddle(text, normalizeMax(maxBytes), OUTPUT_CUT);
}

/**
 * Collects one stream with bounded memory: the head's share of the budget is kept as the head,
 * later bytes go through a rolling tail that drops whole chunks once enough newer bytes exist.
 * Retained memory is at most the budget plus 3 bytes plus one chunk, however much the command
 * prints. The cut itself is `keepEnds` over these kept bytes, so it equals `capOutput`'s.
 */
export class OutputCollector {
  private readonly max: number;
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(maxBytes: number) {
    this.max = normalizeMax(maxBytes);
    this.headLimit = headShare(this.max);
    // The tail keeps what keepEnds may ask of it: the rest of the budget and the head's slack.
    this.tailLimit = this.max - this.headLimit + MAX_HEAD_SLACK;
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

  result(): Cut {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    // Until the tail has dropped a chunk every byte is here, and the tail may reach into the head.
    const rest = this.total === head.length + tail.length ? Buffer.concat([head, tail]) : tail;
    const ends: TextEnds<Buffer> = {
      totalBytes: this.total,
      head: (n) => upToLastWholeChar(head.subarray(0, n)),
      tail: (n) => fromFirstWholeChar(rest.subarray(Math.max(0, rest.length - n))),
      bytes: (part) => part.length,
    };
    const kept = keepEnds(ends, this.max);
    // Output within the cap never made the tail drop a chunk, so `rest` is all of it.
    if (kept === null) return { text: rest.toString('utf8'), cutBytes: 0 };
    return { text: kept.head.toString('utf8') + OUTPUT_CUT.marker(kept.cutBytes) + kept.tail.toString('utf8'), cutBytes: kept.cutBytes };
  }
}
