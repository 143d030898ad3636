import { describe, expect, it } from 'vitest';
import { emptyState, type HistoryEntry, type SessionState } from '../../store/state.ts';
import { PLAIN_THEME } from '../../ui/theme.ts';
import { CostTracker, usageReport } from './usage-view.ts';
import { contextWindowFor, type ContextWindow } from '../../engine/context.ts';

const WINDOW: ContextWindow = { tokens: 272_000, source: 'table', note: 'gpt-5' };
const u = (inputTokens: number, outputTokens: number) => ({ inputTokens, cachedTokens: 0, outputTokens, reasoningTokens: 0 });

function entry(id: string, turns: number, input: number, output: number): HistoryEntry {
  return { response_id: id, timestamp: new Date(0).toISOString(), user_preview: id, assistant_preview: '', usage: { ...u(input, output), turns } };
}

function stateWith(history: HistoryEntry[], head: HistoryEntry): SessionState {
  return { ...emptyState(), history, response_id: head.response_id, usage: { ...head.usage } };
}

describe('usageReport', () => {
  it('prices restored totals at standard rates and derives the last turn from history', () => {
    const h = [entry('r1', 1, 1000, 100), entry('r2', 2, 3000, 300)];
    const text = usageReport(stateWith(h, h[1]!), 'gpt-5', new CostTracker(), PLAIN_THEME, WINDOW);
    expect(text).toContain('Session: 2 turns · model gpt-5');
    // last turn: 2000 in × 1250 + 200 out × 10000 = 4_500_000 nano = $0.0045
    expect(text).toMatch(/last turn\s+2000\s+0\s+200\s+0\s+\$0\.0045/);
    // session: 3000 × 1250 + 300 × 10000 = 6_750_000 nano = $0.0068
    expect(text).toMatch(/session\s+3000\s+0\s+300\s+0\s+\$0\.0068/);
  });

  it('uses exact watched costs, and forgets rolled-away turns until undo', () => {
    const costs = new CostTracker();
    costs.beginTurn();
    costs.onResponse('gpt-5.4', u(300_000, 0)); // long context: 300k × 5000
    costs.onTurnDone('r1', u(300_000, 0), 1);
    costs.onResponse('gpt-5.4', u(10, 0));
    costs.onTurnDone('r2', u(10, 0), 2);
    const h = [entry('r1', 1, 300_000, 0), entry('r2', 2, 300_010, 0)];
    expect(usageReport(stateWith(h, h[1]!), 'gpt-5.4', costs, PLAIN_THEME, WINDOW)).toMatch(/session\s+300010\s+0\s+0\s+0\s+\$1\.5000/);
    costs.rollback(1);
    expect(usageReport(stateWith(h, h[0]!), 'gpt-5.4', costs, PLAIN_THEME, WINDOW)).toMatch(/session\s+300000\s+0\s+0\s+0\s+\$1\.5000/);
    costs.undoRollback();
    expect(costs.onChain).toHaveLength(2);
  });

  it('says so when the model has no known price', () => {
    const h = [entry('r1', 1, 10, 1)];
    const text = usageReport(stateWith(h, h[0]!), 'my-local-llama', new CostTracker(), PLAIN_THEME, WINDOW);
    expect(text).toMatch(/session\s+10\s+0\s+1\s+0\s+n\/a/);
    expect(text).toContain('no price known for my-local-llama');
  });

  it('shows how full the context window is, where the window comes from, and the last compaction', () => {
    const h = [entry('r1', 1, 10, 1)];
    const state = { ...stateWith(h, h[0]!), context_tokens: 68_000 };
    expect(usageReport(state, 'gpt-5', new CostTracker(), PLAIN_THEME, WINDOW)).toContain(
      'context   68,000 of 272,000 tokens · ctx 75% left · window of gpt-5 models',
    );
    const guessed = usageReport(state, 'my-local-llama', new CostTracker(), PLAIN_THEME, contextWindowFor('my-local-llama', undefined));
    expect(guessed).toContain('ctx 46% left (window assumed) · window assumed (unknown model "my-local-llama"; set AGENTX_CONTEXT_WINDOW to its size)');
    const compacted = {
      ...state,
      compaction: {
        mechanism: 'endpoint' as const,
        from_response_id: 'r0',
        seed: [],
        at: '2026-01-02T03:04:05.000Z',
        tokens_before: 250_000,
        tokens_after: 3_000,
      },
    };
    expect(usageReport(compacted, 'gpt-5', new CostTracker(), PLAIN_THEME, WINDOW)).toContain(
      'last compaction (2026-01-02 03:04 UTC): conversation compacted by the server (/responses/compact): ~250,000 → ~3,000 tokens',
    );
  });
});
