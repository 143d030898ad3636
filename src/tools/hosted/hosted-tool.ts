// A hosted tool is one the server runs (tool.ts HostedTool): it offers definitions and shows its
// server-side items (`observe`), and answers no call item, so nothing of it is journaled or run here.
import type { HostedItem, ToolDefinition } from '../../wire/items.ts';
import type { HostedContext, HostedTool } from '../tool.ts';

export interface HostedToolSpec {
  name: string;
  definitions(): ToolDefinition[];
  observes(item: HostedItem): boolean;
  observe(item: HostedItem, phase: 'added' | 'done', ctx: HostedContext): void;
}

export function hostedTool(spec: HostedToolSpec): HostedTool {
  return {
    name: spec.name,
    definitions: () => spec.definitions(),
    observes: (item) => spec.observes(item),
    observe: (item, phase, ctx) => spec.observe(item, phase, ctx),
  };
}
