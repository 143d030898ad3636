// `.agentx_checkpoint`: the shared branch point one-shots start from (SPEC §3.2). Pure.

import { MAX_STATE_FILE_BYTES } from './types.ts';
import type { CompactionCheckpoint, SessionState, Usage } from './types.ts';
import { isRecord } from '../lib/guards.ts';
import { normalizeCompaction, normalizeUsage } from './normalize.ts';
import { isPlainResponseId, isResponseId } from '../lib/text.ts';
import { nonNegativeCount } from '../usage/tokens.ts';

/**
 * Where one-shots branch from: a response of the interactive chain, or — right after a
 * compaction moved the conversation to a new chain that has no response yet — no response and
 * the compaction, whose seed starts the branch.
 */
export type Checkpoint = {
  version: 1;
  timestamp: string;
  usage: Usage;
  source: 'turn' | 'rollback' | 'compaction';
  /** How full the context is there, so a one-shot knows when to compact. */
  context_tokens: number;
} & ({ response_id: string } | { response_id: null; compaction: CompactionCheckpoint });

export type CheckpointParseResult = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string };

type Head = { response_id: string } | { response_id: null; compaction: CompactionCheckpoint };

function checkpointOf(head: Head, timestamp: string, usage: Usage, source: Checkpoint['source'], contextTokens: number): Checkpoint {
  const base = { version: 1 as const, timestamp, usage, source, context_tokens: contextTokens };
  return head.response_id === null ? { ...base, response_id: null, compaction: head.compaction } : { ...base, response_id: head.response_id };
}

/** The chain head of a checkpoint file, or why there is none. */
function headOf(raw: Record<string, unknown>): Head | string {
  const id = raw.response_id;
  if (isResponseId(id)) return { response_id: id };
  if (id !== null) return 'no valid response_id';
  const compaction = normalizeCompaction(raw.compaction);
  return compaction && compaction.seed.length > 0 ? { response_id: null, compaction } : 'no valid response_id or compaction';
}

/**
 * Also reads what the public AgentX CLI wrote there (its state format, no version, input
 * tokens without cached ones) and a bare response id, so an upgrade keeps the branch point.
 */
function fromObject(raw: Record<string, unknown>): CheckpointParseResult {
  const head = headOf(raw);
  if (typeof head === 'string') return { ok: false, reason: head };
  if (raw.version !== undefined && raw.version !== 1) return { ok: false, reason: 'unknown format version' };
  const usage = normalizeUsage(raw.usage);
  if (raw.version === undefined) usage.inputTokens += usage.cachedTokens;
  let timestamp = typeof raw.timestamp === 'string' ? raw.timestamp : '';
  if (timestamp === '' && Array.isArray(raw.history)) {
    const last: unknown = raw.history.at(-1);
    if (isRecord(last) && typeof last.timestamp === 'string') timestamp = last.timestamp;
  }
  const source = raw.source === 'rollback' || raw.source === 'compaction' ? raw.source : 'turn';
  return { ok: true, checkpoint: checkpointOf(head, timestamp, usage, source, nonNegativeCount(raw.context_tokens)) };
}

export function parseCheckpoint(text: string): CheckpointParseResult {
  if (text.length > MAX_STATE_FILE_BYTES) return { ok: false, reason: 'file is too large' };
  const body = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
  if (body === '') return { ok: false, reason: 'file is empty' };
  if (!body.startsWith('{')) {
    if (isPlainResponseId(body)) return { ok: true, checkpoint: checkpointOf({ response_id: body }, '', normalizeUsage({}), 'turn', 0) };
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
  const ordered = checkpointOf(cp, cp.timestamp, { ...cp.usage }, cp.source, cp.context_tokens);
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The checkpoint a successful turn, a rollback or a compaction publishes; null while there is no chain. */
export function checkpointFromState(s: SessionState, source: Checkpoint['source'], now: Date): Checkpoint | null {
  const head: Head | null =
    s.response_id !== null
      ? { response_id: s.response_id }
      : s.compaction !== null && s.compaction.seed.length > 0
        ? { response_id: null, compaction: s.compaction }
        : null;
  return head === null ? null : checkpointOf(head, now.toISOString(), { ...s.usage }, source, s.context_tokens);
}

/** The state a one-shot starts from: the checkpoint's chain head (or compaction seed) and context size. */
export function stateFromCheckpoint(cp: Checkpoint | null, base: SessionState): SessionState {
  if (cp === null) return base;
  return cp.response_id === null
    ? { ...base, response_id: null, compaction: cp.compaction, context_tokens: cp.context_tokens }
    : { ...base, response_id: cp.response_id, context_tokens: cp.context_tokens };
}
