// POST /v1/responses/compact: compacts a conversation (a stored chain and/or input items) into
// "a list of all user messages, followed by a single compaction item" (SDK CompactedResponse),
// which a client sends whole as the input of a new chain. The emulator keeps the person's newest
// messages that fit a budget verbatim and folds the facts of everything into the compaction item.
import type { ServerResponse } from 'node:http';
import { ApiError, asRecords, asString, byteLength, invalidRequest, isRecord, newId } from './wire.ts';
import type { LoggedRequest } from './wire.ts';
import { validateRequestBody } from './validate.ts';
import { keptMessagesBudgetTokens } from './context.ts';
import { compactionItem, keepRecent, viewOf } from './memory.ts';
import { checkCompactionItems } from './window.ts';
import { requestHead, tokensOf, usageFor } from './conversation.ts';
import type { EmulatorState, ParsedBody } from './responses.ts';
import { sendError, sendJson } from './sse.ts';

/** ResponseCompactParams (openai 6.49): nothing else is accepted. */
const COMPACT_PARAMS = new Set([
  'model',
  'input',
  'instructions',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'service_tier',
]);

const NO_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

export function compactNotFound(): ApiError {
  return new ApiError(404, { message: 'Invalid URL (POST /v1/responses/compact)', type: 'invalid_request_error', param: null, code: null });
}

interface CompactRequest {
  instructions: string | null;
  items: unknown[];
}

function userMessage(text: string): Record<string, unknown> {
  return { id: newId('msg_'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text }] };
}

/** The checks in the service's order; the context to compact, or the error to answer with. */
function admitCompact(state: EmulatorState, entry: LoggedRequest, body: ParsedBody): CompactRequest | ApiError {
  if (!state.context.compactEndpoint) return compactNotFound();
  if (state.requireAuth && !entry.hasAuth) return new ApiError(401, { message: NO_KEY, type: 'invalid_request_error', param: null, code: null });
  if (!body.ok || !isRecord(body.value)) return invalidRequest('We could not parse the JSON body of your request.');
  const value = body.value;
  for (const key of Object.keys(value)) {
    if (!COMPACT_PARAMS.has(key)) return invalidRequest(`Unknown parameter: '${key}'.`, key, 'unknown_parameter');
  }
  if (!('model' in value)) return invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (state.validate) {
    // The input items are the create request's items: validate them with the same schema.
    const asCreate: Record<string, unknown> = { model: asString(value.model) ?? 'gpt-5' };
    if (value.input !== undefined && value.input !== null) asCreate.input = value.input;
    if (typeof value.instructions === 'string') asCreate.instructions = value.instructions;
    const invalid = validateRequestBody(asCreate);
    if (invalid) return invalid;
  }
  const input = typeof value.input === 'string' ? [userMessage(value.input)] : asRecords(value.input);
  const unreadable = checkCompactionItems(input);
  if (unreadable) return unreadable;
  const previousId = asString(value.previous_response_id);
  const previous = previousId === undefined ? undefined : state.store.get(previousId);
  if (previousId !== undefined && !previous) {
    return invalidRequest(`Previous response with id '${previousId}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
  return { instructions: asString(value.instructions) ?? null, items: [...(previous?.items ?? []), ...input] };
}

/** Handles one compact request; `entry` is already in the log and gets its outcome. */
export function handleCompact(state: EmulatorState, res: ServerResponse, entry: LoggedRequest, body: ParsedBody): void {
  const headers = { 'x-request-id': entry.requestId };
  const admitted = admitCompact(state, entry, body);
  if (admitted instanceof ApiError) {
    entry.status = admitted.status;
    entry.error = { code: admitted.body.code, message: admitted.body.message };
    sendError(res, new ApiError(admitted.status, admitted.body, { ...headers, ...admitted.headers }, admitted.wireBody));
    return;
  }
  const view = viewOf(admitted.instructions, admitted.items);
  const kept = keepRecent(view.userMessages, keptMessagesBudgetTokens(state.context) * 4);
  const compaction = compactionItem({
    facts: Object.fromEntries(view.facts),
    folded: view.folded + view.userMessages.length - kept.length,
    recent: [],
  });
  const output = [...kept.map(userMessage), compaction];
  const head = requestHead({ instructions: admitted.instructions, tools: [] });
  const usage = usageFor({ inputTokens: tokensOf(head, admitted.items), cachedTokens: 0 }, byteLength(JSON.stringify(output)), 0);
  const id = newId('resp_');
  entry.status = 200;
  entry.responseId = id;
  entry.completed = true;
  sendJson(res, 200, { id, object: 'response.compaction', created_at: Math.floor(Date.now() / 1000), output, usage }, headers);
}
