// Which records of the conversation log to keep when it is pruned (docs/SPEC.md, "The
// conversation log"; the mechanics are in conversation-log.ts). A replay never needs more than
// the conversation since the last compaction (sinceLastCompaction), so that is what is kept of
// each branch kept — every record from a tip (or a pinned record) back to its last compaction
// or its start. Kept, in this order:
//   1. the branches of the pinned records: what the session files still point at (the REPL's
//      head, the checkpoint's, a one-shot's, an archived session's, the retry data's items),
//      whatever their age: a replay or a Retry from those files must still find them;
//   2. the newest branch (the conversation going on, however big);
//   3. the other branches of the newest MAX_TIPS tips while they fit in `maxBytes`.
// Pins and the newest branch are kept even when they alone pass `maxBytes`: a replay that cannot
// be built from the log costs the conversation (a lossy new chain), space costs only space.
// Everything else goes (to the archive the prune keeps beside the log).
//
// Tool outputs and the items of a failed request (record.ts's output records) are not on any
// branch: each stays with the response that asked for it, or because a file points at it; one
// of a failed first request (prev null) has no response to stay with, so the newest MAX_TIPS stay.
//
// Pure: records in, records out, in the order they came.
import type { LogRecord } from './record.ts';

/** Branches kept beyond the pinned ones: the REPL's, a rollback's leftovers, recent one-shots. */
export const MAX_TIPS = 64;

export function hasCompaction(record: LogRecord): boolean {
  return record.input.some((i) => i.type === 'compaction') || record.output.some((i) => i.type === 'compaction');
}

/**
 * Newest first by `at`. The records' order is the order they were written (the file's), so of
 * two with the same `at` the later one is the newer.
 */
export function newestFirst<T extends { at: string }>(records: readonly T[]): T[] {
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.at === b.r.at ? b.i - a.i : a.r.at < b.r.at ? 1 : -1))
    .map(({ r }) => r);
}

/** The records a replay of `from` needs: back to its last compaction (that record included) or its start. */
function branchOf(from: LogRecord, byId: ReadonlyMap<string, LogRecord>): Set<string> {
  const branch = new Set<string>();
  let record: LogRecord | undefined = from;
  // A cycle (a hand-edited log) ends the walk: every id is visited once.
  while (record !== undefined && !branch.has(record.response_id)) {
    branch.add(record.response_id);
    if (hasCompaction(record) || record.prev === null) break;
    record = byId.get(record.prev);
  }
  return branch;
}

export interface KeepOptions {
  /** Ids the session files point at (exchanges or output records): kept whatever the limits. */
  pinned?: ReadonlySet<string>;
  /**
   * Records written at or after this time (`at`, ISO) are kept like pins: a session file points
   * at a record only after it is appended, so a record this recent may be one that a file is
   * about to point at (the prune runs inside an append, of its own process or another's).
   */
  recentSince?: string;
  maxTips?: number;
  /** Bytes the unpinned older branches may take, pins and the newest branch counted. */
  maxBytes?: number;
  size: (r: LogRecord) => number;
}

/** The exchanges to keep (see the header), in their original order. */
export function recordsToKeep(records: readonly LogRecord[], opts: KeepOptions): LogRecord[] {
  const byId = new Map(records.map((r) => [r.response_id, r]));
  const continued = new Set(records.map((r) => r.prev).filter((p): p is string => p !== null));
  const allTips = newestFirst(records.filter((r) => !continued.has(r.response_id)));
  const tips = allTips.slice(0, opts.maxTips ?? MAX_TIPS);
  const keep = new Set<string>();
  let bytes = 0;
  const add = (branch: Set<string>): void => {
    for (const id of branch) {
      const record = byId.get(id);
      if (record !== undefined && !keep.has(id)) bytes += opts.size(record);
      keep.add(id);
    }
  };
  const pinned = [...(opts.pinned ?? [])].map((id) => byId.get(id)).filter((r): r is LogRecord => r !== undefined);
  for (const record of pinned) add(branchOf(record, byId));
  for (const tip of allTips) if (isRecent(tip, opts.recentSince)) add(branchOf(tip, byId));
  const [newest, ...older] = tips;
  if (newest !== undefined) add(branchOf(newest, byId));
  for (const tip of older) {
    const branch = branchOf(tip, byId);
    let added = 0;
    for (const id of branch) if (!keep.has(id)) added += opts.size(byId.get(id) ?? tip);
    if (opts.maxBytes !== undefined && bytes + added > opts.maxBytes) break;
    add(branch);
  }
  return records.filter((r) => keep.has(r.response_id));
}

/**
 * The output records to keep (record.ts: a tool output, an item of a failed request), in their
 * original order: those a file points at (`pinned`), those whose response is kept, and the
 * newest `maxUnchained` of those that have no response (a failed first request's: prev null; a
 * state file may wait long for its Retry, and older agentx files carry no pins).
 */
export function outputsToKeep(
  outputs: readonly LogRecord[],
  keptResponses: ReadonlySet<string>,
  opts: { pinned?: ReadonlySet<string>; recentSince?: string; maxUnchained?: number } = {},
): LogRecord[] {
  const unchained = new Set(newestFirst(outputs.filter((o) => o.prev === null)).slice(0, opts.maxUnchained ?? MAX_TIPS));
  return outputs.filter(
    (o) => opts.pinned?.has(o.response_id) === true || isRecent(o, opts.recentSince) || unchained.has(o) || (o.prev !== null && keptResponses.has(o.prev)),
  );
}

function isRecent(record: LogRecord, since: string | undefined): boolean {
  return since !== undefined && record.at >= since;
}
