import { describe, expect, it } from 'vitest';
import type { ToolProgress } from './tool.ts';
import { parsePlan, type Plan } from './plan.ts';
import { createPlanTool } from './plan-tool.ts';
import { unexpectedApproval } from '../../test/support/tools.ts';

const call = (args: unknown) => ({
  type: 'function_call' as const,
  call_id: 'u1',
  name: 'update_plan',
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

describe('update_plan', () => {
  it("accepts Codex's shape and keeps the plan and an event", async () => {
    const saved: Plan[] = [];
    const events: ToolProgress[] = [];
    const tool = createPlanTool({ save: (p) => saved.push(p) });
    const parsed = tool.parse(
      call({
        explanation: 'fix it',
        plan: [
          { step: 'read', status: 'completed' },
          { step: 'patch', status: 'in_progress' },
          { step: 'test', status: 'pending' },
        ],
      }),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.call.title).toBe('update_plan (1/3 done)');
    const result = await tool.run(parsed.call, {
      cwd: '/',
      workspaceRoot: '/',
      signal: new AbortController().signal,
      progress: (e) => events.push(e),
      retry: false,
      approve: unexpectedApproval,
    });
    expect(result.reply).toEqual({ ok: true, text: 'Plan updated' });
    expect(saved[0]?.steps.map((s) => s.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(events).toEqual([{ type: 'plan_updated', callId: 'u1', plan: saved[0] }]);
  });

  it('answers a malformed plan with an error the model can act on, and shows nothing', () => {
    const tool = createPlanTool({
      save: () => {
        throw new Error('must not save');
      },
    });
    const error = (args: unknown): string => {
      const r = tool.parse(call(args));
      return r.ok ? 'accepted' : r.error;
    };
    expect(
      error({
        plan: [
          { step: 'a', status: 'in_progress' },
          { step: 'b', status: 'in_progress' },
        ],
      }),
    ).toMatch(/2 steps are in_progress; at most one/);
    expect(error({ plan: [{ step: 'a', status: 'done' }] })).toMatch(/plan\[0\]\.status is "done"; it must be one of pending, in_progress, completed/);
    expect(error({ plan: [{ step: '  ', status: 'pending' }] })).toMatch(/non-empty "step"/);
    expect(error({ steps: [] })).toMatch(/"plan" must be an array/);
    expect(error('{"plan": [')).toMatch(/not valid JSON/);
    expect(error({ plan: Array.from({ length: 51 }, () => ({ step: 'x', status: 'pending' })) })).toMatch(/at most 50/);
  });

  it('reads a saved plan back tolerantly', () => {
    expect(parsePlan({ explanation: 'e', plan: [{ step: 's', status: 'pending' }] })).toEqual({
      ok: true,
      plan: { explanation: 'e', steps: [{ step: 's', status: 'pending' }] },
    });
    expect(parsePlan(undefined).ok).toBe(false);
  });
});
