// /plan: plan mode and the model's saved plan. In plan mode the model reads and thinks but
// changes nothing (runtime.ts planModeConfig: read-only sandbox, no apply_patch, no MCP tools)
// until the person approves the plan; then work continues in the previous mode with a message
// that says so. The mode switch itself is the REPL's (it reconfigures the engine: CommandHooks).
import { parsePlan } from '../../tools/plan.ts';
import { planLines } from '../../ui/plan-view.ts';
import { say, type ReplContext } from './context.ts';

/** The message that starts the work once the person approved the plan. */
export const PLAN_APPROVED_MESSAGE =
  'The user approved your plan. Carry it out now: make the changes, run what checks you can, and keep the plan updated as you go.';

export type PlanAction = { kind: 'done' } | { kind: 'message'; text: string };

export interface PlanModeSwitch {
  /** Rebuilds the engine in plan mode (true) or in the person's configured mode (false). */
  setPlanMode(on: boolean): Promise<void>;
}

/** Shows the saved plan, if the model made one. */
export function showPlan(ctx: ReplContext): void {
  const saved = parsePlan(ctx.session.state.plan);
  if (!saved.ok || saved.plan.steps.length === 0) {
    say(ctx, ctx.theme.dim('no plan yet (the model makes one with update_plan)'));
    return;
  }
  for (const line of planLines(saved.plan, ctx.theme)) say(ctx, line);
}

/**
 * `/plan` enters plan mode (`/plan TEXT` also sends TEXT); in plan mode `/plan` shows the plan,
 * `/plan approve` leaves plan mode and starts the work, `/plan off` leaves without approving.
 * `/plan show` shows the saved plan in any mode.
 */
export async function planCommand(ctx: ReplContext, modes: PlanModeSwitch, arg: string): Promise<PlanAction> {
  const t = ctx.theme;
  const word = arg.toLowerCase();
  if (word === 'show') {
    showPlan(ctx);
    return { kind: 'done' };
  }
  if (word === 'approve' || word === 'off') {
    if (ctx.planMode !== true) {
      say(ctx, t.red('not in plan mode (/plan enters it)'));
      return { kind: 'done' };
    }
    await modes.setPlanMode(false);
    if (word === 'off') {
      say(ctx, t.green('✓ plan mode off: the model may change files again'));
      return { kind: 'done' };
    }
    say(ctx, t.green('✓ plan approved: plan mode off, the model carries it out'));
    return { kind: 'message', text: PLAN_APPROVED_MESSAGE };
  }
  if (ctx.planMode === true) {
    if (arg !== '') return { kind: 'message', text: arg };
    showPlan(ctx);
    say(ctx, t.dim('plan mode: /plan approve to carry the plan out, /plan off to leave'));
    return { kind: 'done' };
  }
  await modes.setPlanMode(true);
  say(ctx, t.green('✓ plan mode: the model reads and plans but changes nothing (commands read-only, no edits) until you /plan approve'));
  return arg === '' ? { kind: 'done' } : { kind: 'message', text: arg };
}

/** After a plan-mode turn: the menu that approves the plan (y) or keeps planning (n). */
export async function offerApproval(ctx: ReplContext, modes: PlanModeSwitch): Promise<string | undefined> {
  const t = ctx.theme;
  if (ctx.hooks?.has('Notification') === true) void ctx.hooks.run({ event: 'Notification', message: 'agentx waits for your approval of the plan' });
  ctx.out.write(`${t.yellow('?')} approve this plan and let the model carry it out? [y]es / [n]o, keep planning: `);
  const answer = await ctx.term.askKey(['y', 'n']);
  ctx.out.write(`${answer === 'y' ? 'y' : 'n'}\n`);
  if (answer !== 'y') return undefined;
  await modes.setPlanMode(false);
  say(ctx, t.green('✓ plan approved: plan mode off'));
  return PLAN_APPROVED_MESSAGE;
}
