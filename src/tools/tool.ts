// The tool interface (docs/ARCHITECTURE.md, "Adding a tool"). One module per kind of tool owns
// everything about it: what the model is offered, how a call item is parsed and validated, how
// it runs, the output item sent back, and what the person sees. The turn loop never names a
// tool: it asks the registry (registry.ts).
import type { HostedItem, LocalImagePart, ToolCallItem, ToolDefinition } from '../wire/items.ts';
import type { Plan } from './plan.ts';
import type { FileChange } from './file-change.ts';
import type { ToolReply } from './wire-output.ts';

export type { FileChange } from './file-change.ts';
import type { EscalationFields, RunScope } from './permissions/escalation.ts';

/** What a command tool asks before a command runs with more rights (engine/permissions.ts answers). */
export interface CommandRequest {
  commands: string[];
  fields: EscalationFields;
  /** the sandbox refused the command once: ask whether to run it again with more rights (what it refused, the line that said so) */
  sandboxRefusal?: { kind: string; evidence: string };
}

export type Authorization =
  | { run: RunScope; why: string; decidedBy: 'rule' | 'mode' | 'person' | 'journal' }
  /** the command is not run; `refused` is what the model is told */
  | { refused: string; decidedBy: 'rule' | 'mode' | 'person' | 'policy' };

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
  /** An exec session still running when the call returned (tools/exec/): its id. */
  backgroundSession?: number;
}

/**
 * What tools report while they run. The engine's event union (engine/events.ts) takes these as
 * they are: a tool cannot import the engine, so its vocabulary is declared here, below it. A new
 * tool reports `tool_progress` and needs no new event (the terminal and --json show it as is);
 * the named events below carry data their renderers and the --json contract read field by field.
 */
export type ToolProgress =
  | { type: 'command_start'; callId: string; command: string }
  | { type: 'command_output'; callId: string; chunk: string; stream: 'stdout' | 'stderr' }
  | ({ type: 'command_done' } & CommandResultInfo)
  | { type: 'files_changed'; callId: string; tool: string; ok: boolean; changes: FileChange[]; message: string }
  | {
      type: 'mcp_call_done';
      callId: string;
      server: string;
      tool: string;
      status: 'ok' | 'tool_error' | 'failed' | 'timeout' | 'interrupted' | 'not_sent';
      durationMs: number;
      outputBytes: number;
      truncatedBytes: number;
    }
  /** The model's plan (update_plan), validated: the whole checklist each time. */
  | { type: 'plan_updated'; callId: string; plan: Plan }
  /**
   * Any tool's progress, in one line for the person: what a new tool reports without a new event
   * type, so the terminal and --json show it with no change of theirs.
   */
  | { type: 'tool_progress'; callId: string; tool: string; message: string }
  /** An image put in front of the model (view_image): sent with the next request. */
  | { type: 'image_attached'; callId: string; path: string; mime: string; bytes: number; sha256: string }
  | HostedProgress;

/** What hosted tools report about the server's items; see tools/hosted/ (remote MCP approvals are questions: engine/questions.ts). */
export type HostedProgress =
  /** A web search as it starts (`searching`, query usually unknown yet) and when it is done. */
  | { type: 'web_search'; id: string; status: 'searching' | 'done' | 'failed'; action: string; query?: string; url?: string }
  /** A remote MCP server listed its tools (the server does this itself, once per conversation). */
  | { type: 'hosted_mcp_tools'; id: string; server: string; tools: string[]; error?: string }
  /** A remote MCP tool call the server made. */
  | { type: 'hosted_mcp_call'; id: string; server: string; tool: string; arguments: string; ok: boolean; error?: string; outputBytes: number }
  /** A generated image: `generating` while the server works, then `saved` (path) or `failed`. */
  | { type: 'image_generation'; id: string; status: 'generating' | 'saved' | 'failed'; path?: string; bytes?: number; error?: string };

