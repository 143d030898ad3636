// Reading a one-shot's piped input (README "Standard input"). Piped data is the user's:
// it is read to EOF, never cut short by a timer once it has started to arrive. Only a pipe that
// gives nothing at all (neither data nor EOF) is given up on, and only when the message came on
// the command line, so a wrapper that leaves a pipe open (`agentx "hi" < <(sleep 100)`) does not
// hang the answer. A terminal is never read unless the user asked for it with `agentx -`.

import { durationText, formatBytes } from '../lib/text.ts';

export interface StdinReadOptions {
  /** A message was given on the command line (without `-`): an idle pipe may be ignored. */
  messageGiven: boolean;
  /** How long an idle pipe (no data, no EOF) is waited for when a message was given. */
  graceMs: number;
  /** A read still going after this long gets one progress note. */
  progressAfterMs: number;
  /** More than this many bytes is refused (the request could not carry it anyway). */
  maxBytes: number;
  /** One-line notes for the user (stderr in the one-shot). */
  note: (message: string) => void;
}

export type StdinResult =
  | { kind: 'read'; text: string }
  /** Nothing arrived within the grace: the message goes without it. `lateData` is set if data comes later. */
  | { kind: 'ignored'; lateData: () => boolean }
  /** Reading failed (e.g. EBADF: `nohup` gives a write-only stdin): treated as no input. */
  | { kind: 'unreadable'; reason: string }
  | { kind: 'too_large'; bytes: number };

/** Errors that mean "there is no usable stdin" rather than "the read broke halfway". */
function describeError(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return code ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Reads `stream` per the rules above. Never rejects: every outcome is a result the caller can
 * explain in one line. The stream is released (paused, unref'd) once the decision is made, so
 * an abandoned pipe cannot keep the process alive.
 */
export function readPipedInput(stream: NodeJS.ReadableStream & { unref?: () => void }, opts: StdinReadOptions): Promise<StdinResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    let late = false;
    const timers: NodeJS.Timeout[] = [];
    const release = (): void => {
      for (const t of timers) clearTimeout(t);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const settle = (result: StdinResult): void => {
      if (settled) return;
      settled = true;
      release();
      resolve(result);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.length;
      if (bytes > opts.maxBytes) {
        stream.pause();
        settle({ kind: 'too_large', bytes });
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => settle({ kind: 'read', text: Buffer.concat(chunks).toString('utf8') });
    const onError = (err: unknown): void => settle({ kind: 'unreadable', reason: describeError(err) });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
    if (opts.messageGiven) {
      timers.push(
        setTimeout(() => {
          if (bytes > 0) return;
          // Keep listening, unref'd: data that turns up later is reported instead of lost in silence.
          release();
          settled = true;
          stream.on('data', () => {
            late = true;
          });
          stream.on('error', () => undefined);
          if (typeof stream.unref === 'function') stream.unref();
          resolve({ kind: 'ignored', lateData: () => late });
        }, opts.graceMs),
      );
    }
    timers.push(
      setTimeout(() => {
        opts.note(`reading stdin until it is closed (${formatBytes(bytes)} so far; Ctrl-C to stop)…`);
      }, opts.progressAfterMs),
    );
  });
}

export const STDIN_PROGRESS_AFTER_MS = 1000;

/** What a one-shot sends: the command-line words, a blank line, then the piped text (each trimmed). */
export function combineMessage(argument: string, piped: string): string {
  return [argument.trim(), piped.trim()].filter((s) => s.length > 0).join('\n\n');
}

export interface MessageSource {
  /** The command-line words joined (may be empty). */
  argument: string;
  /** `agentx -`: stdin was asked for explicitly (read to EOF, even from a terminal). */
  dash: boolean;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; unref?: () => void };
  graceMs: number;
  maxBytes: number;
  note: (message: string) => void;
}

/**
 * The one-shot's message, or a one-line reason it has none. `onLateData` is for the caller to
 * check before exiting: true when an ignored pipe delivered data after all (worth a warning).
 */
export async function messageFromInput(src: MessageSource): Promise<{ message: string; lateData: () => boolean } | { error: string }> {
  const argument = src.argument.trim();
  const readsStdin = src.dash || src.stdin.isTTY !== true;
  let piped = '';
  let lateData = (): boolean => false;
  if (readsStdin) {
    const result = await readPipedInput(src.stdin, {
      messageGiven: argument !== '' && !src.dash,
      graceMs: src.graceMs,
      progressAfterMs: STDIN_PROGRESS_AFTER_MS,
      maxBytes: src.maxBytes,
      note: src.note,
    });
    if (result.kind === 'too_large') {
      return { error: `stdin holds more than ${formatBytes(src.maxBytes)} (AGENTX_MAX_STDIN_BYTES); send a smaller excerpt` };
    }
    if (result.kind === 'unreadable' && argument === '') return { error: `cannot read stdin (${result.reason}) and no message was given` };
    if (result.kind === 'ignored') {
      src.note(`nothing on stdin within ${durationText(src.graceMs)}; answering without it (use \`agentx - "…"\` to wait for stdin)`);
      lateData = result.lateData;
    }
    if (result.kind === 'read') piped = result.text;
  }
  const message = combineMessage(argument, piped);
  if (message === '') return { error: 'empty message: give it as an argument or on stdin' };
  return { message, lateData };
}
