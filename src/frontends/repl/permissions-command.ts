// /approvals [MODE]: the approval mode, switched for the rest of the session. /permissions: the
// rules in force and where each comes from; /permissions approve puts a project's allow rules in
// force (its exact content, remembered like an approved .mcp.json).
import { approveProjectRules } from '../../config/permission-rules.ts';
import { APPROVAL_MODES, type ApprovalMode } from '../../tools/permissions/escalation.ts';
import { ruleJson } from '../../tools/permissions/rules.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';

export function approvalsCommand(ctx: ReplContext, arg: string): void {
  const t = ctx.theme;
  if (arg === '') {
    say(ctx, `approval mode: ${t.bold(ctx.permissions.mode)} (${APPROVAL_MODES.join(', ')}: /approvals MODE switches)`);
    return;
  }
  if (!(APPROVAL_MODES as readonly string[]).includes(arg)) {
    say(ctx, t.red(`✗ /approvals: expected ${APPROVAL_MODES.join(', ')}, got "${sanitizeLine(arg)}"`));
    return;
  }
  ctx.permissions.setMode(arg as ApprovalMode);
  // Commands and patch confirmation read the mode at each call.
  say(ctx, t.green(`✓ approval mode: ${arg}`));
}

export function permissionsCommand(ctx: ReplContext, arg: string): void {
  const t = ctx.theme;
  if (arg === 'approve') {
    const added = approveProjectRules(ctx.env, ctx.loadedRules, new Date());
    if (added.length === 0) say(ctx, 'no project allow rules are waiting for approval');
    else {
      ctx.permissions.activate(added);
      say(ctx, t.green(`✓ ${added.length} allow rule${added.length === 1 ? '' : 's'} of ${sanitizeLine(ctx.loadedRules.project?.path ?? '')} in force`));
    }
    return;
  }
  const lines = [`approval mode: ${t.bold(ctx.permissions.mode)}; rules (deny wins, then ask, then allow):`];
  const rules = ctx.permissions.rulesInForce();
  if (rules.length === 0) lines.push(t.dim('  none'));
  for (const r of rules) lines.push(`  ${sanitizeLine(ruleJson(r))}  ${t.dim(sanitizeLine(r.source))}`);
  for (const r of ctx.permissions.inactiveRules())
    lines.push(`  ${sanitizeLine(ruleJson(r))}  ${t.yellow(`${sanitizeLine(r.source)} (not approved: /permissions approve)`)}`);
  lines.push(t.dim(`  "always allow" saves to ${sanitizeLine(ctx.permissions.userRulesPath)}`));
  say(ctx, lines.join('\n'));
}
