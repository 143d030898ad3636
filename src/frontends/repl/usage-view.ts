// /usage: token totals for the last turn and the session, with an estimated cost. Turns watched
// in this process are priced request by request (long-context rates apply per request); totals
// restored from disk are priced at standard rates.
import { contextLeft, formatContextLeft, type ContextWindow } from '../../engine/context.ts';
import type { TurnUsage } from '../../model/types.ts';
import type { HistoryEntry, SessionState, Usage } from '../../store/state.ts';
import { aggregateCost, formatNanos, requestCost, sessionCost, subtractCounts, type TokenCounts, type TurnCost } from '../../usage/cost.ts';
import { priceFor } from '../../usage/pricing.ts';
import { describeCompaction } from '../../ui/render.ts';
import type { Theme } from '../../ui/theme.ts';

interface ChainTurn extends TurnCost {
  responseId: string;
  /** Session turn count once this turn completed: its position on the chain. */
  turns: number;
}

/**
 * Exact costs of the turns this process watched that are on the current chain. The REPL tells
 * it about rollbacks, so turns rolled away stop counting (and count again after an undo).
 */
export class CostTracker {
  private turnNanos = 0;
  private turnPriced = true;
  private chain: ChainTurn[] = [];
  private backup: ChainTurn[] = [];

  beginTurn(): void {
    this.turnNanos = 0;
    this.turnPriced = true;
  }

  onResponse(model: string, usage: TurnUsage): void {
    const price = priceFor(model);
    if (price) this.turnNanos += requestCost(price, usage);
    else this.turnPriced = false;
  }

  onTurnDone(responseId: string, usage: TurnUsage, turns: number): void {
    if (this.turnPriced) this.chain.push({ responseId, usage, nanos: this.turnNanos, turns });
    this.beginTurn();
  }

  rollback(toTurns: number): void {
    this.backup = this.chain;
    this.chain = this.chain.filter((t) => t.turns <= toTurns);
  }

  undoRollback(): void {
    [this.chain, this.backup] = [this.backup, this.chain];
  }

  reset(): void {
    this.chain = [];
    this.backup = [];
    this.beginTurn();
  }

  get onChain(): readonly ChainTurn[] {
    return this.chain;
  }
}

function tokensOf(u: Usage): TokenCounts {
  return { inputTokens: u.inputTokens, cachedTokens: u.cachedTokens, outputTokens: u.outputTokens, reasoningTokens: u.reasoningTokens };
}

/**
 * The last completed turn's usage when this process did not watch it: the chain head's history
 * entry minus its predecessor. History is a log (rollbacks branch it), so the predecessor is the
 * latest earlier entry one turn shorter.
 */
function lastTurnUsage(history: HistoryEntry[], headId: string | null): TokenCounts | undefined {
  const i = history.findLastIndex((h) => h.response_id === headId);
  const entry = history[i];
  if (entry === undefined) return undefined;
  if (entry.usage.turns === 1) return tokensOf(entry.usage);
  const before = history.slice(0, i).findLast((h) => h.usage.turns === entry.usage.turns - 1);
  return before ? subtractCounts(tokensOf(entry.usage), tokensOf(before.usage)) : undefined;
}

function row(label: string, u: TokenCounts, cost: string): string {
  const cols = [u.inputTokens, u.cachedTokens, u.outputTokens, u.reasoningTokens].map((n) => String(n).padStart(10));
  return `  ${label.padEnd(10)}${cols.join('')}${cost.padStart(12)}`;
}

/** Where the window comes from, in words: a guessed one says how to set the real one. */
function windowOrigin(window: ContextWindow): string {
  switch (window.source) {
    case 'table':
      return `window of ${window.note} models`;
    case 'setting':
      return 'window from AGENTX_CONTEXT_WINDOW';
    case 'observed':
      return `window ${window.note}`;
    case 'default':
      return `window assumed (${window.note}; set AGENTX_CONTEXT_WINDOW to its size)`;
  }
}

/** How full the context window is, and the last compaction. */
function contextLines(state: SessionState, window: ContextWindow, theme: Theme): string[] {
  const left = contextLeft(state.context_tokens, window);
  const n = (tokens: number): string => tokens.toLocaleString('en-US');
  const lines = [`  context   ${n(left.usedTokens)} of ${n(left.windowTokens)} tokens · ${formatContextLeft(left)} · ${windowOrigin(window)}`];
  const c = state.compaction;
  if (c)
    lines.push(
      theme.dim(
        `  last compaction (${c.at.slice(0, 16).replace('T', ' ')} UTC): ${describeCompaction({ type: 'context_compacted', mechanism: c.mechanism, tokensBefore: c.tokens_before, tokensAfter: c.tokens_after })}`,
      ),
    );
  return lines;
}

export function usageReport(state: SessionState, model: string, costs: CostTracker, theme: Theme, window: ContextWindow): string {
  const price = priceFor(model);
  const lines = [theme.bold(`Session: ${state.usage.turns} turn${state.usage.turns === 1 ? '' : 's'} · model ${model}`)];
  lines.push(theme.dim(`  ${''.padEnd(10)}${['input', 'cached', 'output', 'reasoning'].map((h) => h.padStart(10)).join('')}${'est. cost'.padStart(12)}`));
  const head = state.response_id;
  const watchedHead = costs.onChain.find((t) => t.responseId === head);
  const last = watchedHead?.usage ?? lastTurnUsage(state.history, head);
  if (last) {
    const nanos = watchedHead?.nanos ?? (price ? aggregateCost(price, last) : undefined);
    lines.push(row('last turn', last, nanos === undefined ? 'n/a' : formatNanos(nanos)));
  }
  const total = sessionCost(tokensOf(state.usage), costs.onChain, price);
  lines.push(row('session', tokensOf(state.usage), total === undefined ? 'n/a' : formatNanos(total)));
  if (!price && (state.usage.inputTokens > 0 || last !== undefined)) {
    lines.push(theme.dim(`  no price known for ${model}: cost not estimated`));
  } else {
    lines.push(theme.dim('  cost is an estimate from list prices; input includes cached tokens'));
  }
  lines.push(...contextLines(state, window, theme));
  return `${lines.join('\n')}\n`;
}
