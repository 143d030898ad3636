// The tool registry: the one place that knows every tool. It offers their definitions, routes a
// call item to its tool, and says why a call item has no tool or bad arguments (the turn loop
// answers those, like every call that was not run, with wire-output.ts notRunOutput).
import type { HostedItem, ToolCallItem, ToolDefinition } from '../wire/items.ts';
import { isHostedTool, isLocalTool, type AnyTool, type HostedContext, type HostedTool, type LocalTool, type ParsedCall } from './tool.ts';

export interface ResolvedCall {
  tool: LocalTool;
  call: ParsedCall;
}

export type Resolution = ({ ok: true } & ResolvedCall) | { ok: false; callId: string; title: string; error: string };

export class ToolRegistry {
  private readonly local: LocalTool[];
  private readonly hosted: HostedTool[];

  constructor(private readonly tools: readonly AnyTool[]) {
    this.local = tools.filter(isLocalTool);
    this.hosted = tools.filter(isHostedTool);
  }

  definitions(): ToolDefinition[] {
    return this.tools.flatMap((t) => t.definitions());
  }

  names(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** Shows a hosted tool's server-side item through the tool that offered it; false when none does. */
  observe(item: HostedItem, phase: 'added' | 'done', ctx: HostedContext): boolean {
    const tool = this.hosted.find((t) => t.observes(item));
    if (tool === undefined) return false;
    tool.observe(item, phase, ctx);
    return true;
  }

  resolve(item: ToolCallItem): Resolution {
    const tool = this.local.find((t) => t.accepts(item));
    if (tool === undefined) {
      const name = 'name' in item ? item.name : item.type;
      return {
        ok: false,
        callId: item.call_id,
        title: name,
        error: `unknown tool "${name}": the available tools are ${this.names()
          .map((n) => `"${n}"`)
          .join(', ')}`,
      };
    }
    const parsed = tool.parse(item);
    if (!parsed.ok) return { ok: false, callId: item.call_id, title: `${tool.name} (invalid call)`, error: parsed.error };
    return { ok: true, tool, call: parsed.call };
  }
}
