// HTTP answer helpers: JSON bodies, OpenAI-shaped errors and the SSE event writer.
import type { ServerResponse } from 'node:http';
import type { ApiError, WireEvent } from './wire.ts';
import { sleep } from './wire.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error.wireBody ?? { error: error.body }, error.headers);
}

/** Writes `event: <type>\ndata: <json>\n\n` frames, numbering every event from 0. */
export class SseWriter {
  private sequence = 0;
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(
    private readonly res: ServerResponse,
    private readonly signal: AbortSignal,
  ) {}

  open(headers: Record<string, string>): void {
    this.res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    this.res.flushHeaders();
  }

  /** False once the client is gone (or the emulator is closing): stop producing. */
  get alive(): boolean {
    return !this.signal.aborted && !this.res.destroyed && this.res.writable;
  }

  send(event: WireEvent): boolean {
    return this.sendFrame(event);
  }

  /** An event outside the SDK's types (the nested `error` event some servers send). */
  sendFrame(event: { type: string } & Record<string, unknown>): boolean {
    if (!this.alive) return false;
    const data = { ...event, sequence_number: this.sequence++ };
    const frame = `event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
    this.lastWrite = new Promise((resolve) => this.res.write(frame, () => resolve()));
    return true;
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flushed(): Promise<void> {
    return this.lastWrite;
  }

  async sendAfter(delayMs: number, event: WireEvent): Promise<boolean> {
    if (delayMs > 0) await sleep(delayMs, this.signal);
    return this.send(event);
  }

  end(): void {
    if (!this.res.destroyed) this.res.end();
  }

  /** Drops the connection without a terminal event, as a broken proxy would. */
  cut(): void {
    this.res.socket?.destroy();
    this.res.destroy();
  }
}
