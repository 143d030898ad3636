// Remote MCP servers called by the API itself ({type: "mcp", server_url, headers, …}): the
// configured `"type": "remote"` entries. The server lists their tools and calls them; agentx shows
// those items (mcp_list_tools, mcp_call) and answers the server's approval requests on the
// engine's question channel: the person decides in the REPL, a policy decides in one-shots. An
// approval request is journaled like a call (its answer is recorded before it is sent), so a crash
// neither loses nor repeats an answer.
import type { HostedItem, HostedMcpToolDefinition, McpApprovalPolicy, McpApprovalRequestItem, ToolDefinition } from '../../wire/items.ts';
import type { HostedProgress, HostedTool, LocalTool, ParsedCall, ToolContext, ToolResult } from '../tool.ts';
import { redactUrls } from '../../lib/display-url.ts';
import { clipChars } from '../../lib/text.ts';

/** A remote server ready to offer: headers already expanded (they hold secrets: never logged or stored). */
export interface RemoteMcpServer {
  /** The name in the config file. */
  name: string;
  /** The label the API uses in its items (the name made safe). */
  label: string;
  url: string;
  headers: Record<string, string>;
  requireApproval: McpApprovalPolicy;
  allowedTools?: string[];
}

export type { ApprovalDecision, ApprovalQuestion } from '../tool.ts';

export interface ApprovalCall extends ParsedCall {
  item: McpApprovalRequestItem;
}

/** One-line argument text for prompts: compact and capped. */
export function argumentsPreview(json: string, max = 160): string {
  let text = json;
  try {
    text = JSON.stringify(JSON.parse(json));
  } catch {
    // Shown as the server sent it.
  }
  return clipChars(text, max);
}

export function remoteDefinition(s: RemoteMcpServer): HostedMcpToolDefinition {
  const def: HostedMcpToolDefinition = { type: 'mcp', server_label: s.label, server_url: s.url, require_approval: s.requireApproval };
  if (Object.keys(s.headers).length > 0) def.headers = { ...s.headers };
  if (s.allowedTools !== undefined) def.allowed_tools = [...s.allowedTools];
  return def;
}

export function remoteMcpProgress(item: HostedItem): HostedProgress | undefined {
  if (item.type === 'mcp_list_tools') {
    const ev: HostedProgress = { type: 'hosted_mcp_tools', id: item.id, server: item.server_label, tools: item.tools.map((t) => t.name) };
    // The API's message may quote the server's URL, whose query may hold a key.
    if (item.error) ev.error = redactUrls(item.error);
    return ev;
  }
  if (item.type === 'mcp_call') {
    const error = item.error ?? (item.status === 'failed' ? 'the call failed' : undefined);
    const ev: HostedProgress = {
      type: 'hosted_mcp_call',
      id: item.id,
      server: item.server_label,
      tool: item.name,
      arguments: item.arguments,
      ok: error === undefined || error === null,
      outputBytes: Buffer.byteLength(item.output ?? '', 'utf8'),
    };
    if (error) ev.error = redactUrls(error);
    return ev;
  }
  return undefined;
}

export function createRemoteMcpTool(servers: readonly RemoteMcpServer[]): LocalTool<ApprovalCall> & HostedTool {
  async function run(call: ApprovalCall, ctx: ToolContext): Promise<ToolResult> {
    const { item } = call;
    // Asked on the engine's question channel (the REPL's menu, a one-shot's policy), which also
    // reports the question and the decision: the tool emits nothing of its own about it.
    const decision = await ctx.approve({ server: item.server_label, tool: item.name, arguments: item.arguments });
    return {
      // A refusal's reason goes back to the server; an approval carries none.
      reply: { ok: decision.approve, text: decision.approve ? '' : (decision.reason ?? '') },
      summary: [`${call.title} → ${decision.approve ? 'approved' : 'denied'}`],
      interrupted: ctx.signal.aborted,
    };
  }

  return {
    name: 'remote_mcp',
    writes: false,
    definitions: (): ToolDefinition[] => servers.map(remoteDefinition),
    accepts: (item) => item.type === 'mcp_approval_request',
    parse(item) {
      if (item.type !== 'mcp_approval_request') return { ok: false, callId: item.call_id, error: 'not an MCP approval request' };
      return { ok: true, call: { callId: item.call_id, title: `${item.server_label}.${item.name} ${argumentsPreview(item.arguments)}`, commands: [], item } };
    },
    run,
    asksPerson: true,
    observes: (item) => item.type === 'mcp_call' || item.type === 'mcp_list_tools',
    observe(item, phase, ctx) {
      // Shown when done: that is when the server has the tool list or the call's result.
      if (phase !== 'done') return;
      const ev = remoteMcpProgress(item);
      if (ev) ctx.progress(ev);
    },
  };
}
