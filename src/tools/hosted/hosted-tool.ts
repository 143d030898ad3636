// A hosted tool is a Tool the server runs: it offers definitions and shows its server-side
// items (`observe`), and answers no call item, so nothing of it is ever journaled or run here.
import type { HostedItem, ToolDefinition } from '../../wire/items.ts';
import type { HostedContext, ParsedCall, Tool } from '../tool.ts';
import { functionCallOutput, notRunReply } from '../wire-output.ts';

export interface HostedToolSpec {
  name: string;
  definitions(): ToolDefinition[];
  observes(item: HostedItem): boolean;
  observe(item: HostedItem, phase: 'added' | 'done', ctx: HostedContext): void;
}

export function hostedTool(spec: HostedToolSpec): Tool {
  return {
    name: spec.name,
    // Runs on the server: nothing here changes the workspace.
    writes: false,
    definitions: () => spec.definitions(),
    accepts: () => false,
    // Unreachable (accepts nothing); answered like any call that is not this tool's.
    parse: (item) => ({ ok: false, callId: item.call_id, error: `${spec.name} runs on the server, not here` }),
    run: (call: ParsedCall) => Promise.resolve({
      output: functionCallOutput(call.callId, notRunReply({ type: 'function_call', call_id: call.callId }, `${spec.name} runs on the server, not here`)),
      summary: [],
      interrupted: false,
    }),
    observes: (item) => spec.observes(item),
    observe: (item, phase, ctx) => spec.observe(item, phase, ctx),
  };
}
