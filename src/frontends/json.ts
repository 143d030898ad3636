// --json: one JSON object per line on stdout — a documented, stable contract (README, "JSON
// output"). Every line comes from here: the engine's events through toJsonLine (a pure function
// of the event), plus the session line at start and the error line at the end.
import type { AgentEvent } from '../engine/events.ts';
import type { ExecEvent } from '../tools/exec/manager.ts';
import type { FileChange } from '../tools/tool.ts';

export type JsonLine =
  | { type: 'session'; mode: 'oneshot'; cwd: string; model: string; previous_response_id: string | null; state_file: string }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'tool_call'; call_id: string; kind: string; tool: string; title: string; commands: string[] }
  | {
      type: 'tool_output';
      call_id: string;
      command: string;
      exit_code: number | null;
      timed_out: boolean;
      interrupted: boolean;
      duration_ms: number;
      truncated_bytes: number;
      stdout: string;
      stderr: string;
    }
  | { type: 'files_changed'; call_id: string; tool: string; ok: boolean; message: string; files: JsonFileChange[] }
  | {
      type: 'mcp_call';
      call_id: string;
      server: string;
      tool: string;
      status: string;
      is_error: boolean;
      duration_ms: number;
      output_bytes: number;
      truncated_bytes: number;
    }
  | { type: 'web_search'; id: string; status: string; action: string; query: string | null; url: string | null }
  | { type: 'sources'; sources: { index: number; url: string; title: string }[] }
  | { type: 'remote_mcp_tools'; id: string; server: string; tools: string[]; error: string | null }
  | { type: 'remote_mcp_call'; id: string; server: string; tool: string; arguments: string; ok: boolean; error: string | null; output_bytes: number }
  | {
      type: 'approval_requested';
      call_id: string;
      kind: string;
      tool: string;
      commands: string[];
      escalated: boolean;
      justification: string | null;
      offer_prefix: string[] | null;
      reasons: string[];
      choices: string[];
      /** A remote MCP approval (kind `remote_mcp`): the server, the tool it wants to run and the arguments (JSON text, the server's). */
      remote: { server: string; tool: string; arguments: string } | null;
    }
  | { type: 'approval_decided'; call_id: string; kind: string; decision: string; decided_by: string; text: string | null; reason: string | null }
  | { type: 'permission_applied'; call_id: string; scope: string | null; why: string }
  | { type: 'image_generation'; id: string; status: string; path: string | null; bytes: number | null; error: string | null }
  | { type: 'image_attached'; call_id: string; path: string; mime: string; bytes: number; sha256: string }
  | { type: 'tool_progress'; call_id: string; tool: string; message: string }
  | { type: 'plan'; call_id: string; explanation: string | null; plan: { step: string; status: string }[] }
  | { type: 'tool_error'; call_id: string; message: string }
  | { type: 'tool_reused'; call_id: string; title: string }
  | { type: 'retry'; attempt: number; max_attempts: number; delay_ms: number; reason: string }
  | { type: 'chain_restarted'; reason: string; exact: boolean }
  | { type: 'response_cut'; reason: string }
  | { type: 'response_incomplete'; response_id: string }
  | { type: 'save_failed'; message: string; blocking: boolean }
  | { type: 'context_compacted'; mechanism: string; tokens_before: number; tokens_after: number }
  | { type: 'context_notice'; message: string }
  | {
      type: 'usage';
      input_tokens: number;
      cached_tokens: number;
      output_tokens: number;
      reasoning_tokens: number;
      context_used_tokens: number;
      context_window_tokens: number;
      context_left: number;
      context_window_source: string;
    }
  | { type: 'workspace_changed'; changes: { status: 'A' | 'M' | 'D'; path: string }[] }
  | { type: 'final'; response_id: string; text: string; duration_ms: number }
  | { type: 'exec_session_start'; session_id: number; command: string; tty: boolean; pid: number }
  | { type: 'exec_output'; session_id: number; chunk: string; dropped_bytes: number }
  | { type: 'exec_session_exit'; session_id: number; exit_code: number | null; signal: string | null; stopped: boolean }
  | { type: 'error'; kind: string; message: string; exit_code: number };

