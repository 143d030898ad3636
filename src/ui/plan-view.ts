// The model's plan (update_plan) as a checklist. Every string is the model's: sanitized to one
// line each, so no escape sequence or line break it wrote reaches the terminal.
import type { Plan } from '../tools/plan.ts';
import { sanitizeLine } from './sanitize.ts';
import type { Theme } from './theme.ts';

export function planLines(plan: Plan, t: Theme): string[] {
  const done = plan.steps.filter((s) => s.status === 'completed').length;
  const head = `${t.cyan('☰ plan')} ${t.dim(`${done}/${plan.steps.length} done`)}${plan.explanation === undefined ? '' : ` ${t.dim('·')} ${sanitizeLine(plan.explanation)}`}`;
  const rows = plan.steps.map((s) => {
    const text = sanitizeLine(s.step);
    if (s.status === 'completed') return `  ${t.green('✓')} ${t.dim(text)}`;
    if (s.status === 'in_progress') return `  ${t.yellow('▸')} ${t.bold(text)}`;
    return `  ${t.dim('□')} ${text}`;
  });
  return [head, ...rows];
}
