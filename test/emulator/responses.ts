// POST /v1/responses: the service's checks in its order, then the planned answer as an SSE
// stream (or one JSON object when stream is false), storing completed responses for chaining.
import { refuseToolTypes, type ToolTypeRefusal } from './tool-refusal.ts';
import type { ServerResponse } from 'node:http';
import type { ResponseOutputItem, ResponseStatus, ResponseUsage } from 'openai/resources/responses/responses';
import { ApiError, invalidRequest, isRecord, newId, sleep } from './wire.ts';
import type { LoggedRequest, RawStep, Step, WireResponse } from './wire.ts';
import { validateRequestBody } from './validate.ts';
import { checkApprovalResponses, checkToolOutputs, parseRequest, pendingApprovals, pendingCalls, usageFor } from './conversation.ts';
import type { ParsedRequest, ResponseStore, StoredResponse, ToolKind } from './conversation.ts';
import { planDefault, planStep } from './brain.ts';
import type { Plan } from './brain.ts';
import type { ContextSettings } from './context.ts';
import { OVERFLOW_MESSAGE } from './context.ts';
import { checkCompactionItems, checkContextManagement, contextOverflowError, renderContext } from './window.ts';
import type { RenderedContext } from './window.ts';
import { buildOutput, partialMessage } from './events.ts';
import { SseWriter, sendError, sendJson } from './sse.ts';

export interface QueuedStep {
  step: Step;
  remaining: number;
}

export interface EmulatorState {
  queue: QueuedStep[];
  store: ResponseStore;
  validate: boolean;
  requireAuth: boolean;
  latencyMs: number;
  /** The context window and compaction features (context.ts). */
  context: ContextSettings;
  /** Stores nothing, whatever `store` says (Ollama, zero-data-retention accounts, many gateways). */
  stateless: boolean;
  /** Model name prefixes that refuse `reasoning` (EmulatorOptions.noReasoningModels). */
  noReasoningModels: string[];
  /** Built-in tool types this server refuses (EmulatorOptions.refuseToolTypes). */
  refuseToolTypes?: ToolTypeRefusal;
}

interface Admitted {
  req: ParsedRequest;
  previous: StoredResponse | undefined;
  /** `context_management` asked for and accepted; null when not sent. */
  management: { threshold: number | null } | null;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false };

