// Built-in tool types a server refuses (issue 28 item 3). OpenAI runs `{type: "shell"}` and
// `{type: "apply_patch"}`; compatible servers (Ollama, vLLM, LiteLLM in front of other models)
// often know only function tools and answer 400 to the whole request. agentx then offers the same
// tools as functions — the tools accept both call forms (shell_call or a `shell` function call,
// apply_patch_call or an `apply_patch` function call), so nothing else changes — and remembers
// the refusal per base URL (server-capabilities.ts), so later requests and later runs never send
// the refused type again.
import { ModelError } from '../model/errors.ts';
import type { ModelRequest } from '../model/types.ts';
import { patchToolDefinition } from '../tools/patch/definitions.ts';
import { shellDefinitions } from '../tools/shell-tool.ts';
import type { ToolDefinition } from '../wire/items.ts';

/** The built-in types that have a function form agentx can fall back to. */
const FALLBACK: Readonly<Record<string, () => ToolDefinition[]>> = {
  shell: () => shellDefinitions('function'),
  apply_patch: () => [patchToolDefinition('function')],
};

/** The built-in types with a fallback that `tools` offers. */
export function builtinToolTypes(tools: readonly ToolDefinition[]): string[] {
  return tools.map((t) => t.type).filter((type) => Object.hasOwn(FALLBACK, type));
}

/** The request with each refused built-in tool offered as its function form instead. */
export function withFallbackTools(req: ModelRequest, refused: readonly string[] | undefined): ModelRequest {
  if (refused === undefined || refused.length === 0 || !req.tools.some((t) => refused.includes(t.type))) return req;
  const tools = req.tools.flatMap((t) => (refused.includes(t.type) ? (FALLBACK[t.type]?.() ?? [t]) : [t]));
  return { ...req, tools };
}

/** A refusal names the type and says it is not known: "unsupported tool type: shell", "Input tag 'shell' … does not match", … */
const REFUSAL = /unsupported|not supported|unknown|invalid|does not match|not (?:a )?valid|not permitted|unrecognized/i;

/**
 * Which of the `offered` built-in types a failed request was refused for: a 400 (or 422, as
 * pydantic-based servers answer) whose message says a tool type is unsupported and names it.
 * Empty when the failure is anything else, so no other error ever changes the tools.
 */
export function refusedToolTypes(err: unknown, offered: readonly string[]): string[] {
  if (!(err instanceof ModelError) || err.kind !== 'fatal' || offered.length === 0) return [];
  const { status, param } = err.details;
  if (status !== 400 && status !== 422) return [];
  const text = err.message;
  if (!REFUSAL.test(text) && param !== 'tools') return [];
  // A type counts when it is named as a word ('shell', "shell", type: shell), not inside another word.
  return offered.filter((type) => new RegExp(`(^|[^a-z_])${type}([^a-z_]|$)`).test(text));
}

/** The one line said when a server refused `refused`: every built-in type `moved` is offered as a function from now on. */
export function fallbackNotice(refused: readonly string[], moved: readonly string[]): string {
  return `This server does not take built-in tool types (it refused ${refused.join(', ')}): agentx offers ${moved.join(' and ')} as function tools from now on.`;
}
