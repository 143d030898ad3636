// The tool interface (docs/ARCHITECTURE.md, "Adding a tool"). One module per kind of tool owns
// everything about it: what the model is offered, how a call item is parsed and validated, how
// it runs, the output item sent back, and what the person sees. The turn loop never names a
// tool: it asks the registry (registry.ts).
import type { ToolCallItem, ToolDefinition, ToolOutputItem } from '../wire/items.ts';

/** One command of a shell call, as it finished (shell tool progress and transcript). */
export interface CommandResultInfo {
  callId: string;
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
  durationMs: number;
  truncatedBytes: number;
  stdout: string;
  stderr: string;
}

/** A file a tool changed, for display and --json. */
export interface FileChange {
  path: string;
  /** Set when the file was moved: the new path. */
  movedTo?: string;
  operation: 'create' | 'update' | 'delete';
  added: number;
  removed: number;
  /** Plain unified diff (no colour); the renderer colours and folds it. */
  diff: string;
}

/** What tools report while they run; part of the engine's event union (engine/events.ts). */
export type ToolProgress =
  | { type: 'command_start'; callId: string; command: string }
  | { type: 'command_output'; callId: string; chunk: string; stream: 'stdout' | 'stderr' }
  | ({ type: 'command_done' } & CommandResultInfo)
  | { type: 'files_changed'; callId: string; tool: string; ok: boolean; changes: FileChange[]; message: string }
  | {
    type: 'mcp_call_done'; callId: string; server: string; tool: string;
    status: 'ok' | 'tool_error' | 'failed' | 'timeout' | 'interrupted' | 'not_sent';
    durationMs: number; outputBytes: number; truncatedBytes: number;
  };

/** A call after parsing: enough to show it in a menu, a --confirm prompt and the journal. */
export interface ParsedCall {
  callId: string;
  /** One line: the command(s), the patched files, the MCP tool and arguments. */
  title: string;
  /** Shell commands (for the `tool_call` event); empty for other tools. */
  commands: string[];
  /** Extra lines shown under the title by --confirm (a patch's diff). */
  preview?: string[];
}

export type ParseResult<C extends ParsedCall> = { ok: true; call: C } | { ok: false; callId: string; error: string };

export interface ToolContext {
  /** The directory the session's commands run in now (`cd` changes it). */
  cwd: string;
  /** Where the session started: the workspace boundary for edits and the sandbox. */
  workspaceRoot: string;
  signal: AbortSignal;
  progress(ev: ToolProgress): void;
  /**
   * The call was journaled `started` when agentx stopped and is being run again: a tool that can
   * tell what is already done (a patch already on disk) must not do it twice.
   */
  retry: boolean;
}

export interface ToolResult {
  output: ToolOutputItem;
  /** Short lines for the local transcript (used to rebuild a lost chain). */
  summary: string[];
  /** The person stopped it (Ctrl-C): the turn ends after this call. */
  interrupted: boolean;
}

export interface Tool<C extends ParsedCall = ParsedCall> {
  /** For display and events: 'shell', 'apply_patch', 'mcp__server__tool'. */
  readonly name: string;
  /** What the model is offered (built-in, function or custom form, as configured). */
  definitions(): ToolDefinition[];
  /** Whether this tool answers the call item (by item type and name). */
  accepts(item: ToolCallItem): boolean;
  /** Typed call, or a model-facing error for bad arguments. */
  parse(item: ToolCallItem): ParseResult<C>;
  /** Runs the call. Never throws for a failure of the call itself: that is an output. */
  run(call: C, ctx: ToolContext): Promise<ToolResult>;
  /** Shown in the pending-call menu when re-running may not be safe (MCP: may not be idempotent). */
  readonly retryWarning?: string;
}
