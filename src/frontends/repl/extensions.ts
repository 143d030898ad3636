// What the person and their team add to the REPL: custom slash commands (config/commands.ts)
// and the skills listing (config/skills.ts). Files are read when used, so a new or edited file
// counts at once; each problem with one is a line, and the rest still works.
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
  for (const s of skills) say(ctx, `${t.cyan(sanitizeLine(s.name))} ${t.dim(`(${s.scope})`)} ${sanitizeLine(s.description)} ${t.dim(sanitizeLine(tildePath(s.path, ctx.home)))}`);
  const custom = loadCustomCommands(ctx.env, ctx.session.dir, builtIn);
  for (const p of custom.problems) say(ctx, t.yellow(`⚠ ${sanitizeLine(p)}`));
  const commands = custom.commands;
  for (const c of commands) say(ctx, `${t.cyan(`/${sanitizeLine(c.name)}`)} ${t.dim(`(${c.scope} command)`)} ${sanitizeLine(c.description)}`);
}
