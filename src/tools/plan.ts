// The model's plan (update_plan): its data and the one tolerant reader, for the model's
// arguments and the state file alike. Pure; imports nothing of the tools (tool.ts names Plan).
import { isRecord } from '../lib/guards.ts';

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanStep {
  step: string;
  status: PlanStatus;
}
export interface Plan {
  explanation?: string;
  steps: PlanStep[];
}

/** Bounds that keep one call from filling the screen or the state file. */
export const MAX_PLAN_STEPS = 50;
export const MAX_STEP_CHARS = 500;
const MAX_EXPLANATION_CHARS = 2000;

/** A plan from untrusted JSON (the model's arguments, a state file): the plan, or what is wrong with it. */
export function parsePlan(value: unknown): { ok: true; plan: Plan } | { ok: false; error: string } {
  if (!isRecord(value)) return { ok: false, error: 'the arguments must be an object with a "plan" array' };
  const { explanation, plan } = value;
  if (!Array.isArray(plan)) return { ok: false, error: '"plan" must be an array of {"step", "status"} items' };
  if (plan.length > MAX_PLAN_STEPS) return { ok: false, error: `"plan" has ${plan.length} steps; at most ${MAX_PLAN_STEPS}` };
  if (explanation !== undefined && explanation !== null && typeof explanation !== 'string') return { ok: false, error: '"explanation" must be a string' };
  const steps: PlanStep[] = [];
  for (const [i, item] of plan.entries()) {
    if (!isRecord(item) || typeof item.step !== 'string' || item.step.trim() === '')
      return { ok: false, error: `plan[${i}] must have a non-empty "step" string` };
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
