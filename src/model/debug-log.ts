// --debug: request bodies, stream events and errors as JSONL under ~/.agentx-logs/ (mode 0600).
// Headers are never logged; anything that looks like a key is redacted as a second line of defence.
import { appendFileSync, mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode, fileStamp } from '../lib/fsutil.ts';

const SECRET_PATTERNS = [/sk-[A-Za-z0-9_-]{8,}/g, /Bearer\s+[A-Za-z0-9._-]+/gi];

export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  for (const re of SECRET_PATTERNS) out = out.replace(re, '[REDACTED]');
  return out;
}

/** Base64 blobs (generated images, attached images as data URLs) are logged by size only. */
const BLOB_MIN_CHARS = 1024;
const BASE64 = /^[A-Za-z0-9+/=\r\n]+$/;

function shortenBlobs(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length < BLOB_MIN_CHARS) return value;
  const data = /^data:([\w/+.-]+);base64,/.exec(value);
  if (data) return `data:${data[1] ?? ''};base64,[${value.length - data[0].length} base64 characters]`;
  return BASE64.test(value) ? `[${value.length} base64 characters]` : value;
}

/**
 * Never throws: --debug is a diagnosis aid, and a log that cannot be written (full disk,
 * read-only home) must not fail a request. The first problem is reported once through `warn`,
 * then logging stops. `path` is undefined when the log could not even be created.
 */
export function createDebugLog(
  dir: string,
  secrets: string[],
  now: Date = new Date(),
  warn: (message: string) => void = () => undefined,
): { path: string | undefined; log: (kind: string, data: unknown) => void } {
  const path = join(dir, `agentx-${fileStamp(now)}-${process.pid}.jsonl`);
  let broken = false;
  const fail = (err: unknown): void => {
    broken = true;
    const code = errorCode(err) ?? (err instanceof Error ? err.message : String(err));
    warn(`--debug: cannot write ${path} (${code}); continuing without the debug log`);
  };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    fail(err);
    return { path: undefined, log: () => undefined };
  }
  return {
    path,
    log(kind, data) {
      if (broken) return;
      try {
        const line = JSON.stringify({ t: new Date().toISOString(), kind, data }, shortenBlobs);
        appendFileSync(path, `${redact(line, secrets)}\n`, { mode: 0o600 });
      } catch (err) {
        fail(err);
      }
    },
  };
}
