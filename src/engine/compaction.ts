// The compaction driver: wraps the sending of one request of a turn so that long sessions never
// die. Before sending it compacts when the context passed the threshold (AGENTX_AUTO_COMPACT);
// it asks the server to compact in the chain (context_management) where that works; when the
// request overflows anyway it compacts and resends once, then gives up with a clear choice —
// never a loop. The best mechanism is probed once per server and remembered
// (server-capabilities.ts). All I/O comes in through CompactionDeps.
import { CONTEXT_LENGTH_EXCEEDED, ModelError } from '../model/errors.ts';
import { LogWriteError } from '../store/log/conversation-log.ts';
import { buildRequest, withContextManagement, type RequestShape } from '../model/request.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from '../model/types.ts';
import type { CompactionCheckpoint, CompactionMechanism } from '../store/state.ts';
import { userMessage, type InputItem } from '../wire/items.ts';
import {
  autoCompactDecision,
  compactThresholdTokens,
  contextTokensOf,
  estimateTokens,
  windowAfterOverflow,
  type AutoCompactSetting,
  type ContextWindow,
} from './context.ts';
import { capToolOutputs } from './tool-output-caps.ts';
import { SUMMARY_PROMPT, localSummary, recentUserMessages, seedWithEnvironment, summarySeed, toolOutputsOf, type ChainState } from './compaction-seed.ts';
import type { Attempt, Conversation, WireAttempt } from './conversation.ts';
import { builtinToolTypes, fallbackNotice, refusedToolTypes, withFallbackTools } from './tool-fallback.ts';
import type { CapabilityMemory } from './server-capabilities.ts';

export interface CompactionDeps {
  /** Read on each use: the front-end may wrap the client, switch the model, add tools. */
  client(): ModelClient;
  shape(): RequestShape;
  /** The window for the current model from context.ts (table / setting / default); overflows may shrink it per server. */
  window(): ContextWindow;
  autoCompact: AutoCompactSetting;
  capabilities: CapabilityMemory;
  /** How each request carries the conversation (chained or replayed) and where exchanges are logged. */
  conversation(): Conversation;
  /** The session state (read only): transcript, last checkpoint. */
  state(): ChainState;
  /** Context tokens of the chain head (input + output of its response); 0 for a new chain. */
  usedTokens(): number;
  /** Sends one request the way the turn loop does (streaming its events) and returns the completed response. */
  send(request: ModelRequest, signal: AbortSignal): Promise<CompletedResponse>;
  /** A compaction happened: record the checkpoint now (durably), before anything is sent on the new chain. */
  onCompacted(checkpoint: CompactionCheckpoint): void;
  /** One line for the person. */
  notice(text: string): void;
  now(): Date;
  /** The environment context as it stands (environment.ts), put in every seed; absent or null: none. */
  environment?(): string | null;
}

export type HopelessOption = 'trim_tool_output' | 'new_chain' | 'rollback';

/** Overflow that compacting did not fix: the turn ends with this choice for the person. */
export class ContextHopeless extends ModelError {
  readonly options: readonly HopelessOption[];

  constructor(
    message: string,
    /** The attempt to retry after the person chose (already on the compacted chain when there was one). */
    readonly attempt: Attempt,
  ) {
    super(message, 'context_overflow', { code: CONTEXT_LENGTH_EXCEEDED });
    this.name = 'ContextHopeless';
    this.options = hopelessOptions(attempt.input);
  }
}

/** What can help a request that does not fit: trimming only when it carries tool outputs. */
export function hopelessOptions(input: readonly InputItem[]): HopelessOption[] {
  return [...(toolOutputsOf(input).length > 0 ? ['trim_tool_output' as const] : []), 'new_chain', 'rollback'];
}

export interface SendResult {
  response: CompletedResponse;
  /** Context tokens after this response: input + output, what the next request starts from. */
  contextTokens: number;
}

/** A compaction made (`next`: the request moved onto the new chain), or why not, in one line. */
export type CompactResult = { ok: true; mechanism: CompactionMechanism; next: Attempt } | { ok: false; reason: string };

const isUnsupportedStatus = (status: number | undefined): boolean => status === 404 || status === 405 || status === 501;

