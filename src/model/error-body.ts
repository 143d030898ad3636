// The reason in an HTTP error body that is not OpenAI's `{"error": {"message": …}}`. The SDK reads
// only that shape: vLLM's `{"object": "error", "message": …}` and FastAPI's `{"detail": …}` became
// "400 status code (no body)", and a proxy's HTML page (nginx's 502) was shown tag by tag. Here
// each becomes one short line, scrubbed of the API key before it is clipped (so no part of a key
// survives a cut) and with escape sequences and other controls removed. The status, and so the
// retry policy, is untouched: only the words change.
import { STATUS_CODES } from 'node:http';
import { isRecord } from '../lib/guards.ts';
import { cleanServerText } from '../lib/text.ts';
import { redact } from './debug-log.ts';

/** The longest reason taken from a body (the SDK puts the status before it). */
export const ERROR_BODY_CHARS = 200;

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** FastAPI's validation problem: `body.input.0: Field required`. */
function validationProblem(item: unknown): string {
  if (!isRecord(item)) return JSON.stringify(item);
  const loc = Array.isArray(item.loc) ? item.loc.filter((p) => typeof p === 'string' || typeof p === 'number').join('.') : '';
  const msg = text(item.msg) ?? JSON.stringify(item);
  return loc === '' ? msg : `${loc}: ${msg}`;
}

/** What a JSON body says, for the shapes the SDK does not read; undefined for OpenAI's own shape. */
function jsonReason(body: Record<string, unknown>): string | undefined {
  if (isRecord(body.error)) return undefined;
  // `{"error": "…"}`: Ollama, text-generation-inference and others.
  const error = text(body.error);
  if (error !== undefined) return error;
  const message = text(body.message);
  if (message !== undefined) return message;
  const detail = body.detail;
  if (text(detail) !== undefined) return detail as string;
  if (Array.isArray(detail) && detail.length > 0) {
    return `${validationProblem(detail[0])}${detail.length > 1 ? ` (+${detail.length - 1} more)` : ''}`;
  }
  return JSON.stringify(body);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(html: string): string {
  return html.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The text a page shows: its title, or else its words without scripts, styles, comments and tags. */
function pageText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const words = (title ?? html)
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntities(words);
}

function looksLikeHtml(body: string, contentType: string | undefined): boolean {
  return /\bhtml\b/i.test(contentType ?? '') || /^\s*<(!doctype\s+html|html|head|body|title)\b/i.test(body);
}

/**
 * The reason to show for an error response, or undefined when the SDK's own reading is right
 * (OpenAI's shape, an empty body). `json` is the body when it parsed, `raw` its text otherwise.
 */
export function errorBodyReason(
  status: number,
  json: unknown,
  raw: string | undefined,
  contentType: string | undefined,
  secrets: string[],
): string | undefined {
  const clean = (s: string): string => cleanServerText(redact(s, secrets), ERROR_BODY_CHARS);
  if (isRecord(json)) {
    const reason = jsonReason(json);
    return reason === undefined ? undefined : clean(reason);
  }
  if (json !== undefined && json !== null) return clean(typeof json === 'string' ? json : JSON.stringify(json));
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!looksLikeHtml(raw, contentType)) return clean(raw);
  const shown = clean(pageText(raw));
  const what = `${STATUS_CODES[status] ?? 'error'} (an HTML page from the server or a proxy`;
  return shown === '' ? `${what})` : `${what}: ${shown})`;
}
