// The question channel on its own: every question is an `approval_requested` event, every answer
// an `approval_decided` one; an answer the question does not offer, a missing answerer and an
// interrupted turn are all "no".
import { describe, expect, it } from 'vitest';
import { CONFIRM_CHOICES, QuestionChannel, refuseAll, YES_NO_CHOICES, type AnswerQuestion, type PersonQuestion, type QuestionEvent } from './questions.ts';

/** A patch confirmation (kind `confirm`), with `over` changed. */
function question(over: Partial<Omit<PersonQuestion, 'kind' | 'remote'>> = {}): PersonQuestion {
  return {
    kind: 'confirm',
    callId: 'c1',
    tool: 'apply_patch',
    title: 'add a.txt',
    commands: [],
    preview: ['+hello'],
    escalated: false,
    justification: undefined,
    offerPrefix: undefined,
    reasons: [],
    choices: CONFIRM_CHOICES,
    ...over,
  };
}

function channel(answerer: AnswerQuestion | undefined): { ch: QuestionChannel; events: QuestionEvent[] } {
  const events: QuestionEvent[] = [];
  return { ch: new QuestionChannel((e) => events.push(e), answerer), events };
}

const signal = (): AbortSignal => new AbortController().signal;

describe('QuestionChannel', () => {
  it('emits the question, asks the front-end, and emits its decision', async () => {
    const seen: PersonQuestion[] = [];
    const { ch, events } = channel((q) => {
      seen.push(q);
      return Promise.resolve({ answer: { kind: 'tell', text: 'use b.txt' }, decidedBy: 'person' });
    });
    const q = question();
    const decided = await ch.ask(q, signal());
    expect(seen).toEqual([q]);
    expect(decided.answer).toEqual({ kind: 'tell', text: 'use b.txt' });
    expect(events).toEqual([
      { type: 'approval_requested', question: q },
      { type: 'approval_decided', callId: 'c1', kind: 'confirm', decision: 'tell', decidedBy: 'person', text: 'use b.txt', reason: undefined },
    ]);
  });

  it('an answer the question does not offer counts as no (a remote MCP approval cannot be "tell")', async () => {
    const { ch, events } = channel(() => Promise.resolve({ answer: { kind: 'tell', text: 'x' }, decidedBy: 'person' }));
    const remote = { server: 'docs', tool: 'search', arguments: '{}' };
    const decided = await ch.ask({ ...question({ choices: YES_NO_CHOICES }), kind: 'remote_mcp', remote }, signal());
    expect(decided.answer).toEqual({ kind: 'no' });
    expect(events[1]).toMatchObject({ decision: 'no', text: undefined });
  });

  it('without an answerer: no, by policy, with the reason; the question is still reported', async () => {
    const { ch, events } = channel(undefined);
    expect(ch.canAsk).toBe(false);
    const decided = await ch.ask(question(), signal());
    expect(decided).toEqual({ answer: { kind: 'no' }, decidedBy: 'policy', reason: 'nobody can answer here' });
    expect(events.map((e) => e.type)).toEqual(['approval_requested', 'approval_decided']);
  });

  it('an interrupted turn is not asked: no, by policy', async () => {
    let asked = 0;
    const { ch } = channel(() => {
      asked++;
      return Promise.resolve({ answer: { kind: 'once' }, decidedBy: 'person' });
    });
    const controller = new AbortController();
    controller.abort();
    const decided = await ch.ask(question(), controller.signal);
    expect(asked).toBe(0);
    expect(decided).toMatchObject({ answer: { kind: 'no' }, reason: 'the turn was interrupted' });
  });

  it('refuseAll: a front-end that cannot ask says no with its reason, and notices each question once', async () => {
    const noticed: string[] = [];
    const { ch, events } = channel(refuseAll('one-shot', (q) => noticed.push(q.callId)));
    await ch.ask(question({ callId: 'a' }), signal());
    await ch.ask(question({ callId: 'b' }), signal());
    expect(noticed).toEqual(['a', 'b']);
    expect(events.filter((e) => e.type === 'approval_decided')).toMatchObject([
      { callId: 'a', decidedBy: 'policy', reason: 'one-shot' },
      { callId: 'b', reason: 'one-shot' },
    ]);
  });
});
