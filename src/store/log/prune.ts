// Which records of the conversation log to keep when it is pruned (docs/SPEC.md, "The
// conversation log"; the mechanics are in conversation-log.ts). The log is append-only and was
// never pruned: a long-lived project's file only grew. A replay never needs more than the
// conversation since the last compaction (sinceLastCompaction), so that is what is kept — for the
// newest branches: every tip (a response nothing continues yet: the REPL's head, a one-shot's
// answer, the branch a rollback left) with its records back to its last compaction or its start.
// Older tips beyond MAX_TIPS, and everything before each kept branch's last compaction, go.
//
// Pure: records in, records out, in the order they came.
import type { LogRecord } from './record.ts';

/** Branches kept: the REPL's, a rollback's leftovers, recent one-shots. */
export const MAX_TIPS = 64;

export function hasCompaction(record: LogRecord): boolean {
  return record.input.some((i) => i.type === 'compaction') || record.output.some((i) => i.type === 'compaction');
}

/** The records a replay of `tip` needs: back to its last compaction (that record included) or its start. */
function branchOf(tip: LogRecord, byId: ReadonlyMap<string, LogRecord>, into: Set<string>): void {
  let record: LogRecord | undefined = tip;
  // A cycle (a hand-edited log) ends the walk: every id is visited once.
  while (record !== undefined && !into.has(record.response_id)) {
    into.add(record.response_id);
    if (hasCompaction(record) || record.prev === null) return;
    record = byId.get(record.prev);
  }
}

/**
 * The records to keep, in their original order: the branches of the newest `maxTips` tips (by
 * when they were written), each since its last compaction, and within `maxBytes` (the newest
 * branch always, however big: it is the conversation going on).
 */
export function recordsToKeep(records: readonly LogRecord[], opts: { maxTips?: number; maxBytes?: number; size: (r: LogRecord) => number }): LogRecord[] {
  const byId = new Map(records.map((r) => [r.response_id, r]));
  const continued = new Set(records.map((r) => r.prev).filter((p): p is string => p !== null));
  // The file's order is the order of writing; a later record wins a tie in `at`.
  const tips = records
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => !continued.has(r.response_id))
    .sort((a, b) => (a.r.at === b.r.at ? b.i - a.i : a.r.at < b.r.at ? 1 : -1))
    .slice(0, opts.maxTips ?? MAX_TIPS);
  const keep = new Set<string>();
  let bytes = 0;
  for (const { r } of tips) {
    const branch = new Set<string>();
    branchOf(r, byId, branch);
    let added = 0;
    for (const id of branch) if (!keep.has(id)) added += opts.size(byId.get(id) ?? r);
    if (keep.size > 0 && opts.maxBytes !== undefined && bytes + added > opts.maxBytes) break;
    for (const id of branch) keep.add(id);
    bytes += added;
  }
  return records.filter((r) => keep.has(r.response_id));
}
