// The conversation as agentx keeps it (store/log/conversation-log.ts) and as each request carries
// it. On a server that stores responses, a request continues the chain (`previous_response_id`)
// and carries only its new items; when the server has lost the chain, or stores nothing at all
// (Ollama, zero-data-retention accounts, many gateways), the request carries the conversation
// since the last compaction from the log — the calls that ran and their outputs included — so
// the model goes on where it was and nothing runs twice.
import type { Storage } from '../model/request.ts';
import type { CompletedResponse } from '../model/types.ts';
import { LogWriteError, type ConversationLog } from '../store/log/conversation-log.ts';
import type { SessionState } from '../store/state.ts';
import { isReplayable, type ConversationItem, type InputItem } from '../wire/items.ts';
import { inputForNewChain } from './compaction-seed.ts';
import type { ContextWindow } from './context.ts';
import type { EmitEvent } from './events.ts';
import { newChainBudgetChars, newChainInput } from './new-chain.ts';
import type { CapabilityMemory } from './server-capabilities.ts';

/** A request to send: the input items and the chain head it continues (null: a new chain). */
export interface Attempt {
  input: InputItem[];
  previousResponseId: string | null;
  /** The server lost the chain: send the conversation from the log instead of continuing it. */
  replay?: boolean;
}

/** AGENTX_STORE: `on` the server keeps responses, `off` it keeps nothing, `auto` find out. */
export type StoreSetting = 'on' | 'off' | 'auto';

export function parseStoreSetting(raw: string | undefined): StoreSetting | { error: string } {
  const v = (raw ?? '').trim().toLowerCase();
  if (v === '' || v === 'auto') return 'auto';
  if (v === 'on' || v === 'off') return v;
  return { error: `AGENTX_STORE must be on, off or auto (got "${raw ?? ''}")` };
}

/** A stateless verdict is re-checked after this long (servers gain storage; an account leaves ZDR). */
export const STATELESS_RECHECK_MS = 24 * 3600_000;

/** What one request sends: chained, or the whole conversation (a replay), and how it is kept. */
export interface WireAttempt {
  input: ConversationItem[];
  previousResponseId: string | null;
  /** The input is the log's conversation plus the attempt's items (not a lossy new chain). */
  replayed: boolean;
  storage: Storage;
}

export interface ConversationDeps {
  /** Absent when the private state store cannot hold a log: replays fall back to the state file's context. */
  log: ConversationLog | undefined;
  setting: StoreSetting;
  capabilities: CapabilityMemory;
  /** One key per conversation family (the project), sent on every request for prompt caching. */
  promptCacheKey: string | undefined;
  state(): SessionState;
  /** How much of the state file's local record a lossy new chain may carry (new-chain.ts). */
  newChainBudgetChars(): number;
  notice(line: string): void;
  now(): Date;
}

export interface Conversation {
  /** Whether requests are sent with `store: false` and always carry the conversation. */
  stateless(): boolean;
  /** The request to send for a logical attempt. */
  wire(attempt: Attempt): WireAttempt;
  /** Whether the log can replay the conversation up to this response. */
  canReplay(responseId: string): boolean;
  /**
   * The server said it does not know `responseId`. When it had just returned it to us, the
   * server stores nothing: remembered per server, said once. Returns whether that was learnt now.
   */
  chainLost(responseId: string): boolean;
  /** Appends the exchange durably; throws LogWriteError (the response's calls must then not run). */
  received(attempt: Attempt, sent: WireAttempt, response: CompletedResponse): void;
}

export function createConversation(deps: ConversationDeps): Conversation {
  /** Responses this process received from requests that asked the server to store them. */
  const storedHere = new Set<string>();

  const stateless = (): boolean => {
    if (deps.setting !== 'auto') return deps.setting === 'off';
    const caps = deps.capabilities.get();
    if (caps.storesResponses !== 'no') return false;
    const since = caps.statelessSince === undefined ? Number.NaN : deps.now().getTime() - Date.parse(caps.statelessSince);
    // Expired (or unreadable): chain again once; the next lost chain says so again.
    return since >= 0 && since < STATELESS_RECHECK_MS;
  };

  // Every request, chained, replayed or agentx's own summary, carries the one prompt cache key.
  const storage = (): Storage => ({ store: !stateless(), ...(deps.promptCacheKey === undefined ? {} : { promptCacheKey: deps.promptCacheKey }) });

  const history = (responseId: string): ConversationItem[] | null => deps.log?.conversation(responseId)?.filter(isReplayable) ?? null;

  function wire(attempt: Attempt): WireAttempt {
    const prev = attempt.previousResponseId;
    if (prev === null) {
      // A new chain (the first message, a compaction's seed): tool outputs whose calls are not in it become text.
      return { input: inputForNewChain(attempt.input), previousResponseId: null, replayed: false, storage: storage() };
    }
    const record = deps.log?.find(prev);
    const mustReplay = attempt.replay === true || stateless() || record?.stored === false;
    if (!mustReplay) return { input: attempt.input, previousResponseId: prev, replayed: false, storage: storage() };
    const earlier = history(prev);
    if (earlier !== null) return { input: [...earlier, ...attempt.input], previousResponseId: null, replayed: true, storage: storage() };
    // No record to replay (a log lost or from before the log existed): the state file's bounded context.
    const state = deps.state();
    const input = newChainInput(state, attempt.input, deps.newChainBudgetChars());
    return { input, previousResponseId: null, replayed: false, storage: storage() };
  }

  function chainLost(responseId: string): boolean {
    if (deps.setting !== 'auto' || !storedHere.has(responseId) || stateless()) return false;
    deps.capabilities.set({ storesResponses: 'no', statelessSince: deps.now().toISOString() });
    deps.notice(
      'This server does not keep conversations (a response it had just returned was unknown to it): agentx now sends the conversation from its local log with every request (store: false; AGENTX_STORE=on|off to choose).',
    );
    return true;
  }

  function received(attempt: Attempt, sent: WireAttempt, response: CompletedResponse): void {
    if (sent.storage.store) storedHere.add(response.id);
    const log = deps.log;
    if (log === undefined) return;
    // A lossy new chain starts the record again from what it really sent.
    const continues = attempt.previousResponseId !== null && (sent.previousResponseId !== null || sent.replayed);
    log.append({
      prev: continues ? attempt.previousResponseId : null,
      response_id: response.id,
      input: continues ? attempt.input : sent.input,
      output: response.items,
      stored: sent.storage.store,
      at: deps.now().toISOString(),
    });
  }

  return {
    stateless,
    wire,
    canReplay: (responseId) => history(responseId) !== null,
    chainLost,
    received,
  };
}

export { LogWriteError };

export interface ConversationSettings {
  log: ConversationLog | undefined;
  setting: StoreSetting;
  capabilities: CapabilityMemory;
  promptCacheKey?: string;
}

/** A session's conversation: state, notices and the window are read from its turn dependencies when used. */
export function sessionConversation(
  deps: () => { session: { readonly state: SessionState }; emit: EmitEvent; now(): Date; compaction: { window(): ContextWindow } },
  settings: ConversationSettings,
): Conversation {
  return createConversation({
    log: settings.log,
    setting: settings.setting,
    capabilities: settings.capabilities,
    promptCacheKey: settings.promptCacheKey,
    state: () => deps().session.state,
    newChainBudgetChars: () => newChainBudgetChars(deps().compaction.window()),
    notice: (message) => deps().emit({ type: 'context_notice', message }),
    now: () => deps().now(),
  });
}
