// Keeps the API key out of everything agentx shows or stores (SPEC §2, §6), at the two places it
// can come back from outside:
// - failures: a server or proxy may echo the key in an error body ("Incorrect API key provided:
//   sk-…"), and error messages reach the terminal, --json output and the state file
//   (failed_response), so every failure leaving the model client is scrubbed;
// - commands: model commands (and `!commands`) inherited agentx's environment, so `env` or
//   `echo $OPENAI_API_KEY` put the key into tool output, the state file and the next request;
//   variables holding the key are left out of their environment.
import { redact } from './debug-log.ts';
import { ModelError } from './errors.ts';
import { requestSecrets } from './hosted-secrets.ts';
import type { ModelClient, ModelEvent, ModelRequest } from './types.ts';

function scrubError(err: unknown, secrets: string[]): unknown {
  if (err instanceof ModelError) {
    const { partialText } = err.details;
    const details = partialText === undefined ? err.details : { ...err.details, partialText: redact(partialText, secrets) };
    return new ModelError(redact(err.message, secrets), err.kind, details);
  }
  if (err instanceof Error) err.message = redact(err.message, secrets);
  return err;
}

export function scrubSecrets(client: ModelClient, secrets: string[]): ModelClient {
  const scrubbed: ModelClient = {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      try {
        yield* client.stream(request, signal);
      } catch (err) {
        // Remote MCP header values of this request are secrets too (hosted-secrets.ts).
        throw scrubError(err, [...secrets, ...requestSecrets(request)]);
      }
    },
  };
  // Bound: the client may be an object that uses `this`.
  const compact = client.compact?.bind(client);
  if (compact) {
    scrubbed.compact = async (request, signal) => {
      try {
        return await compact(request, signal);
      } catch (err) {
        throw scrubError(err, secrets);
      }
    };
  }
  return scrubbed;
}

/** `env` without the variables whose value is one of `secrets` (the key agentx itself uses). */
export function envWithoutSecrets(env: NodeJS.ProcessEnv, secrets: string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !secrets.includes(value)) out[name] = value;
  }
  return out;
}
