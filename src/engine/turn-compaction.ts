// Binds the compaction driver (compaction.ts) to a session's turn dependencies: its requests
// stream like any turn request, each compaction is recorded in the session at once (a checkpoint
// one-shots can branch from) and announced, and the window follows the model in use. Front-ends
// give the settings (runtime.ts); tests build the same thing over a scripted client.
import { withCompaction, type CompactionCheckpoint } from '../store/state.ts';
import { createCompaction, type Compaction } from './compaction.ts';
import { contextWindowFor, type AutoCompactSetting } from './context.ts';
import { environmentText } from './environment.ts';
import type { CapabilityMemory } from './server-capabilities.ts';
import { requestShape, streamResponse, type TurnDeps } from './turn.ts';

export interface ContextSettings {
  /** AGENTX_CONTEXT_WINDOW as configured (validated at start); unset: the model table or the default. */
  windowSetting: string | undefined;
  autoCompact: AutoCompactSetting;
  /** What this server is known to support (server-capabilities.ts), probed once and remembered. */
  capabilities: CapabilityMemory;
}

/** Records a compaction: the state moves to its seed at once (durably), one-shots can branch from it. */
export function recordCompaction(deps: Pick<TurnDeps, 'session' | 'emit'>, checkpoint: CompactionCheckpoint): void {
  deps.session.update((s) => withCompaction(s, checkpoint));
  deps.session.publishCheckpoint('compaction');
  deps.emit({ type: 'context_compacted', mechanism: checkpoint.mechanism, tokensBefore: checkpoint.tokens_before, tokensAfter: checkpoint.tokens_after });
}

/**
 * The compaction of a session. `deps` is read on every use, so a wrapped client, a switched
 * model (/model) or new tools (MCP servers connecting) are what the next compaction uses.
 */
export function turnCompaction(deps: () => Omit<TurnDeps, 'compaction'>, settings: ContextSettings): Compaction {
  return createCompaction({
    client: () => deps().client,
    shape: () => requestShape(deps()),
    window: () => contextWindowFor(deps().shape.model, settings.windowSetting),
    autoCompact: settings.autoCompact,
    capabilities: settings.capabilities,
    conversation: () => deps().conversation,
    state: () => deps().session.state,
    usedTokens: () => deps().session.state.context_tokens,
    send: (request, signal) => streamResponse(deps(), request, signal),
    onCompacted: (checkpoint) => recordCompaction(deps(), checkpoint),
    notice: (message) => deps().emit({ type: 'context_notice', message }),
    now: () => deps().now(),
    environment: () => {
      const facts = deps().environment?.();
      return facts === undefined ? null : environmentText(facts);
    },
  });
}
