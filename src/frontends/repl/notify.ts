// A turn that ran long has ended: tell the person, who may be looking at another window. A
// terminal bell by default; OSC 9 (a desktop notification) in terminals known to show one.
// AGENTX_NOTIFY=off|bell|osc9 chooses; AGENTX_NOTIFY_AFTER_MS changes the 10 s threshold.

export const NOTIFY_AFTER_MS = 10_000;

export type NotifyMode = 'off' | 'bell' | 'osc9';

/** Terminals that turn OSC 9 into a notification (others would ignore it, or worse, print it). */
function knowsOsc9(env: NodeJS.ProcessEnv): boolean {
  return ['iTerm.app', 'WezTerm', 'ghostty'].includes(env.TERM_PROGRAM ?? '') || env.WT_SESSION !== undefined;
}

export function notifyMode(env: NodeJS.ProcessEnv): NotifyMode {
  const v = (env.AGENTX_NOTIFY ?? '').trim().toLowerCase();
  if (v === 'off' || v === '0' || v === 'false' || v === 'no') return 'off';
  if (v === 'bell' || v === 'osc9') return v;
  return knowsOsc9(env) ? 'osc9' : 'bell';
}

export function notifyAfterMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.AGENTX_NOTIFY_AFTER_MS);
  return env.AGENTX_NOTIFY_AFTER_MS !== undefined && Number.isFinite(n) && n >= 0 ? n : NOTIFY_AFTER_MS;
}

/** The bytes to write (nothing when off or when the turn was short). The text is ours, no input. */
export function turnEndedSignal(env: NodeJS.ProcessEnv, elapsedMs: number, message: string): string {
  if (elapsedMs < notifyAfterMs(env)) return '';
  const mode = notifyMode(env);
  if (mode === 'off') return '';
  return mode === 'bell' ? '\x07' : `\x1b]9;${message.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ')}\x07`;
}
