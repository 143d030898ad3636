// Decides what the "model" answers: a scripted step when one is queued, otherwise a small
// deterministic brain (echo, run a command asked for, report tool output).
import { asRecords, asString, isRecord } from './wire.ts';
import type { RawStep, Step } from './wire.ts';
import { outputKind } from './conversation.ts';
import type { ParsedRequest } from './conversation.ts';
import { recallAnswer, summaryAnswer } from './recall.ts';
import type { ContextView } from './memory.ts';
import {
  approvalAnswers,
  approvalRequests,
  describeImageInputs,
  hostedPlannedItem,
  imageInputs,
  offeredTool,
  type Citation,
  type HostedPlannedItem,
} from './hosted.ts';
import { NO_PATCH_TEXT, patchFlavour, patchOutputText, requestedPatch, splitPatch } from './patch.ts';
import type { BuiltinPatchOperation } from './patch.ts';

export type PlannedItem =
  | { type: 'message'; text: string; chunks: number; delayMs: number; citations?: Citation[] }
  | HostedPlannedItem
  | { type: 'reasoning'; summary: string; chunks: number; delayMs: number }
  | { type: 'function_call'; name: string; arguments: string }
  | { type: 'shell_call'; commands: string[]; timeoutMs: number | null; maxOutputLength: number | null }
  | { type: 'apply_patch_call'; operation: BuiltinPatchOperation }
  | { type: 'custom_tool_call'; name: string; input: string };

export type Plan =
  | { kind: 'items'; items: PlannedItem[] }
  | { kind: 'cut'; afterText: string }
  | { kind: 'hang' }
  | { kind: 'failed'; code: string; message: string }
  /** An `error` event mid-stream; `nested` puts code/message under `error` as some servers do. */
  | { kind: 'error_event'; code: string; message: string; nested: boolean }
  | { kind: 'raw'; step: RawStep };

export type ShellFlavour = 'builtin' | 'function_shell' | 'function_shell_argv' | 'exec_command' | 'none';

export const NO_SHELL_TEXT = 'I cannot run commands here: this request offers no shell tool.';
const REASONING_SUMMARY = 'Thinking about the request.';

/** Which kind of tool call a "run these commands" answer becomes, from the request's tools. */
export function shellFlavour(tools: unknown[]): ShellFlavour {
  const records = tools.filter(isRecord);
  if (records.some((t) => t.type === 'shell')) return 'builtin';
  const fn = (name: string): Record<string, unknown> | undefined => records.find((t) => t.type === 'function' && t.name === name);
  const shell = fn('shell');
  if (shell) {
    // Codex CLI's `shell` function takes `command: string[]` (argv); agentx's takes `commands`.
    const props = isRecord(shell.parameters) && isRecord(shell.parameters.properties) ? shell.parameters.properties : {};
    return 'command' in props && !('commands' in props) ? 'function_shell_argv' : 'function_shell';
  }
  if (fn('exec_command')) return 'exec_command';
  return 'none';
}

function message(text: string, chunks = 4, delayMs = 0): Extract<PlannedItem, { type: 'message' }> {
  return { type: 'message', text, chunks, delayMs };
}

/** One shell command request in the flavour the tools allow (or a message saying there is none). */
/**
 * "escalate: CMD": the command with Codex's escalation fields (sandbox_permissions
 * require_escalated, a justification, the first two words as prefix_rule), through the function
 * shell when offered, else exec_command.
 */
export function escalatedCall(tools: unknown[], command: string): PlannedItem {
  const fields = {
    sandbox_permissions: 'require_escalated',
    justification: 'Do you want to run this outside the sandbox?',
    prefix_rule: command.split(/\s+/).slice(0, 2),
  };
  if (shellFlavour(tools) === 'function_shell') return { type: 'function_call', name: 'shell', arguments: JSON.stringify({ commands: [command], ...fields }) };
  return { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, ...fields }) };
}

export function shellCall(tools: unknown[], commands: string[], timeoutMs: number | null = null, maxOutputLength: number | null = null): PlannedItem {
  switch (shellFlavour(tools)) {
    case 'builtin':
      return { type: 'shell_call', commands, timeoutMs, maxOutputLength };
    case 'function_shell': {
      const args: Record<string, unknown> = { commands };
      if (timeoutMs !== null) args.timeout_ms = timeoutMs;
      return { type: 'function_call', name: 'shell', arguments: JSON.stringify(args) };
    }
    case 'function_shell_argv': {
      const args: Record<string, unknown> = { command: ['bash', '-lc', commands.join(' && ')] };
      if (timeoutMs !== null) args.timeout_ms = timeoutMs;
      return { type: 'function_call', name: 'shell', arguments: JSON.stringify(args) };
    }
    case 'exec_command':
      return { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: commands.join(' && ') }) };
    case 'none':
      return message(NO_SHELL_TEXT);
  }
}

