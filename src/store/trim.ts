// Repairing a session state that is over the file size limit by trimming it, least valuable
// parts first, instead of giving the whole session up. What goes first is only a convenience
// (the rollback backup, the transcript kept for rebuilding a lost chain, full messages in the
// rollback history); what carries the conversation (the response id, the tool-call journal's
// statuses, the retry data) is kept, at most with its long texts shortened. Pure.
import { serializeState } from './parse.ts';
import { cutString, shrinkLongStrings } from './shrink.ts';
import { utf8Length } from '../lib/text.ts';
import { isInputItem, isToolOutputItem, type InputItem, type ToolOutputItem } from '../wire/items.ts';
import { STATE_KEYS, type SessionState } from './types.ts';

const REASON = 'shortened to keep the session file under its size limit';
/** Unknown fields bigger than this are dropped by the repair (they are not agentx's). */
const UNKNOWN_FIELD_MAX_BYTES = 64 * 1024;
/** Long texts that must stay (messages, outputs) are cut to about this much each. */
const KEPT_TEXT_BYTES = 16 * 1024;

export function stateBytes(state: SessionState): number {
  return utf8Length(serializeState(state));
}

interface Step {
  what: string;
  apply(s: SessionState): SessionState;
}

const known = new Set<string>(STATE_KEYS);

const STEPS: Step[] = [
  { what: 'the rollback backup', apply: (s) => (s.rollback_backup === null ? s : { ...s, rollback_backup: null }) },
  {
    what: 'large unknown fields',
    apply: (s) => {
      const out: SessionState = { ...s };
      for (const key of Object.keys(s)) {
        if (!known.has(key) && utf8Length(JSON.stringify(s[key]) ?? '') > UNKNOWN_FIELD_MAX_BYTES) delete out[key];
      }
      return out;
    },
  },
  { what: 'the transcript', apply: (s) => (s.transcript.length === 0 ? s : { ...s, transcript: [] }) },
  {
    what: 'full messages in the rollback history (previews kept)',
    apply: (s) => ({
      ...s,
      history: s.history.map(({ last_user_message: _u, last_assistant_message: _a, ...rest }) => rest),
    }),
  },
  {
    what: 'long texts of the pending tool outputs, retry data and last messages',
    apply: (s) => {
      // Shrinking only shortens strings, so the shapes hold; the guards prove it to the compiler.
      const shrinkOutput = (o: ToolOutputItem): ToolOutputItem => {
        const v = shrinkLongStrings(o, KEPT_TEXT_BYTES, REASON).value;
        return isToolOutputItem(v) ? v : o;
      };
      const shrinkInput = (i: InputItem): InputItem => {
        const v = shrinkLongStrings(i, KEPT_TEXT_BYTES, REASON).value;
        return isInputItem(v) ? v : i;
      };
      const cut = (t: string | null): string | null => (t === null ? null : cutString(t, KEPT_TEXT_BYTES, REASON));
      return {
        ...s,
        pending_tool_calls: s.pending_tool_calls.map((c) => (c.output === undefined ? c : { ...c, output: shrinkOutput(c.output) })),
        pending_transaction: s.pending_transaction === null ? null : { ...s.pending_transaction, input: s.pending_transaction.input.map(shrinkInput) },
        pending_cli_transcript: s.pending_cli_transcript.map((e) => ({ ...e, output: cutString(e.output, KEPT_TEXT_BYTES, REASON) })),
        last_user_message: cut(s.last_user_message),
        last_assistant_message: cut(s.last_assistant_message),
      };
    },
  },
];

/**
 * Trims `state` until its file would be at most `targetBytes`, taking the steps above in order
 * and stopping as soon as it fits. Returns what was trimmed, for a one-line notice.
 */
export function trimStateToLimit(state: SessionState, targetBytes: number): { state: SessionState; trimmed: string[]; bytes: number } {
  let current = state;
  let bytes = stateBytes(current);
  const trimmed: string[] = [];
  for (const step of STEPS) {
    if (bytes <= targetBytes) break;
    const next = step.apply(current);
    const nextBytes = stateBytes(next);
    if (nextBytes < bytes) {
      trimmed.push(step.what);
      current = next;
      bytes = nextBytes;
    }
  }
  return { state: current, trimmed, bytes };
}

/** A file this far over the limit is not read at all (it cannot be one agentx wrote and grew). */
export const REPAIRABLE_MAX_BYTES = 200 * 1024 * 1024;

/** Trimming aims below the limit, so the next turns do not trim again at once. */
export function repairTarget(limit: number): number {
  return Math.floor(limit * 0.75);
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function oversizeNotice(name: string, bytes: number, limit: number, trimmed: string[]): string {
  const what = trimmed.length > 0 ? trimmed.join(', ') : 'nothing that could go';
  return `${name} was ${mib(bytes)}, over the ${mib(limit)} limit: trimmed ${what} and kept the session.`;
}

/**
 * True when the pieces of a state file add up to more than `limit` bytes of UTF-8. Cheap when
 * they are far below it (a UTF-16 unit is at most 3 bytes), exact otherwise.
 */
export function partsOverLimit(parts: readonly string[], limit: number): boolean {
  let units = 0;
  for (const p of parts) units += p.length;
  if (units * 3 <= limit) return false;
  if (units > limit) return true;
  let bytes = 0;
  for (const p of parts) bytes += utf8Length(p);
  return bytes > limit;
}
