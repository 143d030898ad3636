// MCP servers' tools as one registry entry: every tool of every connected server is offered as a
// function `mcp__<server>__<tool>` (tools/mcp/naming.ts) and journaled, confirmed and shown like
// any other call. The manager is passed in: its SDK is loaded lazily, only when servers exist.
import type { FunctionOutputPart } from '../wire/items.ts';
import type { McpCallRecord } from './mcp/call.ts';
import type { McpManager } from './mcp/manager.ts';
import { ProgressThrottle, progressLabel, progressLine } from './mcp/progress.ts';
import type { ProgressReport } from './mcp/progress.ts';
import type { ParsedCall, Tool, ToolContext, ToolResult } from './tool.ts';

export interface McpCall extends ParsedCall {
  record: McpCallRecord;
}

export function createMcpTool(manager: McpManager): Tool<McpCall> {
  async function run(call: McpCall, ctx: ToolContext): Promise<ToolResult> {
    // The server's progress reports, one line a second at most (tools/mcp/progress.ts); the
    // state still waiting is shown by end(), before the call's result, and nothing after it.
    const label = progressLabel(call.record.server, call.record.tool);
    const throttle = new ProgressThrottle((message) => ctx.progress({ type: 'tool_progress', callId: call.callId, tool: label, message }));
    const onProgress = (report: ProgressReport): void => {
      const line = progressLine(report);
      if (line !== undefined) throttle.push(line);
    };
    const outcome = await manager.call(call.record, { signal: ctx.signal, onProgress }).finally(() => throttle.end());
    ctx.progress({
      type: 'mcp_call_done',
      callId: call.callId,
      server: call.record.server,
      tool: call.record.tool,
      status: outcome.status,
      durationMs: outcome.durationMs,
      outputBytes: Buffer.byteLength(outcome.output, 'utf8'),
      truncatedBytes: outcome.cutBytes,
    });
    // With images the output is content parts: the text, then each image (`input_image` once sent).
    const parts: FunctionOutputPart[] | undefined = outcome.images.length === 0 ? undefined : [{ type: 'input_text', text: outcome.output }, ...outcome.images];
    return {
      reply: { ok: outcome.status === 'ok', text: outcome.output, ...(parts !== undefined ? { parts } : {}) },
      summary: [`${call.title} → ${outcome.status}\n${outcome.output.slice(0, 400)}`],
      interrupted: outcome.status === 'interrupted',
    };
  }

  return {
    name: 'mcp',
    // No server says which of its tools only read: every MCP call may write.
    writes: true,
    definitions: () => manager.toolDefinitions(),
    accepts: (item) => item.type === 'function_call' && manager.resolveName(item.name) !== undefined,
    parse(item) {
      const record = item.type === 'function_call' ? manager.describeCall(item.name, item.arguments) : undefined;
      if (record === undefined) return { ok: false, callId: item.call_id, error: 'not an MCP tool' };
      return { ok: true, call: { callId: item.call_id, title: manager.displayLine(record), commands: [], record } };
    },
    run,
    retryWarning: manager.retryNotice,
  };
}