export interface JsonFileChange {
  path: string;
  moved_to: string | null;
  operation: FileChange['operation'];
  added: number;
  removed: number;
}

/** Maps an engine event to its JSONL form, or null for events not part of the contract. */
export function toJsonLine(ev: AgentEvent): JsonLine | null {
  switch (ev.type) {
    case 'text_delta':
      return { type: 'text_delta', delta: ev.delta };
    case 'reasoning_delta':
      return { type: 'reasoning_delta', delta: ev.delta };
    case 'tool_call':
      return { type: 'tool_call', call_id: ev.callId, kind: ev.kind, tool: ev.tool, title: ev.title, commands: ev.commands };
    case 'command_done':
      return {
        type: 'tool_output',
        call_id: ev.callId,
        command: ev.command,
        exit_code: ev.exitCode,
        timed_out: ev.timedOut,
        interrupted: ev.interrupted,
        duration_ms: ev.durationMs,
        truncated_bytes: ev.truncatedBytes,
        stdout: ev.stdout,
        stderr: ev.stderr,
      };
    case 'files_changed':
      return {
        type: 'files_changed',
        call_id: ev.callId,
        tool: ev.tool,
        ok: ev.ok,
        message: ev.message,
        files: ev.changes.map((c) => ({ path: c.path, moved_to: c.movedTo ?? null, operation: c.operation, added: c.added, removed: c.removed })),
      };
    case 'mcp_call_done':
      return {
        type: 'mcp_call',
        call_id: ev.callId,
        server: ev.server,
        tool: ev.tool,
        status: ev.status,
        is_error: ev.status !== 'ok',
        duration_ms: ev.durationMs,
        output_bytes: ev.outputBytes,
        truncated_bytes: ev.truncatedBytes,
      };
    case 'web_search':
      return { type: 'web_search', id: ev.id, status: ev.status, action: ev.action, query: ev.query ?? null, url: ev.url ?? null };
    case 'sources':
      return { type: 'sources', sources: ev.sources.map((s) => ({ index: s.index, url: s.url, title: s.title })) };
    case 'hosted_mcp_tools':
      return { type: 'remote_mcp_tools', id: ev.id, server: ev.server, tools: ev.tools, error: ev.error ?? null };
    case 'hosted_mcp_call':
      return {
        type: 'remote_mcp_call',
        id: ev.id,
        server: ev.server,
        tool: ev.tool,
        arguments: ev.arguments,
        ok: ev.ok,
        error: ev.error ?? null,
        output_bytes: ev.outputBytes,
      };
    case 'approval_requested': {
      const q = ev.question;
      return {
        type: 'approval_requested',
        call_id: q.callId,
        kind: q.kind,
        tool: q.tool,
        commands: q.commands,
        escalated: q.escalated,
        justification: q.justification ?? null,
        offer_prefix: q.offerPrefix?.prefix ?? null,
        reasons: q.reasons,
        choices: [...q.choices],
        remote: q.remote === undefined ? null : { server: q.remote.server, tool: q.remote.tool, arguments: q.remote.arguments },
      };
    }
    case 'approval_decided':
      return {
        type: 'approval_decided',
        call_id: ev.callId,
        kind: ev.kind,
        decision: ev.decision,
        decided_by: ev.decidedBy,
        text: ev.text ?? null,
        reason: ev.reason ?? null,
      };
    case 'permission_applied':
      return { type: 'permission_applied', call_id: ev.callId, scope: ev.scope, why: ev.why };
    case 'image_generation':
      return { type: 'image_generation', id: ev.id, status: ev.status, path: ev.path ?? null, bytes: ev.bytes ?? null, error: ev.error ?? null };
    case 'image_attached':
      return { type: 'image_attached', call_id: ev.callId, path: ev.path, mime: ev.mime, bytes: ev.bytes, sha256: ev.sha256 };
    case 'plan_updated':
      return {
        type: 'plan',
        call_id: ev.callId,
        explanation: ev.plan.explanation ?? null,
        plan: ev.plan.steps.map((s) => ({ step: s.step, status: s.status })),
      };
    case 'tool_progress':
      return { type: 'tool_progress', call_id: ev.callId, tool: ev.tool, message: ev.message };
    case 'tool_error':
      return { type: 'tool_error', call_id: ev.callId, message: ev.message };
    case 'tool_reused':
      return { type: 'tool_reused', call_id: ev.callId, title: ev.title };
    case 'retry':
      return { type: 'retry', attempt: ev.attempt, max_attempts: ev.maxAttempts, delay_ms: ev.delayMs, reason: ev.reason };
    case 'chain_restarted':
      return { type: 'chain_restarted', reason: ev.reason, exact: ev.exact };
    case 'response_cut':
      return { type: 'response_cut', reason: ev.reason };
    case 'response_incomplete':
      return { type: 'response_incomplete', response_id: ev.responseId };
    case 'save_failed':
      return { type: 'save_failed', message: ev.message, blocking: ev.blocking };
    case 'context_compacted':
      return { type: 'context_compacted', mechanism: ev.mechanism, tokens_before: ev.tokensBefore, tokens_after: ev.tokensAfter };
    case 'context_notice':
      return { type: 'context_notice', message: ev.message };
    case 'usage':
      return {
        type: 'usage',
        input_tokens: ev.usage.inputTokens,
        cached_tokens: ev.usage.cachedTokens,
        output_tokens: ev.usage.outputTokens,
        reasoning_tokens: ev.usage.reasoningTokens,
        context_used_tokens: ev.context.usedTokens,
        context_window_tokens: ev.context.windowTokens,
        // Rounded: a fraction with 16 digits says nothing more and makes the line harder to read.
        context_left: Math.round(ev.context.leftFraction * 1000) / 1000,
        context_window_source: ev.context.windowSource,
      };
    case 'workspace_changed':
      return { type: 'workspace_changed', changes: ev.changes.map((c) => ({ status: c.status, path: c.path })) };
    case 'turn_done':
      return { type: 'final', response_id: ev.responseId, text: ev.text, duration_ms: ev.durationMs };
    case 'request_start':
    case 'reasoning_done':
    case 'command_start':
    case 'command_output':
    case 'turn_interrupted':
    case 'turn_failed':
      return null;
  }
}

/** Exec sessions (tools/exec/manager.ts): start, output batched per 100 ms, exit; the key redacted. */
export function execEventLine(ev: ExecEvent, redact: (text: string) => string): JsonLine {
  switch (ev.type) {
    case 'exec_start':
      return { type: 'exec_session_start', session_id: ev.sessionId, command: redact(ev.command), tty: ev.tty, pid: ev.pid };
    case 'exec_output':
      return { type: 'exec_output', session_id: ev.sessionId, chunk: redact(ev.chunk), dropped_bytes: ev.droppedBytes };
    case 'exec_exit':
      return { type: 'exec_session_exit', session_id: ev.sessionId, exit_code: ev.code, signal: ev.signal, stopped: ev.stopped };
  }
}

export function sessionLine(p: { cwd: string; model: string; previousResponseId: string | null; stateFile: string }): JsonLine {
  return { type: 'session', mode: 'oneshot', cwd: p.cwd, model: p.model, previous_response_id: p.previousResponseId, state_file: p.stateFile };
}

export function errorLine(kind: string, message: string, exitCode: number): JsonLine {
  return { type: 'error', kind, message, exit_code: exitCode };
}

export function jsonLine(obj: JsonLine): string {
  return `${JSON.stringify(obj)}\n`;
}
