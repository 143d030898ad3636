// `.agentx_checkpoint`: the shared branch point one-shots start from (SPEC §3.2). Pure.

import { MAX_STATE_FILE_BYTES } from './types.ts';
import type { SessionState, Usage } from './types.ts';
import { isRecord, normalizeUsage } from './normalize.ts';
import { isPlainResponseId, isResponseId } from '../lib/text.ts';

export interface Checkpoint {
  version: 1;
  response_id: string;
  timestamp: string;
  usage: Usage;
  source: 'turn' | 'rollback';
}

export type CheckpointParseResult = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string };

function checkpointOf(responseId: string, timestamp: string, usage: Usage, source: Checkpoint['source']): Checkpoint {
  return { version: 1, response_id: responseId, timestamp, usage, source };
}

/**
 * Also reads what the public AgentX CLI wrote there (its state format, no version, input
 * tokens without cached ones) and a bare response id, so an upgrade keeps the branch point.
 */
function fromObject(raw: Record<string, unknown>): CheckpointParseResult {
  const id = raw.response_id;
  if (!isResponseId(id)) return { ok: false, reason: 'no valid response_id' };
  if (raw.version !== undefined && raw.version !== 1) return { ok: false, reason: 'unknown format version' };
  const usage = normalizeUsage(raw.usage);
  if (raw.version === undefined) usage.inputTokens += usage.cachedTokens;
  let timestamp = typeof raw.timestamp === 'string' ? raw.timestamp : '';
  if (timestamp === '' && Array.isArray(raw.history)) {
    const last: unknown = raw.history.at(-1);
    if (isRecord(last) && typeof last.timestamp === 'string') timestamp = last.timestamp;
  }
  const source = raw.source === 'rollback' ? 'rollback' : 'turn';
  return { ok: true, checkpoint: checkpointOf(id, timestamp, usage, source) };
}

export function parseCheckpoint(text: string): CheckpointParseResult {
  if (text.length > MAX_STATE_FILE_BYTES) return { ok: false, reason: 'file is too large' };
  const body = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
  if (body === '') return { ok: false, reason: 'file is empty' };
  if (!body.startsWith('{')) {
    if (isPlainResponseId(body)) return { ok: true, checkpoint: checkpointOf(body, '', normalizeUsage({}), 'turn') };
    return { ok: false, reason: 'not a checkpoint' };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'invalid JSON (truncated or corrupted)' };
  }
  return isRecord(value) ? fromObject(value) : { ok: false, reason: 'expected a JSON object' };
}

export function serializeCheckpoint(cp: Checkpoint): string {
  const ordered = checkpointOf(cp.response_id, cp.timestamp, { ...cp.usage }, cp.source);
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The checkpoint a successful turn or a rollback publishes; null while there is no chain. */
export function checkpointFromState(s: SessionState, source: Checkpoint['source'], now: Date): Checkpoint | null {
  if (s.response_id === null) return null;
  return checkpointOf(s.response_id, now.toISOString(), { ...s.usage }, source);
}
