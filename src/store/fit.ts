// The session file's last line of defence against its size limit (20 MiB). Pure.
//
// Why it is still needed, and why this little (issue 22 §6): the conversation log holds what
// used to make the file big — completed tool outputs, and the outputs and long messages of a
// failed request's retry data, are pointers into it (journal-outputs.ts), checkpoints are previews, the rollback
// backup a branch point — and what stays has its own cap: the transcript (24 KiB), the history
// (20 entries), `!command` output (64 KiB), error bodies. What can still grow without bound is
// text the file keeps whole: a huge pasted message (`last_user_message`, the interrupted turn's
// and the failed request's `user_message`), items the log could not take (disk full, no private
// store), fields a newer agentx wrote. Over the limit, the first of these steps that is enough
// is taken: the rollback backup goes (its copies of the same texts), then unknown fields over
// 64 KiB, then those long texts are cut to their head and tail (marked). Never a journaled call:
// a cut call would run differently on Retry. The conversation, its response id and the journal's
// statuses always stay.
//
// A file over the limit is still read (up to 200 MiB: an early version's file) and fitted at
// load, said in one line.
import { serializeState } from './parse.ts';
import { cutString, shrinkLongStrings } from '../lib/shrink-json.ts';
import { utf8Length } from '../lib/text.ts';
import { isInputItem, isToolOutputItem, type InputItem, type ToolOutputItem } from '../wire/items.ts';
import { STATE_KEYS, type PendingTransaction, type SessionState } from './types.ts';

const REASON = 'shortened to keep the session file under its size limit';
/** Unknown fields bigger than this are dropped by the repair (they are not agentx's). */
const UNKNOWN_FIELD_MAX_BYTES = 64 * 1024;
/** Long texts that must stay (messages, outputs) are cut to about this much each. */
const KEPT_TEXT_BYTES = 16 * 1024;

/** A file this far over the limit is not read at all (it cannot be one agentx wrote and grew). */
export const READABLE_MAX_BYTES = 200 * 1024 * 1024;

export function stateBytes(state: SessionState): number {
  return utf8Length(serializeState(state));
}

interface Step {
  what: string;
  apply(s: SessionState): SessionState;
}

const known = new Set<string>(STATE_KEYS);

function cutLongTexts(s: SessionState): SessionState {
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
  const t = s.pending_transaction;
  const it = s.interrupted_turn;
  return {
    ...s,
    pending_tool_calls: s.pending_tool_calls.map((c) => (c.output === undefined ? c : { ...c, output: shrinkOutput(c.output) })),
    pending_transaction: t === null ? null : { ...t, ...retryItemsCut(t, shrinkInput), user_message: cut(t.user_message) },
    interrupted_turn: it === null ? null : { ...it, user_message: cutString(it.user_message, KEPT_TEXT_BYTES, REASON) },
    last_user_message: cut(s.last_user_message),
    last_assistant_message: cut(s.last_assistant_message),
  };
}

/**
 * The retry data's items, long ones cut. A state in the file's form holds `input_log` (small
 * pointers, and inline the items the log could not take; journal-outputs.ts) — on its way to the
 * file without `input`, just loaded with an empty one (normalize.ts) — which is what is cut then.
 */
function retryItemsCut(t: PendingTransaction, shrinkInput: (i: InputItem) => InputItem): Partial<PendingTransaction> {
  if (t.input_log !== undefined) return { input_log: t.input_log.map((i) => ('output_log' in i ? i : shrinkInput(i))) };
  return { input: t.input.map(shrinkInput) };
}

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
  { what: 'long messages, pending tool outputs and retry data (head and tail kept)', apply: cutLongTexts },
];

/**
 * Fits `state` under `targetBytes` of file, taking the steps above in order and stopping as
 * soon as it fits. Returns what was cut, for a one-line notice.
 */
export function fitStateToLimit(state: SessionState, targetBytes: number): { state: SessionState; trimmed: string[]; bytes: number } {
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

/** Fitting aims below the limit, so the next writes do not fit again at once. */
export function fitTarget(limit: number): number {
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
