// A client wrapper that reports the usage of every completed response and every compaction
// (POST /responses/compact) as it happens: the REPL prices requests with it, the compaction
// bench counts tokens with it.
import type { ModelClient, ModelEvent, ModelRequest, TurnUsage } from './types.ts';

export function observeUsage(client: ModelClient, onUsage: (model: string, usage: TurnUsage) => void): ModelClient {
  const observed: ModelClient = {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      for await (const ev of client.stream(request, signal)) {
        if (ev.type === 'completed') onUsage(request.model, ev.response.usage);
        yield ev;
      }
    },
  };
  // Bound: the client may be an object that uses `this`.
  const compact = client.compact?.bind(client);
  if (compact) {
    observed.compact = async (request, signal) => {
      const out = await compact(request, signal);
      onUsage(request.model, out.usage);
      return out;
    };
  }
  return observed;
}
