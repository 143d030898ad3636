// update_plan: the model keeps a short checklist of its task (Codex's schema, which the OpenAI
// models are trained on). It changes nothing but what the person sees: a `plan_updated` event
// (a checklist in the terminal, a `plan` line in --json) and the session's saved plan, which a
// resumed session shows again. A malformed plan is a model-facing error; nothing is rendered.
import type { FunctionToolDefinition } from '../wire/items.ts';
import { parsePlan, PLAN_STATUSES, type Plan } from './plan.ts';
import type { ParsedCall, ParseResult, Tool } from './tool.ts';

export const UPDATE_PLAN_NAME = 'update_plan';
export interface PlanCall extends ParsedCall {
  plan: Plan;
}

export function updatePlanDefinition(): FunctionToolDefinition {
  return {
    type: 'function',
    name: UPDATE_PLAN_NAME,
    description:
      'Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        explanation: { type: 'string' },
        plan: {
          type: 'array',
          description: 'The list of steps',
          items: {
            type: 'object',
            properties: {
              step: { type: 'string' },
              status: { type: 'string', description: 'One of: pending, in_progress, completed', enum: [...PLAN_STATUSES] },
            },
            required: ['step', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['plan'],
      additionalProperties: false,
    },
  };
}

export interface PlanToolOptions {
  /** Keeps the plan in the session (restored on resume, shown by /plan). */
  save(plan: Plan): void;
}

export function createPlanTool(options: PlanToolOptions): Tool<PlanCall> {
  return {
    name: UPDATE_PLAN_NAME,
    writes: false,
    definitions: () => [updatePlanDefinition()],
    accepts: (item) => item.type === 'function_call' && item.name === UPDATE_PLAN_NAME,
    parse(item): ParseResult<PlanCall> {
      if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: 'update_plan is a function tool' };
      let args: unknown;
      try {
        args = JSON.parse(item.arguments);
      } catch {
        return { ok: false, callId: item.call_id, error: 'update_plan: the arguments are not valid JSON' };
      }
      const parsed = parsePlan(args);
      if (!parsed.ok) return { ok: false, callId: item.call_id, error: `update_plan: ${parsed.error}` };
      const done = parsed.plan.steps.filter((s) => s.status === 'completed').length;
      return { ok: true, call: { callId: item.call_id, title: `update_plan (${done}/${parsed.plan.steps.length} done)`, commands: [], plan: parsed.plan } };
    },
    run(call, ctx) {
      options.save(call.plan);
      ctx.progress({ type: 'plan_updated', callId: call.callId, plan: call.plan });
      return Promise.resolve({
        reply: { ok: true, text: 'Plan updated' },
        summary: [`plan: ${call.plan.steps.map((s) => `[${s.status}] ${s.step}`).join('; ')}`],
        interrupted: false,
      });
    },
  };
}