/** A patch envelope as the calls the tools allow: one built-in call per file, or one call with the envelope. */
export function patchCalls(tools: unknown[], envelope: string): PlannedItem[] {
  switch (patchFlavour(tools)) {
    case 'builtin': {
      const ops = splitPatch(envelope);
      return typeof ops === 'string' ? [message(ops)] : ops.map((operation) => ({ type: 'apply_patch_call', operation }));
    }
    case 'function':
      return [{ type: 'function_call', name: 'apply_patch', arguments: JSON.stringify({ input: envelope }) }];
    case 'custom':
      return [{ type: 'custom_tool_call', name: 'apply_patch', input: envelope }];
    case 'none':
      return [message(NO_PATCH_TEXT)];
  }
}

/** Turns a scripted step (never http_error: the server handles that earlier) into a plan. */
export function planStep(step: Step, req: ParsedRequest): Plan {
  switch (step.kind) {
    case 'text': {
      const items: PlannedItem[] = [];
      const delayMs = step.delayMs ?? 0;
      if (step.reasoning) items.push({ type: 'reasoning', summary: step.reasoning, chunks: 3, delayMs });
      items.push(message(step.text, step.chunks ?? 4, delayMs));
      return { kind: 'items', items };
    }
    case 'shell': {
      const call = shellCall(req.tools, step.commands, step.timeoutMs ?? null, step.maxOutputLength ?? null);
      return { kind: 'items', items: step.text ? [message(step.text), call] : [call] };
    }
    case 'function':
      return { kind: 'items', items: [{ type: 'function_call', name: step.name, arguments: step.arguments }] };
    case 'patch': {
      const calls = patchCalls(req.tools, step.patch);
      return { kind: 'items', items: step.text ? [message(step.text), ...calls] : calls };
    }
    case 'calls':
      return {
        kind: 'items',
        items: step.calls.map((c) => ('commands' in c ? shellCall(req.tools, c.commands) : { type: 'function_call', name: c.name, arguments: c.arguments })),
      };
    case 'hosted': {
      const items: PlannedItem[] = step.items.map(hostedPlannedItem);
      if (step.text !== undefined) items.push({ ...message(step.text), citations: step.citations ?? [] });
      return { kind: 'items', items };
    }
    case 'cut':
      return { kind: 'cut', afterText: step.afterText ?? 'This answer will never' };
    case 'hang':
      return { kind: 'hang' };
    case 'failed':
      return { kind: 'failed', code: step.code, message: step.message };
    case 'raw':
      return { kind: 'raw', step };
    case 'http_error':
      return { kind: 'failed', code: 'server_error', message: 'http_error step reached the brain' };
    case 'forget':
      return { kind: 'failed', code: 'server_error', message: 'forget step reached the brain' };
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asRecords(content)
    .map((part) => asString(part.text) ?? '')
    .join('');
}

function outputText(item: Record<string, unknown>): string {
  const patch = patchOutputText(item);
  if (patch !== null) return patch;
  if (item.type === 'function_call_output') return contentText(item.output);
  return asRecords(item.output)
    .map((chunk) => asString(chunk.stdout) ?? '')
    .join('');
}

/**
 * Pulls a command out of "run: <cmd>" (rest of the line) or "run … `cmd`". The last request in
 * the text wins, so a replayed transcript in front of the new message does not shadow it.
 */
export function requestedCommand(text: string): string | null {
  let best: { at: number; command: string } | null = null;
  for (const pattern of [/\brun:[ \t]*([^\n]+)/gi, /\brun\b[^`\n]*`([^`\n]+)`/gi]) {
    for (const match of text.matchAll(pattern)) {
      const command = match[1]?.trim();
      if (command && (best === null || match.index > best.at)) best = { at: match.index, command };
    }
  }
  return best?.command ?? null;
}

/**
 * Answers to hosted-tool situations: approval responses (an approved call runs and its result is
 * reported; a denied one is acknowledged), images received (described so tests can check the
 * bytes), and `search: …` / `draw: …` / `mcp: TOOL {json}` when the matching hosted tool is offered.
 */
function planHosted(req: ParsedRequest, chain: readonly unknown[], userText: string): PlannedItem[] | undefined {
  const answers = approvalAnswers(req.input);
  if (answers.length > 0) {
    const asked = approvalRequests(chain);
    const items: PlannedItem[] = [];
    const said: string[] = [];
    for (const a of answers) {
      const call = asked.get(a.requestId);
      const name = call ? `${call.server}.${call.name}` : a.requestId;
      if (a.approve && call) {
        const output = `result of ${call.name} ${call.arguments}`;
        items.push({ type: 'mcp_call', server: call.server, name: call.name, arguments: call.arguments, output, approvalRequestId: a.requestId });
        said.push(`${name} returned: ${output}`);
      } else said.push(`${name} was not approved${a.reason ? ` (${a.reason})` : ''}`);
    }
    return [...items, message(said.join('\n'))];
  }
  const images = imageInputs(req.input);
  if (images.length > 0) return [message(describeImageInputs(images))];
  const search = /\bsearch:\s*(.+)$/im.exec(userText)?.[1]?.trim();
  if (search && offeredTool(req.tools, 'web_search')) {
    const cited = [
      { url: 'https://example.com/one', title: 'Example One' },
      { url: 'https://example.org/two', title: 'Example Two' },
    ];
    return [
      { type: 'web_search_call', query: search, sources: cited.map((c) => c.url) },
      { ...message(`Found it: see Example One and Example Two.`), citations: cited },
    ];
  }
  if (/\bdraw:/i.test(userText) && offeredTool(req.tools, 'image_generation'))
    return [{ type: 'image_generation_call', failed: false }, message('Here is your image.')];
  const mcp = /\bmcp:\s*(\S+)\s*(\{.*\})?/i.exec(userText);
  const server = offeredTool(req.tools, 'mcp');
  if (mcp && server && typeof server.server_label === 'string') {
    const call = { server: server.server_label, name: mcp[1] ?? 'tool', arguments: mcp[2] ?? '{}' };
    const listed: PlannedItem = { type: 'mcp_list_tools', server: call.server, tools: [call.name] };
    if (server.require_approval === 'never')
      return [listed, { type: 'mcp_call', ...call, output: `result of ${call.name} ${call.arguments}` }, message(`${call.server}.${call.name} ran.`)];
    return [listed, { type: 'mcp_approval_request', ...call }];
  }
  return undefined;
}

/**
 * The default brain: deterministic answers for the demo, benchmarks and e2e tests. With a view of
 * its context it also answers `recall: KEY …` and a request to summarize the conversation.
 */
export function planDefault(req: ParsedRequest, chain: readonly unknown[] = [], view?: ContextView): Plan {
  const items: PlannedItem[] = [];
  if (req.reasoning) items.push({ type: 'reasoning', summary: REASONING_SUMMARY, chunks: 2, delayMs: 0 });
  const lastUser = req.input.findLastIndex((item) => item.role === 'user');
  const hosted = planHosted(req, chain, contentText(req.input[lastUser]?.content));
  if (hosted) return { kind: 'items', items: [...items, ...hosted] };
  const outputs = req.input.slice(lastUser + 1).filter((item) => outputKind(item) !== undefined);
  if (outputs.length > 0) {
    const combined = outputs.map(outputText).join('\n').trim().slice(0, 2000);
    items.push(message(`Ran it. Output:\n${combined}`));
    return { kind: 'items', items };
  }
  const userItem = req.input[lastUser];
  const userText = userItem ? contentText(userItem.content) : '';
  const remembered = view ? (recallAnswer(userText, view) ?? summaryAnswer(userText, view)) : null;
  if (remembered !== null) {
    items.push(message(remembered));
    return { kind: 'items', items };
  }
  const patch = requestedPatch(userText);
  const escalate = patch === null ? /\bescalate:[ \t]*([^\n]+)/i.exec(userText)?.[1]?.trim() : undefined;
  const command = patch === null && escalate === undefined ? requestedCommand(userText) : null;
  if (patch !== null) items.push(...patchCalls(req.tools, patch));
  else if (escalate !== undefined) items.push(escalatedCall(req.tools, escalate));
  else if (command !== null) items.push(shellCall(req.tools, [command]));
  else items.push(message(`You said: ${userText.slice(0, 200)}`));
  return { kind: 'items', items };
}