const DEFAULT_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Bad request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported.' },
  404: { type: 'invalid_request_error', code: null, message: 'Not found.' },
  408: { type: 'timeout', code: null, message: 'Request timed out.' },
  409: { type: 'invalid_request_error', code: 'conflict', message: 'Conflicting concurrent request.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again in 1s.' },
};
const SERVER_ERROR = { type: 'server_error', code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' };

function scriptedError(step: Extract<Step, { kind: 'http_error' }>): ApiError {
  const base = DEFAULT_ERRORS[step.status] ?? SERVER_ERROR;
  const headers: Record<string, string> = {};
  if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
  // OpenAI's own header, in milliseconds; clients prefer it to retry-after.
  if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = String(step.retryAfterMs);
  return new ApiError(step.status, { message: step.message ?? base.message, type: step.type ?? base.type, param: null, code: step.code ?? base.code }, headers);
}

const NO_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
const BAD_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";

function fail(res: ServerResponse, entry: LoggedRequest, error: ApiError, headers: Record<string, string>): void {
  entry.status = error.status;
  entry.error = { code: error.body.code, message: error.body.message };
  // The body as the server family writes it (vLLM's top-level one included), with this request's headers.
  sendError(res, new ApiError(error.status, error.body, { ...headers, ...error.headers }, error.wireBody));
}

/** Takes one scripted step off the queue (a step with `times` stays until used up). */
function takeStep(queue: QueuedStep[]): Step | undefined {
  const head = queue[0];
  if (!head) return undefined;
  head.remaining -= 1;
  if (head.remaining <= 0) queue.shift();
  return head.step;
}

/** The service's checks, in order; returns the parsed request or the error to answer with. */
function admit(state: EmulatorState, entry: LoggedRequest, body: ParsedBody): Admitted | ApiError {
  while (state.queue[0]?.step.kind === 'forget') {
    takeStep(state.queue);
    state.store.forgetResponses();
  }
  if (state.queue[0]?.step.kind === 'http_error') {
    const step = takeStep(state.queue);
    if (step?.kind === 'http_error') return scriptedError(step);
  }
  if (state.requireAuth && !entry.hasAuth) {
    return new ApiError(401, { message: NO_KEY, type: 'invalid_request_error', param: null, code: null });
  }
  if (!body.ok) return invalidRequest(BAD_JSON);
  if (state.validate) {
    const invalid = validateRequestBody(body.value);
    if (invalid) return invalid;
  }
  if (!isRecord(body.value)) return invalidRequest('Invalid type for request body: expected an object.');
  const model = typeof body.value.model === 'string' ? body.value.model : '';
  if (body.value.reasoning !== undefined && state.noReasoningModels.some((p) => model.startsWith(p))) {
    return invalidRequest(`Unsupported parameter: 'reasoning' is not supported with this model.`, 'reasoning', 'unsupported_parameter');
  }
  const refusal = refuseToolTypes(body.value.tools, state.refuseToolTypes);
  if (refusal) return refusal;
  const req = parseRequest(body.value);
  const previous = req.previousResponseId === null ? undefined : state.store.get(req.previousResponseId);
  if (req.previousResponseId !== null && !previous) {
    return invalidRequest(`Previous response with id '${req.previousResponseId}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
  const management = checkContextManagement(req, state.context);
  if (management instanceof ApiError) return management;
  const invalid =
    checkCompactionItems(req.input) ??
    checkToolOutputs(req.input, previous?.pending ?? new Map<string, ToolKind>()) ??
    checkApprovalResponses(req.input, previous?.approvals ?? new Set<string>());
  return invalid ?? { req, previous, management };
}

function responseObject(
  id: string,
  req: ParsedRequest,
  status: ResponseStatus,
  output: ResponseOutputItem[],
  usage: ResponseUsage | null,
  error: { code: string; message: string } | null = null,
): WireResponse {
  const now = Math.floor(Date.now() / 1000);
  const reasoning = req.reasoning ?? {};
  return {
    id,
    object: 'response',
    created_at: now,
    status,
    background: false,
    completed_at: status === 'completed' ? now : null,
    error,
    incomplete_details: null,
    instructions: req.instructions,
    max_output_tokens: req.maxOutputTokens,
    metadata: req.metadata,
    model: req.model,
    output,
    parallel_tool_calls: req.parallelToolCalls,
    previous_response_id: req.previousResponseId,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: 'default',
    store: req.store,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: req.toolChoice,
    tools: req.tools,
    top_p: 1,
    truncation: 'disabled',
    usage,
  };
}

/** Builds the completed response; `save` stores it (call it before the client can see it completed). */
function complete(state: EmulatorState, id: string, req: ParsedRequest, plan: Extract<Plan, { kind: 'items' }>, context: RenderedContext) {
  const built = buildOutput(plan.items, req.includeEncryptedReasoning, context.compaction);
  const usage = usageFor(context.accounting, built.outputBytes, built.reasoningBytes);
  const response = responseObject(id, req, 'completed', built.output, usage);
  const save = (): void => {
    if (!req.store || state.stateless) return;
    // After a compaction the chain holds only the compaction item and what follows it.
    const items = [...context.items, ...built.output];
    const stored: StoredResponse = { id, items, pending: pendingCalls(built.output), approvals: pendingApprovals(built.output), response };
    state.store.put(stored);
  };
  return { built, response, save };
}

/** The response of the first `response.completed` frame of an SSE body (or of a JSON body) that parses. */
function completedIn(body: string): WireResponse | undefined {
  const candidates: unknown[] = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    const data = frame
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    try {
      candidates.push(JSON.parse(data));
    } catch {
      // A malformed frame is the point of a raw step; it just cannot be stored.
    }
  }
  try {
    candidates.push({ type: 'response.completed', response: JSON.parse(body) as unknown });
  } catch {
    // Not a JSON body either.
  }
  for (const c of candidates) {
    if (isRecord(c) && c.type === 'response.completed' && isRecord(c.response) && typeof c.response.id === 'string') {
      return c.response as unknown as WireResponse;
    }
  }
  return undefined;
}

/** A raw step: its body byte for byte, stored first when its completion parses so a client can chain from it. */
async function answerRaw(
  state: EmulatorState,
  res: ServerResponse,
  entry: LoggedRequest,
  id: string,
  req: ParsedRequest,
  step: RawStep,
  headers: Record<string, string>,
) {
  const body = step.body.split('{{id}}').join(id);
  const done = completedIn(body);
  if (done && req.store && !state.stateless) {
    const previous = req.previousResponseId === null ? undefined : state.store.get(req.previousResponseId);
    const output = Array.isArray(done.output) ? (done.output as unknown[]) : [];
    state.store.put({
      id: done.id,
      items: [...(previous?.items ?? []), ...req.input, ...output],
      pending: pendingCalls(output),
      approvals: pendingApprovals(output),
      response: done,
    });
  }
  entry.status = step.status ?? 200;
  res.writeHead(entry.status, { ...headers, 'content-type': step.contentType ?? 'text/event-stream; charset=utf-8' });
  await new Promise<void>((resolve) => res.write(body, () => resolve()));
  if (step.cut) {
    res.socket?.destroy();
    res.destroy();
    return;
  }
  res.end();
  if (done) entry.completed = true;
}

async function stream(
  state: EmulatorState,
  res: ServerResponse,
  signal: AbortSignal,
  id: string,
  req: ParsedRequest,
  plan: Plan,
  headers: Record<string, string>,
  entry: LoggedRequest,
  context: RenderedContext,
) {
  const writer = new SseWriter(res, signal);
  writer.open(headers);
  writer.send({ type: 'response.created', response: responseObject(id, req, 'in_progress', [], null) });
  writer.send({ type: 'response.in_progress', response: responseObject(id, req, 'in_progress', [], null) });
  await sleep(state.latencyMs, signal);
  switch (plan.kind) {
    case 'items': {
      const { built, response, save } = complete(state, id, req, plan, context);
      for (const { event, delayMs } of built.events) if (!(await writer.sendAfter(delayMs, event))) return;
      if (!writer.alive) return;
      save();
      writer.send({ type: 'response.completed', response });
      entry.completed = true;
      if (response.usage) entry.usage = response.usage;
      writer.end();
      return;
    }
    case 'raw':
      return;
    case 'cut':
      for (const { event } of partialMessage(plan.afterText)) writer.send(event);
      await Promise.race([writer.flushed(), sleep(200, signal)]);
      writer.cut();
      return;
    case 'hang':
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve())));
      return;
    case 'failed': {
      const error = { code: plan.code, message: plan.message };
      writer.send({ type: 'response.failed', response: responseObject(id, req, 'failed', [], null, error) });
      writer.end();
      return;
    }
    case 'error_event': {
      const error = { type: 'invalid_request_error', code: plan.code, message: plan.message, param: 'input' };
      if (plan.nested) writer.sendFrame({ type: 'error', error });
      else writer.send({ type: 'error', code: plan.code, message: plan.message, param: 'input' });
      writer.end();
      return;
    }
  }
}

async function answerJson(
  state: EmulatorState,
  res: ServerResponse,
  signal: AbortSignal,
  id: string,
  req: ParsedRequest,
  plan: Plan,
  headers: Record<string, string>,
  entry: LoggedRequest,
  context: RenderedContext,
) {
  await sleep(state.latencyMs, signal);
  switch (plan.kind) {
    case 'items': {
      const { response, save } = complete(state, id, req, plan, context);
      if (signal.aborted) return;
      save();
      sendJson(res, 200, response, headers);
      entry.completed = true;
      if (response.usage) entry.usage = response.usage;
      return;
    }
    case 'raw':
      return;
    case 'cut':
      res.socket?.destroy();
      return;
    case 'hang':
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve())));
      return;
    case 'failed':
      sendJson(res, 200, responseObject(id, req, 'failed', [], null, { code: plan.code, message: plan.message }), headers);
      return;
    case 'error_event':
      fail(res, entry, contextOverflowError(), headers);
      return;
  }
}

/** How an over-long request fails, in the form this run is configured for (context.ts). */
function overflowPlan(state: EmulatorState): Plan | null {
  const code = 'context_length_exceeded';
  switch (state.context.overflowForm) {
    case 'http':
      return null;
    case 'failed':
      return { kind: 'failed', code, message: OVERFLOW_MESSAGE };
    case 'error':
    case 'error_nested':
      return { kind: 'error_event', code, message: OVERFLOW_MESSAGE, nested: state.context.overflowForm === 'error_nested' };
  }
}

/** Handles one create-response request; `entry` is already in the log and gets its outcome. */
export async function handleCreate(state: EmulatorState, res: ServerResponse, signal: AbortSignal, entry: LoggedRequest, body: ParsedBody): Promise<void> {
  const headers = { 'x-request-id': entry.requestId };
  const admitted = admit(state, entry, body);
  if (admitted instanceof ApiError) {
    fail(res, entry, admitted, headers);
    return;
  }
  const { req } = admitted;
  const context = renderContext(state.context, req, admitted.previous, state.store, admitted.management);
  // An over-long input is refused before the model runs: no scripted step is used up.
  const overflow = context.overflow ? overflowPlan(state) : undefined;
  if (overflow === null) {
    fail(res, entry, contextOverflowError(), headers);
    return;
  }
  const step = overflow ? undefined : takeStep(state.queue);
  const plan = overflow ?? (step ? planStep(step, req) : planDefault(req, admitted.previous?.items ?? [], context.view));
  const id = newId('resp_');
  entry.responseId = id;
  entry.status = 200;
  if (plan.kind === 'failed' || plan.kind === 'error_event') entry.error = { code: plan.code, message: plan.message };
  if (plan.kind === 'raw') await answerRaw(state, res, entry, id, req, plan.step, headers);
  else if (req.stream) await stream(state, res, signal, id, req, plan, headers, entry, context);
  else await answerJson(state, res, signal, id, req, plan, headers, entry, context);
}
