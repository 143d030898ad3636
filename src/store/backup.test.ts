import { describe, expect, it } from 'vitest';
import {
  clearConversation,
  emptyState,
  filesOnlyBackup,
  parseState,
  recordTurn,
  rollbackTo,
  serializeState,
  undoRollback,
  type SessionSnapshot,
  type SessionState,
} from './state.ts';
import { utf8Length } from '../lib/text.ts';

const T0 = Date.parse('2025-03-01T10:00:00.000Z');

function turn(s: SessionState, n: number): SessionState {
  return recordTurn(s, {
    responseId: `resp_${n}`,
    userMessage: `question ${n}: ${'why does this fail? '.repeat(20)}`,
    assistantMessage: `answer ${n}: ${'because of that. '.repeat(20)}`,
    usage: { inputTokens: 100, cachedTokens: 0, outputTokens: 10, reasoningTokens: 0 },
    toolSummaries: [`$ make test ${n}\nok`],
    now: new Date(T0 + n * 1000),
  });
}

function turns(from: number, to: number, s: SessionState = emptyState()): SessionState {
  for (let n = from; n <= to; n++) s = turn(s, n);
  return s;
}

const bytes = (v: unknown): number => utf8Length(JSON.stringify(v));
const conversation = ({ rollback_backup: _b, ...rest }: SessionState): Omit<SessionState, 'rollback_backup'> => rest;

describe('the rollback backup is a branch point, not a copy of the state', () => {
  it('a rollback keeps its chain head and what the live state does not hold; the undo gives the state back whole', () => {
    const s = turns(1, 12);
    const rolled = rollbackTo(s, 4);
    const backup = rolled.rollback_backup as SessionSnapshot;
    expect(backup.response_id).toBe('resp_12');
    // The history is kept whole by a rollback: the backup only says where it ends.
    expect(backup.history).toEqual([]);
    expect(backup.history_base).toBe('resp_12');
    // The transcript: only the entries of the 3 turns after the checkpoint.
    expect(new Set(backup.transcript.map((e) => e.response_id))).toEqual(new Set(['resp_10', 'resp_11', 'resp_12']));
    const whole = { ...s, rollback_backup: null };
    expect(bytes(backup)).toBeLessThan(bytes(whole) / 3);
    expect(conversation(undoRollback(rolled))).toEqual(conversation(s));
  });

  it('undo after later turns, and the undo of that undo, give each branch back', () => {
    const s = turns(1, 6);
    const rolled = rollbackTo(s, 3);
    const branch = turns(7, 8, rolled);
    const undone = undoRollback(branch);
    expect(conversation(undone)).toEqual(conversation(s));
    // The branch left by the undo holds only its own two turns' checkpoints and context.
    expect(undone.rollback_backup?.history.map((h) => h.response_id)).toEqual(['resp_7', 'resp_8']);
    const again = undoRollback(undone);
    expect(conversation(again)).toEqual(conversation(branch));
  });

  it('/clear keeps the whole conversation (nothing is live to share), and its undo brings it back', () => {
    const s = turns(1, 3);
    const cleared = clearConversation(s);
    expect(cleared.rollback_backup?.history).toEqual(s.history);
    expect(conversation(undoRollback(cleared))).toEqual(conversation(s));
  });

  it('"files only" keeps the same conversation: the backup holds no history or transcript of its own', () => {
    const s = turns(1, 4);
    const b = filesOnlyBackup(s, { from: 'a', to: 'b' }).rollback_backup as SessionSnapshot;
    expect(b.history).toEqual([]);
    expect(b.transcript).toEqual([]);
    expect(b.files_undo).toEqual({ from: 'a', to: 'b' });
  });

  it('survives the state file (serialize, parse) and still restores', () => {
    const rolled = turns(7, 9, rollbackTo(turns(1, 6), 2));
    const parsed = parseState(serializeState(rolled));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.state).toEqual(rolled);
    expect(conversation(undoRollback(parsed.state))).toEqual(conversation(undoRollback(rolled)));
  });

  it('a whole-copy backup an earlier version wrote still restores as it is', () => {
    const s = turns(1, 5);
    const { rollback_backup: _none, ...copy } = s;
    const older: SessionState = { ...turns(1, 2), rollback_backup: copy };
    const parsed = parseState(serializeState(older));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(conversation(undoRollback(parsed.state))).toEqual(conversation(s));
  });

  it('when the caps dropped the shared prefix, the undo restores what the backup holds, never a wrong entry', () => {
    const s = turns(1, 4);
    // 30 later turns push the live history past its 20 checkpoints and the transcript past its cap.
    const later = turns(10, 39, rollbackTo(s, 2));
    const undone = undoRollback(later);
    expect(undone.response_id).toBe('resp_4');
    expect(undone.history.map((h) => h.response_id)).toEqual([]);
    // What of the shared context is still live comes back, then the backup's own: nothing of the later branch.
    const ids = undone.transcript.map((e) => e.response_id);
    expect(ids.every((id) => ['resp_1', 'resp_2', 'resp_3', 'resp_4'].includes(id ?? ''))).toBe(true);
    expect(ids.slice(-3)).toEqual(['resp_4', 'resp_4', 'resp_4']);
    // 30 more turns, and the shared prefix is gone from the live state too: the backup's own entries only.
    const muchLater = turns(40, 69, later);
    expect(undoRollback(muchLater).transcript.map((e) => e.response_id)).toEqual(['resp_4', 'resp_4', 'resp_4']);
  });
});
