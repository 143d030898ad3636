// update_plan: the model keeps a short checklist of its task (Codex's schema, which the OpenAI
// models are trained on). It changes nothing but what the person sees: a `plan_updated` event
// (a checklist in the terminal, a `plan` line in --json) and the session's saved plan, which a
// resumed session shows again. A malformed plan is a model-facing error; nothing is rendered.
import type { FunctionToolDefinition } from '../wire/items.ts';
import type { ParsedCall, ParseResult, Tool } from './tool.ts';

export const UPDATE_PLAN_NAME = 'update_plan';
export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanStep { step: string; status: PlanStatus }
export interface Plan { explanation?: string; steps: PlanStep[] }

/** Bounds that keep one call from filling the screen or the state file. */
export const MAX_PLAN_STEPS = 50;
export const MAX_STEP_CHARS = 500;
const MAX_EXPLANATION_CHARS = 2000;

export interface PlanCall extends ParsedCall { plan: Plan }

export function updatePlanDefinition(): FunctionToolDefinition {
  return {
    type: 'function',
    name: UPDATE_PLAN_NAME,
    description: 'Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.',
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
            properties: { step: { type: 'string' }, status: { type: 'string', description: 'One of: pending, in_progress, completed', enum: [...PLAN_STATUSES] } },
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plan from untrusted JSON (the model's arguments, a state file): the plan, or what is wrong with it. */
export function parsePlan(value: unknown): { ok: true; plan: Plan } | { ok: false; error: string } {
  if (!isRecord(value)) return { ok: false, error: 'the arguments must be an object with a "plan" array' };
  const { explanation, plan } = value;
  if (!Array.isArray(plan)) return { ok: false, error: '"plan" must be an array of {"step", "status"} items' };
  if (plan.length > MAX_PLAN_STEPS) return { ok: false, error: `"plan" has ${plan.length} steps; at most ${MAX_PLAN_STEPS}` };
  if (explanation !== undefined && explanation !== null && typeof explanation !== 'string') return { ok: false, error: '"explanation" must be a string' };
  const steps: PlanStep[] = [];
  for (const [i, item] of plan.entries()) {
    if (!isRecord(item) || typeof item.step !== 'string' || item.step.trim() === '') return { ok: false, error: `plan[${i}] must have a non-empty "step" string` };
    const status = PLAN_STATUSES.find((s) => s === item.status);
    if (status === undefined) return { ok: false, error: `plan[${i}].status is ${JSON.stringify(item.status)}; it must be one of ${PLAN_STATUSES.join(', ')}` };
    steps.push({ step: item.step.trim().slice(0, MAX_STEP_CHARS), status });
  }
  const inProgress = steps.filter((s) => s.status === 'in_progress').length;
  if (inProgress > 1) return { ok: false, error: `${inProgress} steps are in_progress; at most one step can be in_progress at a time` };
  const text = typeof explanation === 'string' ? explanation.trim().slice(0, MAX_EXPLANATION_CHARS) : '';
  return { ok: true, plan: text === '' ? { steps } : { explanation: text, steps } };
}

/** The plan as the state file keeps it (the model's field names). */
export function planRecord(plan: Plan): { explanation?: string; plan: PlanStep[] } {
  return plan.explanation === undefined ? { plan: plan.steps } : { explanation: plan.explanation, plan: plan.steps };
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
        output: { type: 'function_call_output', call_id: call.callId, output: 'Plan updated' },
        summary: [`plan: ${call.plan.steps.map((s) => `[${s.status}] ${s.step}`).join('; ')}`],
        interrupted: false,
      });
    },
  };
}
