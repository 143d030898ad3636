// Planning a restore: which files to put back, which to delete, and which to leave alone.
//
// Only files the session's tool calls changed (the spans after the chosen checkpoint) are
// considered. Each goes back to what it was before the session first touched it, but only if
// it is still exactly what agentx last recorded; otherwise the person (or another process)
// changed it since, and it is skipped with a command that restores it by hand.

import * as path from 'node:path';
import { diffSpans, sameEntry, type Entry, type FileChange, type Span } from './diff.ts';
import type { GitContext } from './git.ts';
import { blockingParent, currentEntry, isDirectoryEntry } from './worktree-state.ts';

export interface RestoreAction {
  /** Relative to the workspace, '/'-separated. */
  path: string;
  /** What the session did to it: A created (restore deletes it), D deleted (restore brings it back), M changed. */
  change: 'A' | 'M' | 'D';
  /** What the file becomes (null: deleted). */
  target: Entry | null;
  /** What agentx last recorded there; the file is only touched while it still holds this. */
  expected: Entry | null;
}

export interface SkippedRestore {
  path: string;
  change: 'A' | 'M' | 'D';
  reason: string;
  /** A shell command that does it by hand, or '' when there is nothing to do. */
  hint: string;
}

export interface RestorePlan {
  /** The workspace's real path. */
  workspace: string;
  /** The tree before the first span: directories in it are never removed. */
  startSnapshot: string;
  actions: RestoreAction[];
  skipped: SkippedRestore[];
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A path git would never write and a restore must not touch. */
export function isUnsafePath(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || rel.includes('\0')) return true;
  return rel.split('/').some((seg) => seg === '' || seg === '.' || seg === '..' || seg.toLowerCase() === '.git');
}

/** How to put `target` at `rel` by hand, from the store. */
export function manualRestoreHint(gitDir: string, rel: string, target: Entry | null): string {
  if (target === null) return `rm -- ${shellQuote(rel)}`;
  const cat = `git --git-dir=${shellQuote(gitDir)} cat-file blob ${target.id}`;
  if (target.mode === '120000') return `ln -sfn -- "$(${cat})" ${shellQuote(rel)}`;
  const chmod = target.mode === '100755' ? ` && chmod +x -- ${shellQuote(rel)}` : '';
  return `${cat} > ${shellQuote(rel)}${chmod}`;
}

/** Sorts one change into an action, a skip, or nothing (already as it should be). */
export function decide(change: FileChange, current: Entry | null, gitDir: string): RestoreAction | SkippedRestore | null {
  const base = { path: change.path, change: change.status };
  if (isUnsafePath(change.path)) return { ...base, reason: 'not a safe workspace path', hint: '' };
  if (sameEntry(current, change.before)) return null;
  if (sameEntry(current, change.after)) return { ...base, target: change.before, expected: change.after };
  const reason = change.before === null ? 'changed after agentx created it: kept' : 'changed after agentx last recorded it: not overwritten';
  return { ...base, reason, hint: manualRestoreHint(gitDir, change.path, change.before) };
}

export function isAction(x: RestoreAction | SkippedRestore): x is RestoreAction {
  return 'target' in x;
}

/**
 * The plan that undoes the spans' changes. `spans` are the (from, to) snapshot pairs taken
 * around the session's tool calls after the checkpoint, oldest first.
 */
export async function planRestore(ctx: GitContext, gitDir: string, workspace: string, spans: readonly Span[], maxFileBytes: number): Promise<RestorePlan> {
  const first = spans[0];
  if (first === undefined) return { workspace, startSnapshot: '', actions: [], skipped: [] };
  const changes = await diffSpans(ctx, spans);
  const plan: RestorePlan = { workspace, startSnapshot: first.from, actions: [], skipped: [] };
  const decided = changes.map((change) => {
    const unsafe = isUnsafePath(change.path);
    return {
      change,
      blocker: unsafe ? null : blockingParent(workspace, change.path),
      current: unsafe ? null : currentEntry(path.join(workspace, change.path), maxFileBytes),
    };
  });
  // A parent that is now a symlink or a file only blocks a write if the plan does not delete it first.
  const deleted = new Set<string>();
  for (const d of decided) {
    const decision = d.blocker === null ? decide(d.change, d.current, gitDir) : null;
    if (decision !== null && isAction(decision) && decision.target === null) deleted.add(decision.path);
  }
  for (const d of decided) {
    if (d.blocker !== null && !deleted.has(d.blocker)) {
      plan.skipped.push({ path: d.change.path, change: d.change.status, reason: `${d.blocker} is now a symlink or a file: not followed`, hint: '' });
      continue;
    }
    // A directory the session made where the file was: it goes with the plan's deletes.
    const dirGoes = isDirectoryEntry(d.current) && d.change.after === null && [...deleted].some((p) => p.startsWith(`${d.change.path}/`));
    const decision = decide(d.change, d.blocker === null && !dirGoes ? d.current : null, gitDir);
    if (decision === null) continue;
    if (isAction(decision)) plan.actions.push(decision);
    else plan.skipped.push(decision);
  }
  return plan;
}

/** The preview shown before anything is written: `M src/a.ts`, `A new.txt (delete)`, `D old.txt (bring back)`. */
export function formatPlan(plan: RestorePlan): string[] {
  const lines = plan.actions.map((a) => {
    const what = a.change === 'A' ? ' (delete)' : a.change === 'D' ? ' (bring back)' : '';
    return `${a.change} ${a.path}${what}`;
  });
  for (const s of plan.skipped) {
    lines.push(`skipped ${s.path}: ${s.reason}`);
    if (s.hint !== '') lines.push(`  by hand: ${s.hint}`);
  }
  return lines;
}