/** The server refused `context_management` itself (not the request for another reason). */
export function rejectsContextManagement(err: unknown): boolean {
  if (!(err instanceof ModelError) || err.kind !== 'fatal') return false;
  const { status, code, param } = err.details;
  if (param === 'context_management') return true;
  return status === 400 && (code === 'unknown_parameter' || code === undefined) && /context_management/.test(err.message);
}

export interface Compaction {
  /**
   * One request of the turn, compacting before it or after an overflow as needed. Throws
   * ModelError / ContextHopeless. `onNewAttempt` hears when a compaction moved the request to a
   * new chain, so a caller that retries after a later failure retries that, not the old chain.
   */
  send(attempt: Attempt, signal: AbortSignal, onNewAttempt?: (next: Attempt) => void): Promise<SendResult>;
  /** /compact: compact the chain now (`pending` is input still to be sent on it, e.g. leftover tool outputs). */
  compactNow(pending: Attempt, signal: AbortSignal): Promise<CompactResult>;
  /** The window in force (it shrinks after an overflow showed it smaller). */
  window(): ContextWindow;
}

export function createCompaction(deps: CompactionDeps): Compaction {
  let tokensAfterCompaction: number | undefined;
  let justCompacted = false;

  const window = (): ContextWindow => {
    const configured = deps.window();
    const observed = deps.capabilities.get().observedWindows[deps.shape().model];
    return observed !== undefined && observed < configured.tokens && configured.source !== 'setting'
      ? { tokens: observed, source: 'observed', note: 'learned from an overflow' }
      : configured;
  };
  const serverSide = (): boolean => deps.autoCompact.enabled && deps.capabilities.get().contextManagement !== 'no';
  const threshold = (): number => compactThresholdTokens(window(), deps.autoCompact);

  const request = (attempt: Attempt, withManagement: boolean): { req: ModelRequest; sent: WireAttempt } => {
    // Attempts keep tool outputs as items (so they can be trimmed); the conversation decides
    // whether they continue the chain, travel with a replay, or become text on a new chain.
    const sent = deps.conversation().wire(attempt);
    const req = withFallbackTools(buildRequest(deps.shape(), sent.input, sent.previousResponseId, sent.storage), deps.capabilities.get().refusedToolTypes);
    return { req: withManagement ? withContextManagement(req, threshold()) : req, sent };
  };

  /** Sends one request of the conversation and logs the exchange before anything acts on it. */
  async function sendLogged(attempt: Attempt, withManagement: boolean, signal: AbortSignal): Promise<CompletedResponse> {
    const { req, sent } = request(attempt, withManagement);
    const response = await deps.send(req, signal);
    try {
      deps.conversation().received(attempt, sent, response);
    } catch (err) {
      if (!(err instanceof LogWriteError)) throw err;
      throw new ModelError(`${err.message}; the answer was not acted on (no tool call ran)`, 'fatal');
    }
    return response;
  }

  /** A request of our own (the summary): not shown to the person as an answer. */
  async function quietly(req: ModelRequest, signal: AbortSignal): Promise<CompletedResponse> {
    for await (const ev of deps.client().stream(req, signal)) if (ev.type === 'completed') return ev.response;
    throw new ModelError('the stream ended before the response completed', 'retryable');
  }

  /**
   * Sends, learning what the server refuses once per server: context_management, and built-in
   * tool types (tool-fallback.ts). A refusal is remembered and the request resent without it.
   */
  async function sendProbing(attempt: Attempt, signal: AbortSignal): Promise<CompletedResponse> {
    for (let refusals = 0; ; refusals++) {
      const probe = serverSide();
      let response: CompletedResponse;
      try {
        response = await sendLogged(attempt, probe, signal);
      } catch (err) {
        // Each refusal is learned once, so this ends: at most one per thing a server can refuse.
        if (refusals >= 2 || !learnRefusal(err, probe)) throw err;
        continue;
      }
      if (probe) observeServerSide(response);
      return response;
    }
  }

  /** Whether `err` was a refusal of something agentx can do without (remembered, said once). */
  function learnRefusal(err: unknown, probedManagement: boolean): boolean {
    if (probedManagement && rejectsContextManagement(err)) {
      deps.capabilities.set({ contextManagement: 'no' });
      deps.notice('This server does not compact conversations itself (context_management): agentx will compact when needed.');
      return true;
    }
    const known = deps.capabilities.get().refusedToolTypes ?? [];
    const offered = builtinToolTypes(deps.shape().tools).filter((t) => !known.includes(t));
    const refused = refusedToolTypes(err, offered);
    if (refused.length === 0) return false;
    // A server that refuses one built-in type knows only function tools: all of them move at
    // once (one refused request and one line, not one per type).
    deps.capabilities.set({ refusedToolTypes: [...known, ...offered] });
    deps.notice(fallbackNotice(refused, offered));
    return true;
  }

  /** A server that takes the field but never compacts counts as one without it. */
  function observeServerSide(response: CompletedResponse): void {
    const caps = deps.capabilities.get();
    if (response.compactions && response.compactions.length > 0) {
      if (caps.contextManagement !== 'yes') deps.capabilities.set({ contextManagement: 'yes' });
      return;
    }
    if (response.usage.inputTokens > threshold() * 1.1) deps.capabilities.set({ contextManagement: 'no' });
    else if (caps.contextManagement === 'unknown') deps.capabilities.set({ contextManagement: 'yes' });
  }

  /** The record of a compaction; `tokensAfter` defaults to the seed's size, what the new chain starts from. */
  function checkpoint(
    mechanism: CompactionMechanism,
    from: string | null,
    seed: InputItem[],
    extra: { summary?: string; tokensAfter?: number } = {},
  ): CompactionCheckpoint {
    return {
      mechanism,
      from_response_id: from,
      seed,
      ...(extra.summary === undefined ? {} : { summary: extra.summary }),
      at: deps.now().toISOString(),
      tokens_before: deps.usedTokens(),
      tokens_after: extra.tokensAfter ?? estimateTokens(seed),
    };
  }

  async function viaEndpoint(pending: Attempt, signal: AbortSignal): Promise<CompactResult | null> {
    const client = deps.client();
    // The endpoint compacts a stored chain: nothing to name on a server that stores nothing.
    if (!client.compact || deps.capabilities.get().compactEndpoint === 'no' || pending.previousResponseId === null || deps.conversation().stateless())
      return null;
    try {
      const shape = deps.shape();
      const out = await client.compact({ model: shape.model, instructions: shape.instructions, previous_response_id: pending.previousResponseId }, signal);
      if (out.output.length === 0) return { ok: false, reason: 'the server returned an empty compaction' };
      if (deps.capabilities.get().compactEndpoint !== 'yes') deps.capabilities.set({ compactEndpoint: 'yes' });
      const { seed, input } = seedWithEnvironment(out.output, pending.input, deps.environment?.() ?? null);
      const next = { input, previousResponseId: null };
      deps.onCompacted(checkpoint('endpoint', pending.previousResponseId, seed));
      return { ok: true, mechanism: 'endpoint', next };
    } catch (err) {
      if (err instanceof ModelError && err.kind === 'aborted') throw err;
      if (err instanceof ModelError && isUnsupportedStatus(err.details.status)) {
        deps.capabilities.set({ compactEndpoint: 'no' });
        return null;
      }
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Our own summary: asked of the model while the chain still has room, else made from the local record. */
  async function viaSummary(pending: Attempt, signal: AbortSignal, chainHasRoom: boolean): Promise<CompactResult> {
    const state = deps.state();
    let summary: string | null = null;
    let mechanism: CompactionMechanism = 'local';
    if (chainHasRoom && pending.previousResponseId !== null) {
      // Not part of the record: asked on the chain (or with the replayed conversation), never logged.
      const sent = deps.conversation().wire({ ...pending, input: [...toolOutputsOf(pending.input), userMessage([], SUMMARY_PROMPT)] });
      const ask = buildRequest({ ...deps.shape(), tools: [] }, sent.input, sent.previousResponseId, sent.storage);
      try {
        const answer = await quietly(ask, signal);
        if (answer.text.trim() !== '') {
          summary = answer.text;
          mechanism = 'summary';
        }
      } catch (err) {
        if (err instanceof ModelError && err.kind === 'aborted') throw err;
        // Any other failure: the local record still lets the session go on.
      }
    }
    summary ??= localSummary(state, state.compaction, Math.floor(window().tokens * 0.3) * 4);
    const { seed, input } = seedWithEnvironment(summarySeed(summary, recentUserMessages(state)), pending.input, deps.environment?.() ?? null);
    const next = { input, previousResponseId: null };
    deps.onCompacted(checkpoint(mechanism, pending.previousResponseId, seed, { summary }));
    return { ok: true, mechanism, next };
  }

  /**
   * Whether the chain plus a summary request (and the pending tool outputs it must answer) still
   * fits. The chain's used tokens already include the instructions (the server counted them).
   */
  function chainHasRoom(pending: Attempt): boolean {
    const ask = deps.usedTokens() + estimateTokens(toolOutputsOf(pending.input)) + estimateTokens(SUMMARY_PROMPT);
    return ask < window().tokens * 0.98;
  }

  async function compactAttempt(pending: Attempt, signal: AbortSignal): Promise<CompactResult> {
    if (pending.previousResponseId === null) return { ok: false, reason: 'there is no earlier conversation on the server to compact' };
    const endpoint = await viaEndpoint(pending, signal);
    const result = endpoint ?? (await viaSummary(pending, signal, chainHasRoom(pending)));
    if (result.ok) justCompacted = true;
    return result;
  }

  async function recover(
    attempt: Attempt,
    signal: AbortSignal,
    onNewAttempt?: (next: Attempt) => void,
  ): Promise<{ response: CompletedResponse; sent: Attempt }> {
    // What the refused request rendered, roughly; only learnt from when the chain's size is known.
    const shape = deps.shape();
    const estimated = deps.usedTokens() + estimateTokens(attempt.input) + estimateTokens(shape.instructions) + estimateTokens(shape.tools);
    const learned = windowAfterOverflow(window(), estimated);
    if (deps.usedTokens() > 0 && learned.tokens < window().tokens) {
      deps.capabilities.set({ observedWindows: { ...deps.capabilities.get().observedWindows, [shape.model]: learned.tokens } });
    }
    if (attempt.previousResponseId === null) {
      throw new ContextHopeless("this message alone does not fit in the model's context window", attempt);
    }
    deps.notice('The conversation no longer fits in the context window: compacting it and sending your message again…');
    const compacted = await compactAttempt(attempt, signal);
    if (!compacted.ok) {
      throw new ContextHopeless(`the conversation does not fit in the context window and could not be compacted (${compacted.reason})`, attempt);
    }
    onNewAttempt?.(compacted.next);
    try {
      return { response: await sendProbing(compacted.next, signal), sent: compacted.next };
    } catch (err) {
      if (err instanceof ModelError && err.kind === 'context_overflow') {
        throw new ContextHopeless(
          'even after compacting, this message does not fit in the context window (a very large message or tool output)',
          compacted.next,
        );
      }
      throw err;
    }
  }

  async function send(attempt: Attempt, signal: AbortSignal, onNewAttempt?: (next: Attempt) => void): Promise<SendResult> {
    let current: Attempt = { ...attempt, input: capToolOutputs(attempt.input, window()) };
    const decision = autoCompactDecision({
      usedTokens: deps.usedTokens(),
      window: window(),
      setting: deps.autoCompact,
      serverSide: serverSide(),
      ...(tokensAfterCompaction === undefined ? {} : { tokensAfterLastCompaction: tokensAfterCompaction }),
    });
    if (decision.compact && current.previousResponseId !== null) {
      deps.notice(`Context ${Math.round((deps.usedTokens() / window().tokens) * 100)}% full: compacting the conversation…`);
      const compacted = await compactAttempt(current, signal);
      if (compacted.ok) {
        current = compacted.next;
        onNewAttempt?.(current);
      } else deps.notice(`Could not compact the conversation (${compacted.reason}); continuing.`);
    }
    let response: CompletedResponse;
    try {
      response = await sendProbing(current, signal);
    } catch (err) {
      if (!(err instanceof ModelError && err.kind === 'context_overflow')) throw err;
      ({ response, sent: current } = await recover(current, signal, onNewAttempt));
    }
    const contextTokens = contextTokensOf(response.usage);
    if (response.compactions && response.compactions.length > 0) {
      deps.onCompacted(checkpoint('server', current.previousResponseId, [], { tokensAfter: contextTokens }));
      justCompacted = true;
    }
    if (justCompacted) {
      tokensAfterCompaction = contextTokens;
      justCompacted = false;
    }
    return { response, contextTokens };
  }

  async function compactNow(pending: Attempt, signal: AbortSignal): Promise<CompactResult> {
    return compactAttempt(pending, signal);
  }

  return { send, compactNow, window };
}
