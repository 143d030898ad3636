// What the engine asks of the person's hooks (frontends/hooks/ runs them): the points in a turn
// where a hook may look, add context or block. The engine never runs a program itself; it only
// acts on the outcome (a blocked call is answered and journaled like any refused call).
import type { ToolCallItem } from '../wire/items.ts';
import { isRecord } from '../lib/guards.ts';

export type HookEvent =
  | { event: 'SessionStart'; source: 'startup' | 'resume' }
  | { event: 'UserPromptSubmit'; prompt: string }
  | { event: 'PreToolUse'; toolName: string; toolInput: unknown; callId: string }
  | { event: 'PostToolUse'; toolName: string; toolInput: unknown; toolResponse: unknown; callId: string }
  | { event: 'Stop'; lastAssistantMessage: string }
  | { event: 'Notification'; message: string };

export type HookEventName = HookEvent['event'];

export interface HookOutcome {
  /** A hook exited 2: its stderr is the reason (sent to the model for a tool call). */
  blocked?: string;
  /** What hooks printed on stdout for UserPromptSubmit and SessionStart: context for the model. */
  context: string[];
}

export interface SessionHooks {
  /** Runs every hook that matches; never throws (a failing hook is reported and ignored). */
  run(event: HookEvent, signal?: AbortSignal): Promise<HookOutcome>;
  /** Whether any hook is configured for `event` (so the engine builds no input for nothing). */
  has(event: HookEventName): boolean;
}

/** The tool name hooks match on: the function's own name (`mcp__server__tool`), else the tool's. */
export function hookToolName(toolName: string, item: ToolCallItem): string {
  return item.type === 'function_call' || item.type === 'custom_tool_call' ? item.name : toolName;
}

/**
 * The call's input as hooks read it: the function's arguments, the patch, or the shell action
 * with `command` (all of the call's commands, one per line) as Claude Code's Bash hooks expect.
 */
export function hookToolInput(item: ToolCallItem): unknown {
  switch (item.type) {
    case 'shell_call':
      return { ...item.action, command: item.action.commands.join('\n') };
    case 'apply_patch_call':
      return item.operation;
    case 'custom_tool_call':
      return { input: item.input };
    case 'mcp_approval_request':
      return { server: item.server_label, tool: item.name, arguments: item.arguments };
    case 'function_call': {
      let args: unknown;
      try {
        args = JSON.parse(item.arguments);
      } catch {
        return { arguments: item.arguments };
      }
      if (isRecord(args) && Array.isArray(args.commands)) {
        return { ...args, command: args.commands.filter((c) => typeof c === 'string').join('\n') };
      }
      return args;
    }
  }
}
