// Leftover one-shot state files (SPEC §3.4): a one-shot that failed, was interrupted or lost its
// stdout keeps `.agentx_responseid.oneshot-<pid>-<time>` for diagnosis. A file belongs to a
// running one-shot while its pid is alive, and is never removed then (a reused pid errs on the
// side of keeping it). Old ones are pruned when a one-shot starts; `agentx clean` removes all.
import * as fs from 'node:fs';
import { isPidAlive } from '../lib/fsutil.ts';
import { cleanupStaleOneshots, ONESHOT_NAME } from './store.ts';

const DAY_MS = 24 * 3600_000;
/** Leftovers older than this are pruned at the start of a one-shot. */
export const ONESHOT_KEEP_MS = 7 * DAY_MS;

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/**
 * What was removed, in words: one-shot files, and apart from them the temporary files of state
 * writes that a killed agentx left (`….tmp-<pid>-<hex>`), which are not one-shot files.
 */
function removedText(names: readonly string[]): string {
  const oneshots = names.filter((n) => ONESHOT_NAME.test(n)).length;
  const temps = names.length - oneshots;
  const parts = [
    ...(oneshots > 0 || temps === 0 ? [plural(oneshots, 'leftover one-shot file')] : []),
    ...(temps > 0 ? [plural(temps, 'temporary file') + ' of an interrupted write'] : []),
  ];
  return `removed ${parts.join(' and ')}`;
}

/** Prunes leftovers older than ONESHOT_KEEP_MS; the one line to say, if any went. */
export function pruneOldOneshots(dir: string, now: Date): string | undefined {
  let removed: string[];
  try {
    removed = cleanupStaleOneshots(dir, now, ONESHOT_KEEP_MS);
  } catch {
    return undefined; // an unreadable directory: nothing to prune, the one-shot goes on
  }
  if (removed.length === 0) return undefined;
  return `${removedText(removed)} older than ${ONESHOT_KEEP_MS / DAY_MS} days (.agentx_responseid.oneshot-*)`;
}

export interface CleanResult {
  removed: string[];
  /** Files of one-shots still running here: left alone. */
  running: string[];
}

/** `agentx clean`: every leftover of a one-shot that is no longer running, whatever its age. */
export function cleanOneshots(dir: string, now: Date): CleanResult {
  // Any age (a clock-skewed future mtime too): only a live pid keeps a file.
  const removed = cleanupStaleOneshots(dir, now, -Infinity);
  const running = fs.readdirSync(dir).filter((name) => {
    const match = ONESHOT_NAME.exec(name);
    return match !== null && isPidAlive(Number(match[1]));
  });
  return { removed, running };
}

/** What `agentx clean` prints: one line. */
export function describeClean(result: CleanResult): string {
  const kept = result.running.length > 0 ? `; kept ${plural(result.running.length, 'file')} of running one-shots` : '';
  if (result.removed.length === 0) return `nothing to clean${kept}`;
  return `${removedText(result.removed)}${kept}`;
}
