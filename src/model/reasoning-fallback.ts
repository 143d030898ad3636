// A configured reasoning effort is sent for any model (request.ts), so a server that does not
// take `reasoning` for this model refuses the request with a 400 naming it. This wrapper retries
// that request once without the field, says so once, and sends no `reasoning` to that model at
// that server for the rest of the process (the status line reads reasoningRefused to show it).
import { ModelError } from './errors.ts';
import type { ModelClient, ModelEvent, ModelRequest } from './types.ts';

/** `baseUrl model` pairs whose server refused `reasoning` during this process. */
const refused = new Set<string>();

function keyOf(baseUrl: string, model: string): string {
  return `${baseUrl} ${model}`;
}

/** Did this server refuse `reasoning` for this model during this process? */
export function reasoningRefused(baseUrl: string, model: string): boolean {
  return refused.has(keyOf(baseUrl, model));
}

/** A 400 that names `reasoning` (its message or its param), not any other bad request. */
export function isReasoningRefusal(err: unknown): boolean {
  if (!(err instanceof ModelError) || err.details.status !== 400) return false;
  return /reasoning/i.test(err.details.param ?? '') || /reasoning/i.test(err.message);
}

export function withoutReasoning(request: ModelRequest): ModelRequest {
  const { reasoning: _dropped, include, ...rest } = request;
  const kept = (include ?? []).filter((i) => !i.startsWith('reasoning.'));
  return kept.length > 0 ? { ...rest, include: kept } : rest;
}

export function withReasoningFallback(client: ModelClient, baseUrl: string, warn: (line: string) => void): ModelClient {
  const wrapped: ModelClient = {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const key = keyOf(baseUrl, request.model);
      if (request.reasoning === undefined || refused.has(key)) {
        yield* client.stream(request.reasoning === undefined ? request : withoutReasoning(request), signal);
        return;
      }
      let yielded = false;
      try {
        for await (const ev of client.stream(request, signal)) {
          yielded = true;
          yield ev;
        }
        return;
      } catch (err) {
        // Only a refusal before anything streamed: a request that started answering is not resent here.
        if (yielded || !isReasoningRefusal(err)) throw err;
      }
      refused.add(key);
      warn(`the server does not accept a reasoning effort for ${request.model}: sent without it for the rest of this session`);
      yield* client.stream(withoutReasoning(request), signal);
    },
  };
  const compact = client.compact?.bind(client);
  if (compact) wrapped.compact = compact;
  return wrapped;
}
