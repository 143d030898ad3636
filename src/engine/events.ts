// The one event union every front-end (terminal renderer, --json, tests) reads. The JSON
// renderer (frontends/json.ts) is a pure function of it; its test lists every type.
import type { CompactionMechanism } from '../store/state.ts';
import type { ToolCallType } from '../wire/items.ts';
import type { ToolProgress } from '../tools/tool.ts';
import type { TurnUsage } from '../usage/tokens.ts';
import type { ContextLeft } from './context.ts';
import type { QuestionEvent } from './questions.ts';
import type { RunScope } from '../tools/permissions/escalation.ts';

export type { CommandResultInfo, FileChange, ToolProgress } from '../tools/tool.ts';

/** One entry of the numbered source list under an answer that cites the web. */
export interface Source {
  index: number;
  url: string;
  title: string;
}

export type AgentEvent =
  | { type: 'request_start'; previousResponseId: string | null; attempt: number }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'reasoning_done' }
  | { type: 'response_cut'; partialText: string; reason: string }
  /** The server ended the response early (max_output_tokens, content filter); it still counts. */
  | { type: 'response_incomplete'; responseId: string }
  /** A tool call is about to be handled (run, refused or answered with an error). */
  | { type: 'tool_call'; callId: string; kind: ToolCallType; tool: string; title: string; commands: string[] }
  | ToolProgress
  | { type: 'tool_error'; callId: string; message: string }
  /** A call journaled `completed` earlier: its recorded output is sent, it is not run again. */
  | { type: 'tool_reused'; callId: string; title: string; commands: string[] }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  /** `exact`: the conversation was resent from the log, calls and outputs included; false: only the state file's bounded context. */
  | { type: 'chain_restarted'; reason: string; exact: boolean }
  /** The session could not be saved; `blocking` when a tool call was not run because of it. */
  | { type: 'save_failed'; message: string; blocking: boolean }
  /** The conversation was compacted (before a request, after an overflow, or by /compact); the tokens are its context before and after. */
  | { type: 'context_compacted'; mechanism: CompactionMechanism; tokensBefore: number; tokensAfter: number }
  /** One line about the context window for the person (compacting now, an overflow being recovered). */
  | { type: 'context_notice'; message: string }
  /** The answer cites web pages (url_citation annotations): shown as a numbered list under it. */
  | { type: 'sources'; sources: Source[] }
  /** `context`: how full the context window is after this turn. */
  | { type: 'usage'; usage: TurnUsage; context: ContextLeft }
  | { type: 'turn_done'; responseId: string; text: string; usage: TurnUsage; context: ContextLeft; durationMs: number }
  /** At a turn's end: the files its tool calls changed (from the workspace snapshots). */
  | { type: 'workspace_changed'; changes: { status: 'A' | 'M' | 'D'; path: string }[] }
  /** approval_requested / approval_decided: the question channel's two events (questions.ts). */
  | QuestionEvent
  /** A call's run was decided without asking: a rule, the approval mode, or the journal (a Retry). */
  | { type: 'permission_applied'; callId: string; scope: RunScope | null; why: string }
  | { type: 'turn_interrupted' }
  | { type: 'turn_failed'; message: string };

export type AgentEventType = AgentEvent['type'];
export type EmitEvent = (event: AgentEvent) => void;
