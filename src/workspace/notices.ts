// The texts the person (and the model) see about snapshots and restores. Pure.

import { formatBytes } from '../lib/text.ts';
import type { ResumeOutcome, RestoreResult } from './restore-apply.ts';
import type { SkippedPath } from './snapshot.ts';

const MAX_LISTED = 5;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/** One line naming what a snapshot left out, or null when nothing was. */
export function describeSkipped(skipped: readonly SkippedPath[], maxFileBytes: number): string | null {
  if (skipped.length === 0) return null;
  const dirs = skipped.filter((s) => s.reason === 'skipped-directory').map((s) => s.path);
  const large = skipped.filter((s) => s.reason === 'too-large').map((s) => `${s.path} (${formatBytes(s.bytes ?? 0)})`);
  const nested = skipped.filter((s) => s.reason === 'nested-repository').map((s) => s.path);
  const parts: string[] = [];
  if (dirs.length > 0) parts.push(listed(dirs));
  if (large.length > 0) parts.push(`files over ${formatBytes(maxFileBytes)}: ${listed(large)}`);
  if (nested.length > 0) parts.push(`nested git repositories: ${listed(nested)}`);
  return `not covered by file rollback: ${parts.join('; ')}`;
}

/** What a restore did, for the person: one line, plus one per skipped or failed file. */
export function restoreSummary(result: RestoreResult): string[] {
  const lines = [
    `restored ${result.restored.length} file${result.restored.length === 1 ? '' : 's'}` +
      (result.skipped.length > 0 ? `, skipped ${result.skipped.length}` : '') +
      (result.failed.length > 0 ? `, ${result.failed.length} failed` : ''),
  ];
  for (const s of result.skipped) lines.push(`skipped ${s.path}: ${s.reason}${s.hint === '' ? '' : `; by hand: ${s.hint}`}`);
  for (const f of result.failed) lines.push(`failed ${f.path}: ${f.error}`);
  return lines;
}

/** The short developer message the next request carries after a restore, so the model does not work from stale assumptions. */
export function restoredFilesMessage(result: RestoreResult): string | null {
  if (result.restored.length === 0) return null;
  const verb = (c: 'A' | 'M' | 'D'): string => (c === 'A' ? 'deleted' : c === 'D' ? 'recreated' : 'reverted');
  const lines = result.restored.slice(0, 50).map((a) => `- ${a.path} (${verb(a.change)})`);
  if (result.restored.length > 50) lines.push(`- … and ${result.restored.length - 50} more`);
  const skipped = result.skipped.length > 0 ? `\nNot restored (changed by the user since): ${listed(result.skipped.map((s) => s.path))}.` : '';
  return `The user rolled the workspace files back. These files were restored to their earlier state; re-read them before relying on their content:\n${lines.join('\n')}${skipped}`;
}

export function snapshotFailedNotice(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `file snapshot failed (${reason}): files changed in this turn cannot be rolled back`;
}

/** The notice after resumeRestore, or null when there was nothing to resume. */
export function resumeNotice(outcome: ResumeOutcome): string | null {
  if (outcome.kind === 'none') return null;
  if (outcome.kind === 'unreadable') return `an interrupted file restore could not be finished: ${outcome.reason}; check the files with /diff`;
  const r = outcome.result;
  const rest = [
    r.skipped.length > 0 ? `skipped ${r.skipped.length} changed since (${listed(r.skipped.map((s) => s.path))})` : '',
    r.failed.length > 0 ? `${r.failed.length} failed (${listed(r.failed.map((f) => f.path))})` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `finished a file restore interrupted at ${outcome.startedAt}: ${r.restored.length} file${r.restored.length === 1 ? '' : 's'} restored${rest === '' ? '' : `, ${rest}`}`;
}
