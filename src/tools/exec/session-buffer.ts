// A session's output between two reads, in fixed memory: the first HEAD bytes and a ring of the
// last TAIL bytes; what falls between is counted and dropped. Every byte is copied in, so the
// caller may hand in a view of a buffer it reuses (process.ts reads pipes into one static buffer
// per session): a flood of output allocates nothing per chunk, which is what keeps agentx's RSS
// flat under 10 busy sessions or a 1 GB flood (bench/exec.mjs).
import { fromFirstWholeChar, upToLastWholeChar } from '../../lib/utf8-bytes.ts';
import { truncationMarker } from '../output.ts';

export interface BufferRead {
  /** Head, the marker with the count, and tail when something was cut; otherwise all of it. */
  text: string;
  cutBytes: number;
  totalBytes: number;
}

export class SessionBuffer {
  private head: Buffer | undefined;
  private headLength = 0;
  private ring: Buffer | undefined;
  /** Where the oldest byte of the ring is, and how many it holds. */
  private ringStart = 0;
  private ringLength = 0;
  private total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  get totalBytes(): number {
    return this.total;
  }

  /** Bytes held now (at most headBytes + tailBytes, however much was pushed). */
  get retainedBytes(): number {
    return this.headLength + this.ringLength;
  }

  /** Copies `chunk` in; `chunk` may be reused by the caller as soon as this returns. */
  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headBytes) {
      // Allocated on first use, at full size: allocUnsafe of this size is mapped memory, and only
      // the pages written count towards RSS.
      this.head ??= Buffer.allocUnsafe(this.headBytes);
      const take = Math.min(this.headBytes - this.headLength, rest.length);
      this.head.set(rest.subarray(0, take), this.headLength);
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.pushTail(rest);
  }

  private pushTail(bytes: Uint8Array): void {
    const size = this.tailBytes;
    if (size === 0) return;
    this.ring ??= Buffer.allocUnsafe(size);
    // Only the last `size` bytes can survive.
    const src = bytes.length > size ? bytes.subarray(bytes.length - size) : bytes;
    let at = (this.ringStart + this.ringLength) % size;
    let from = 0;
    while (from < src.length) {
      const n = Math.min(size - at, src.length - from);
      this.ring.set(src.subarray(from, from + n), at);
      from += n;
      at = (at + n) % size;
    }
    const length = this.ringLength + src.length;
    if (length > size) this.ringStart = (this.ringStart + length - size) % size;
    this.ringLength = Math.min(length, size);
  }

  private tailCopy(): Buffer {
    if (!this.ring || this.ringLength === 0) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(this.ringLength);
    const first = Math.min(this.ringLength, this.tailBytes - this.ringStart);
    this.ring.copy(out, 0, this.ringStart, this.ringStart + first);
    if (first < this.ringLength) this.ring.copy(out, first, 0, this.ringLength - first);
    return out;
  }

  /** The ring's bytes as text, without taking them (from the first whole character). */
  peekTail(): string {
    return fromFirstWholeChar(this.tailCopy()).toString('utf8');
  }

  /** Everything since the last take (cut in the middle when it did not fit), then empty; the memory is given back. */
  take(): BufferRead {
    const head = this.head ? this.head.subarray(0, this.headLength) : Buffer.alloc(0);
    const tail = this.tailCopy();
    const cutBytes = this.total - this.headLength - this.ringLength;
    const text =
      cutBytes === 0
        ? Buffer.concat([head, tail]).toString('utf8')
        : upToLastWholeChar(head).toString('utf8') + truncationMarker(cutBytes) + fromFirstWholeChar(tail).toString('utf8');
    const read = { text, cutBytes, totalBytes: this.total };
    this.head = undefined;
    this.ring = undefined;
    this.headLength = 0;
    this.ringStart = 0;
    this.ringLength = 0;
    this.total = 0;
    return read;
  }
}
