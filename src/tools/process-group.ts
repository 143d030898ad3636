// Signalling whole process groups: a command's pipelines and background jobs share its group,
// so stopping only the leader would leave the rest running.
import { errorCode } from '../lib/fsutil.ts';

export const DEFAULT_KILL_GRACE_MS = 2_000;

/** Polls start fast (most groups die at once on TERM) and back off so a slow group costs little. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;

/** kill(-pgid) with 0 or 1 would hit agentx's own group or every process we may signal. */
function isSafeGroupId(pgid: number): boolean {
  return Number.isInteger(pgid) && pgid > 1;
}

/** Sends `signal` to the group; false when the group no longer exists. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!isSafeGroupId(pgid)) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    // EPERM means a member exists that we may not signal: the group is still there.
    return errorCode(err) === 'EPERM';
  }
}

/** True while any member of the group exists (zombies included: the kernel still counts them). */
export function processGroupExists(pgid: number): boolean {
  return signalProcessGroup(pgid, 0);
}

/** Timers here never keep agentx alive: if it exits, each command's supervisor finishes the job. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Stops a process group: SIGTERM (plus SIGCONT, since stopped members only act on TERM once
 * continued), then SIGKILL if anything is left after `graceMs`. Resolves once the group is
 * gone or has been sent SIGKILL.
 */
export async function killProcessGroup(pgid: number, graceMs: number = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!signalProcessGroup(pgid, 'SIGTERM')) return;
  signalProcessGroup(pgid, 'SIGCONT');
  const deadline = Date.now() + Math.max(0, graceMs);
  for (let poll = FIRST_POLL_MS; ; poll = Math.min(poll * 2, MAX_POLL_MS)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(poll, left));
    if (!processGroupExists(pgid)) return;
  }
  signalProcessGroup(pgid, 'SIGKILL');
}
