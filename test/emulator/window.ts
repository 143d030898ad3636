// The context a create request renders, checked against the window: server-side compaction
// (`context_management`) when the rendered tokens pass the threshold, context_length_exceeded
// when they still exceed the window, and the model's view of what it can see.
import { ApiError, invalidRequest, isRecord } from './wire.ts';
import { accountInput, requestHead, tokensOf } from './conversation.ts';
import type { InputAccounting, ParsedRequest, ResponseStore, StoredResponse } from './conversation.ts';
import { OVERFLOW_MESSAGE, compactThreshold, keptMessagesBudgetTokens } from './context.ts';
import type { ContextSettings } from './context.ts';
import { compactionItem, foldView, unreadableCompaction, viewOf } from './memory.ts';
import type { CompactionWireItem, ContextView } from './memory.ts';

export interface RenderedContext {
  /** The context items this response's output follows (stored with it for the chain). */
  items: unknown[];
  /** A compaction made by this request: the first output item; `items` is then empty. */
  compaction: CompactionWireItem | null;
  accounting: InputAccounting;
  view: ContextView;
  /** Input tokens over the window: the request fails with context_length_exceeded. */
  overflow: { tokens: number; window: number } | null;
}

/**
 * The `context_management` checks a server makes: unknown where the feature is off, only the
 * `compaction` type otherwise. Returns the threshold asked for (null: the server's default).
 */
export function checkContextManagement(req: ParsedRequest, settings: ContextSettings): { threshold: number | null } | ApiError | null {
  if (req.contextManagement === null) return null;
  if (!settings.contextManagement) return invalidRequest("Unknown parameter: 'context_management'.", 'context_management', 'unknown_parameter');
  let threshold: number | null = null;
  for (const [index, entry] of req.contextManagement.entries()) {
    if (entry.type !== 'compaction') {
      return invalidRequest(
        `Invalid value: '${String(entry.type)}'. Supported values are: 'compaction'.`,
        `context_management[${index}].type`,
        'invalid_value',
      );
    }
    if (typeof entry.compact_threshold === 'number') threshold = entry.compact_threshold;
  }
  return { threshold };
}

/** The service refuses compaction items it cannot decrypt. */
export function checkCompactionItems(input: readonly unknown[]): ApiError | null {
  const index = unreadableCompaction(input);
  if (index < 0) return null;
  return invalidRequest(`The encrypted content of item input[${index}] could not be verified.`, `input[${index}]`, 'invalid_encrypted_content');
}

export function contextOverflowError(): ApiError {
  return invalidRequest(OVERFLOW_MESSAGE, 'input', 'context_length_exceeded');
}

export function renderContext(
  settings: ContextSettings,
  req: ParsedRequest,
  previous: StoredResponse | undefined,
  store: ResponseStore,
  management: { threshold: number | null } | null,
): RenderedContext {
  const items = [...(previous?.items ?? []), ...req.input];
  const accounting = accountInput(req, previous, store);
  const view = viewOf(req.instructions, items);
  const threshold = management ? compactThreshold(management.threshold, settings) : null;
  let rendered: RenderedContext = { items, compaction: null, accounting, view, overflow: null };
  if (threshold !== null && accounting.inputTokens > threshold) {
    // Compacts before answering, as the service prunes context before continuing inference.
    // Kept messages travel base64-encoded inside the item (4 bytes per 3): 3 raw bytes a token.
    // The person's messages in this request are what the model answers: always kept whole.
    const current = req.input.filter(isUserMessage).length;
    const compaction = compactionItem(foldView(view, keptMessagesBudgetTokens(settings, threshold) * 3, current));
    const inputTokens = tokensOf(requestHead(req), [compaction]);
    rendered = { items: [], compaction, accounting: { inputTokens, cachedTokens: 0 }, view: viewOf(req.instructions, [compaction]), overflow: null };
  }
  const window = settings.windowTokens;
  if (window !== null && rendered.accounting.inputTokens > window) rendered.overflow = { tokens: rendered.accounting.inputTokens, window };
  return rendered;
}

/** True for an item the service would count as a message of the person (for the compact endpoint). */
export function isUserMessage(item: unknown): boolean {
  return isRecord(item) && item.role === 'user' && (item.type === undefined || item.type === 'message');
}