/** A call after parsing: enough to show it in a menu, a --confirm prompt and the journal. */
export interface ParsedCall {
  callId: string;
  /** One line: the command(s), the patched files, the MCP tool and arguments. */
  title: string;
  /** Shell commands (for the `tool_call` event); empty for other tools. */
  commands: string[];
  /** Extra lines shown under the title by --confirm (a patch's diff). */
  preview?: string[];
  /**
   * Command tools (shell, exec_command): what the engine authorizes before the call is journaled
   * `started` — the mode, the rules and, when needed, the person decide; the tool runs with
   * `ctx.scope`.
   */
  permission?: CommandRequest;
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
  /** How the call's commands run, decided before it started (ParsedCall.permission); absent: as configured. */
  scope?: RunScope;
  /**
   * Asks for more rights for one command while the call runs (the sandbox refused it): the same
   * decision and question as before a call. Absent: nobody can decide (the command is not re-run).
   */
  authorize?(request: CommandRequest): Promise<Authorization>;
  /**
   * Asks the person to approve what a server wants to do (a remote MCP approval request), on the
   * engine's question channel: the REPL shows it, a one-shot's policy answers (no). The channel
   * reports the question and the decision itself (`approval_requested` / `approval_decided`).
   */
  approve(question: ApprovalQuestion): Promise<ApprovalDecision>;
}

/** A server's request to run one of its tools (remote MCP `mcp_approval_request`). */
export interface ApprovalQuestion {
  server: string;
  tool: string;
  /** The call's arguments as JSON text. */
  arguments: string;
}

export interface ApprovalDecision {
  approve: boolean;
  decidedBy: 'person' | 'policy';
  /** Told to the model (and shown) when the call is denied. */
  reason?: string;
}

/** What a hosted tool gets to show its server-side items. */
export interface HostedContext {
  /** Where the session lives (generated images go under it). */
  workspaceRoot: string;
  progress(ev: ToolProgress): void;
  now(): Date;
}

/**
 * What a call came to. A tool says what happened (`reply`); the turn loop turns it into the output
 * item of the call's form (wire-output.ts outputForCall), journals that and sends it.
 */
export interface ToolResult {
  reply: ToolReply;
  /** Images the model asked to see: sent in a user message after the outputs (journaled with the call). */
  attachments?: LocalImagePart[];
  /** Short lines for the local transcript (used to rebuild a lost chain). */
  summary: string[];
  /** The person stopped it (Ctrl-C): the turn ends after this call. */
  interrupted: boolean;
}

/**
 * A tool agentx runs: it answers call items the model sends (parse, run, journal through the
 * turn loop). One module plus one line in buildRegistry (frontends/runtime.ts) adds one.
 */
export interface LocalTool<C extends ParsedCall = ParsedCall> {
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
  /** Whether a call may change files in the workspace: the turn snapshots the workspace before the first such call. */
  readonly writes: boolean;
  /** The tool asks the person itself (remote MCP approvals): --confirm does not ask a second time. */
  readonly asksPerson?: boolean;
}

/**
 * A tool the server runs (web search, image generation, remote MCP): it offers definitions and
 * shows its server-side items (web_search_call, mcp_call, image_generation_call), which are never
 * journaled or run here. It answers no call item.
 */
export interface HostedTool {
  readonly name: string;
  definitions(): ToolDefinition[];
  /** Which server-side items this tool shows. */
  observes(item: HostedItem): boolean;
  /** Shows a server-side item as it starts (`added`) and when it is done (a generated image is saved here). */
  observe(item: HostedItem, phase: 'added' | 'done', ctx: HostedContext): void;
}

/**
 * The tool a call item resolves to: always a local one. (Kept under this name for the engine,
 * which only ever sees tools that run calls.)
 */
export type Tool<C extends ParsedCall = ParsedCall> = LocalTool<C>;

/** What the registry holds: local tools, hosted tools, and tools of both kinds (remote MCP answers the server's approval requests). */
export type AnyTool = LocalTool | HostedTool | (LocalTool & HostedTool);

export function isLocalTool(tool: AnyTool): tool is LocalTool {
  return 'run' in tool;
}

export function isHostedTool(tool: AnyTool): tool is HostedTool {
  return 'observe' in tool;
}
