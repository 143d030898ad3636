// What the person and their team add to the REPL: custom slash commands (config/commands.ts)
// and the skills listing (config/skills.ts). Files are read when used, so a new or edited file
// counts at once; each problem with one is a line, and the rest still works.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expandCommand, loadCustomCommands } from '../../config/commands.ts';
import { loadSkills } from '../../config/skills.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, tildePath, type ReplContext } from './context.ts';

/** The message of custom command `/name args`, or undefined when there is no such command. */
export function customCommand(ctx: ReplContext, name: string, args: string, builtIn: readonly string[]): string | undefined {
  const { commands, problems } = loadCustomCommands(ctx.env, ctx.session.dir, builtIn);
  const found = commands.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (found === undefined) {
    for (const p of problems) say(ctx, ctx.theme.yellow(`⚠ ${sanitizeLine(p)}`));
    return undefined;
  }
  say(ctx, ctx.theme.dim(`/${sanitizeLine(found.name)} (${found.scope} command, ${sanitizeLine(tildePath(found.path, ctx.home))})`));
  return expandCommand(found, args);
}

/** /skills: each skill the model may load, and the custom commands. */
export function skillsCommand(ctx: ReplContext, builtIn: readonly string[]): void {
  const t = ctx.theme;
  const { skills, problems } = loadSkills(ctx.home, ctx.session.dir);
  for (const p of problems) say(ctx, t.yellow(`⚠ ${sanitizeLine(p)}`));
  if (skills.length === 0) say(ctx, t.dim('no skills (a skill is a folder with a SKILL.md in .agents/skills/ or ~/.agents/skills/)'));
  for (const s of skills)
    say(ctx, `${t.cyan(sanitizeLine(s.name))} ${t.dim(`(${s.scope})`)} ${sanitizeLine(s.description)} ${t.dim(sanitizeLine(tildePath(s.path, ctx.home)))}`);
  const custom = loadCustomCommands(ctx.env, ctx.session.dir, builtIn);
  for (const p of custom.problems) say(ctx, t.yellow(`⚠ ${sanitizeLine(p)}`));
  const commands = custom.commands;
  for (const c of commands) say(ctx, `${t.cyan(`/${sanitizeLine(c.name)}`)} ${t.dim(`(${c.scope} command)`)} ${sanitizeLine(c.description)}`);
}

/** What /init asks of the model. */
export const INIT_MESSAGE = [
  'Create an AGENTS.md file at the root of this workspace with instructions for coding agents working in this repository.',
  'First explore: the layout, the languages and tools, how to build, test, lint and run it (read the README, package or build files, CI configuration), and the conventions the code follows.',
  'Then write AGENTS.md with apply_patch: short sections for the project layout, the exact build/test/lint commands, the code style and conventions, and anything an agent must not do. Keep it under about 60 lines, concrete, and true for this repository only; do not invent commands you did not find.',
].join('\n');

/**
 * /init: the model explores and writes AGENTS.md; its patch is shown and waits for the person's
 * yes (ctx.reviewPatchesOnce). Undefined (and said why) when it cannot or should not run.
 */
export function initCommand(ctx: ReplContext): string | undefined {
  const t = ctx.theme;
  if (existsSync(join(ctx.session.dir, 'AGENTS.md'))) {
    say(ctx, t.yellow('AGENTS.md already exists here; edit it, or ask the model to improve it'));
    return undefined;
  }
  if (ctx.planMode === true || ctx.config.patchTool === 'off') {
    say(ctx, t.red(`/init needs the apply_patch tool (${ctx.planMode === true ? 'plan mode is on: /plan off' : 'it is off: --patch-tool'})`));
    return undefined;
  }
  ctx.reviewPatchesOnce = true;
  say(ctx, t.dim('the model explores the project and proposes AGENTS.md; you see the patch before it is written'));
  return INIT_MESSAGE;
}
