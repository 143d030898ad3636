// The environment context: what the model must know about where its commands run, in one
// message (Codex's <environment_context>). It is kept out of the system prompt because it
// changes during a session (cd, a new sandbox or approval mode, /model, a new day) and the prompt
// must stay identical for the prompt cache. Sent with the first message, again whenever one of
// its facts changes, and after a compaction (the summary may have dropped it). Pure.

export interface EnvironmentFacts {
  cwd: string;
  shell: string;
  os: string;
  /** The local date, YYYY-MM-DD (no time: it would change on every message). */
  date: string;
  model: string;
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Where commands may write (empty in read-only and unsandboxed modes). */
  writableRoots: readonly string[];
  network: boolean;
  /** How tool calls are approved, in words (e.g. "never asks", "asks before each call"). */
  approval: string;
  /** Plan mode: nothing may change until the user approves the plan. */
  planMode: boolean;
}

/** Local calendar date as YYYY-MM-DD. */
export function localDate(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Angle brackets in a path would end the block early: they are spelled out. */
function clean(value: string): string {
  return value.replace(/[<>\r\n]/g, (c) => ({ '<': '%3C', '>': '%3E', '\r': ' ', '\n': ' ' })[c] ?? c);
}

export function environmentText(f: EnvironmentFacts): string {
  const sandbox =
    f.sandbox === 'danger-full-access'
      ? "none (commands run with the user's full rights)"
      : f.sandbox === 'read-only'
        ? 'read-only (commands cannot write any file)'
        : 'workspace-write';
  const lines = [
    '<environment_context>',
    `  <cwd>${clean(f.cwd)}</cwd>`,
    `  <shell>${clean(f.shell)}</shell>`,
    `  <os>${clean(f.os)}</os>`,
    `  <date>${f.date}</date>`,
    `  <model>${clean(f.model)}</model>`,
    `  <sandbox_mode>${sandbox}</sandbox_mode>`,
  ];
  if (f.sandbox === 'workspace-write') lines.push(`  <writable_roots>${f.writableRoots.map(clean).join(', ')}</writable_roots>`);
  lines.push(
    `  <network_access>${f.sandbox === 'danger-full-access' || f.network ? 'enabled' : 'restricted'}</network_access>`,
    `  <approval_policy>${clean(f.approval)}</approval_policy>`,
  );
  if (f.planMode) lines.push('  <mode>plan: read and think only; nothing may change until the user approves the plan</mode>');
  lines.push('</environment_context>');
  return lines.join('\n');
}

/**
 * When to send the environment context: at a chain's start, after a compaction, and whenever
 * its text differs from what was last sent. `chainMark` names the chain the model is on (the
 * compaction record's time, or null): a new one means the summary may have dropped the message.
 */
export class EnvironmentAnnouncer {
  private sent: { text: string; chainMark: string | null } | undefined;

  /** The text to send with the next message (and remembered as sent), or null when the model has it. */
  take(text: string, chainMark: string | null, newChain: boolean, carriedBySeed = false): string | null {
    // The compaction that started this chain put this very text in its seed: the model has it.
    if (carriedBySeed && this.sent?.chainMark !== chainMark) {
      this.sent = { text, chainMark };
      return null;
    }
    if (!newChain && this.sent?.text === text && this.sent.chainMark === chainMark) return null;
    this.sent = { text, chainMark };
    return text;
  }

  /** The chain moved back (rollback, its undo): what was sent later is not in it, so send again. */
  forget(): void {
    this.sent = undefined;
  }
}
