// One record of the conversation log and its line format: `<16 hex of sha256> <json>\n`, so a
// torn or altered line is told from a good one. Its own module so that prune.ts (which records to
// keep) and conversation-log.ts (the file) both use it without importing each other.
import { nodeCrypto } from '../../lib/builtins.ts';
import { isRecord } from '../../lib/guards.ts';
import { isConversationItem, type ConversationItem } from '../../wire/items.ts';

/** One exchange: the request's own items (not a replay's copy) and the response's output. */
export interface LogRecord {
  /** The response this exchange continues; null: it starts the conversation (or a compaction's new chain). */
  prev: string | null;
  response_id: string;
  input: ConversationItem[];
  output: ConversationItem[];
  /** Whether the server was asked to store the response (false: it cannot be chained from). */
  stored: boolean;
  at: string;
}

function checksum(json: string): string {
  return nodeCrypto().createHash('sha256').update(json).digest('hex').slice(0, 16);
}

export function encodeRecord(record: LogRecord): string {
  const json = JSON.stringify(record);
  return `${checksum(json)} ${json}\n`;
}

/** A line read back, or null when it is torn, altered or not a record of ours. */
export function decodeRecord(line: string): LogRecord | null {
  const space = line.indexOf(' ');
  if (space !== 16) return null;
  const json = line.slice(17);
  if (checksum(json) !== line.slice(0, 16)) return null;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isRecord(v) || typeof v.response_id !== 'string' || !(v.prev === null || typeof v.prev === 'string')) return null;
  if (!Array.isArray(v.input) || !Array.isArray(v.output) || typeof v.stored !== 'boolean' || typeof v.at !== 'string') return null;
  if (!v.input.every(isConversationItem) || !v.output.every(isConversationItem)) return null;
  return { prev: v.prev, response_id: v.response_id, input: v.input, output: v.output, stored: v.stored, at: v.at };
}

/**
 * A tool call's output, logged when the call completes (store/journal-outputs.ts): the session
 * file's journal points here instead of carrying the output. Written as an ordinary record (so
 * an earlier agentx reading this log keeps it as one): `prev` is the response that asked for the
 * call, `input` the output item alone, and its id says what it is. Nothing continues it, and no
 * replay reaches it: the output goes to the server with the next request, whose record holds it.
 */
const OUTPUT_ID_PREFIX = 'agentx-output:';

export function outputRecordId(responseId: string | null, callId: string): string {
  return `${OUTPUT_ID_PREFIX}${responseId ?? '-'}:${callId}`;
}

export function isOutputRecord(record: LogRecord): boolean {
  return record.response_id.startsWith(OUTPUT_ID_PREFIX);
}
