// REPL commands that never reach the model: `!cmd`, `cd`, `clear`, `quit`/`exit` and the slash
// commands. Anything else is a message for the model.
import { statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CLI_OUTPUT_MAX_BYTES } from '../../store/state.ts';
import { OutputView } from '../../ui/output-view.ts';
import { isColorTheme } from '../../ui/theme.ts';
import { say, tildePath, type ReplContext } from './context.ts';
import { imageCommand } from './images.ts';
import { clearCommand } from './recovery.ts';
import { diffCommand } from './diff-command.ts';
import { rollbackCommand } from './rollback.ts';
import { planCommand, type PlanModeSwitch } from './plan-command.ts';
import { customCommand, initCommand, skillsCommand } from './extensions.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { usageReport } from './usage-view.ts';
import { psCommand, stopCommand } from './ps-command.ts';
import { modelCommand } from './model-command.ts';
import { approvalsCommand, permissionsCommand } from './permissions-command.ts';

export const SLASH_COMMANDS = [
  '/rollback',
  '/rollback undo',
  '/diff',
  '/usage',
  '/compact',
  '/clear',
  '/resume',
  '/model',
  '/mcp',
  '/image',
  '/plan',
  '/plan approve',
  '/plan off',
  '/plan show',
  '/skills',
  '/init',
  '/setup',
  '/ps',
  '/stop',
  '/approvals',
  '/permissions',
  '/help',
];

/** Names custom commands cannot take. */
const BUILT_IN = [...new Set(SLASH_COMMANDS.map((c) => c.slice(1).split(' ')[0] ?? '')), 'quit', 'exit'];

export type Dispatch = { kind: 'exit' } | { kind: 'done' } | { kind: 'message'; text: string };

export interface CommandHooks extends PlanModeSwitch {
  /** /setup: runs the setup dialogue and rewires the engine with the new configuration. */
  setup(): Promise<void>;
  /** /compact: compacts the conversation now (a request, so it runs like a turn: spinner, Ctrl-C). */
  compact(): Promise<void>;
  /** /resume: switches to an earlier conversation, then settles what it left unfinished (resume-command.ts). */
  resume(arg: string): Promise<void>;
}

const HELP = [
  'Type a message for the model, or:',
  '  !COMMAND           run COMMAND locally (its output is sent as context with your next message)',
  '  cd [DIR|~|-]       change the directory commands run in',
  '  /rollback [N]      go back to an earlier checkpoint (1 = newest), files too; /rollback undo reverts it',
  '  /diff [N]          what tool calls changed in files: in the last turn, or since checkpoint N',
  '  /usage             tokens and estimated cost of the last turn and the session, context window left',
  '  /compact           compact the conversation now to free context (agentx also does it near the limit)',
  '  /clear             start a fresh conversation, after a yes (the old one is kept: /resume)',
  '  /resume [N|--last] earlier conversations of this project (the last 50): date, turns, first message;',
  '                     pick one to go on with it (the current one is kept the same way)',
  '  /model [NAME [EFFORT]]  switch model (and reasoning effort), saved in your config; alone: lists them',
  '  /mcp               MCP servers: state, transport and tool count',
  '  /image PATH        attach an image to your next message (/image lists, /image clear drops them)',
  '  /plan [TEXT]       plan mode: the model reads and plans, changes nothing; /plan approve carries',
  "                     the plan out, /plan off leaves, /plan show shows the model's plan",
  '  /skills            the skills the model may load (SKILL.md in .agents/skills/ and ~/.agents/skills/)',
  '  /NAME [ARGS]       a custom command: .agentx/commands/NAME.md or ~/.config/agentx/commands/NAME.md,',
  '                     sent as a message with $ARGUMENTS replaced by ARGS',
  '  /init              the model explores the project and writes AGENTS.md (you see the patch first)',
  '  /approvals [MODE]  the approval mode: untrusted, on-request, never (docs/permissions.md)',
  "  /permissions       the command rules in force and where each comes from; approve: a project's allow rules",
  '  /ps                exec sessions the model started (servers, REPLs): id, age, command, last line',
  '  /stop [ID]         stop one exec session, or all of them (Ctrl-C stops a turn, not its sessions)',
  '  /setup             configure API key, model and base URL',
  '  clear              clear the screen',
  '  quit, exit, Ctrl-D leave agentx (the session is kept and resumed next time)',
  'Keys: Enter sends; Alt-Enter, Ctrl-J or \\ then Enter start a new line; ↑/↓ move over lines, then history;',
  '  Ctrl-R searches history; Tab completes /commands and paths; @ finds a project file (@path attaches it);',
  "  Ctrl-O shows the last command's full output; Esc-Esc or Ctrl-U clears; Ctrl-C twice on an empty prompt exits.",
  '  While the model works: Esc or Ctrl-C (Ctrl-T too) stops the turn and the command it runs;',
  '  what you type meanwhile is queued and sent when the turn ends (Ctrl-U drops it). Docs: docs/composer.md',
].join('\n');

/** node:readline completer for slash commands. */
export function completeCommand(line: string): [string[], string] {
  if (!line.startsWith('/')) return [[], line];
  const hits = SLASH_COMMANDS.filter((c) => c.startsWith(line));
  return [hits.length > 0 ? hits : SLASH_COMMANDS, line];
}

function unquote(s: string): string {
  const m = /^(['"])(.*)\1$/.exec(s);
  return m?.[2] ?? s;
}

/**
 * The argument of a local `cd` line, or undefined when the line is not one: `cd` takes one
 * (possibly quoted) argument, so "cd into src and run the tests" is a message for the model.
 */
export function cdArgument(line: string): string | undefined {
  const m = /^cd(?:\s+("[^"]*"|'[^']*'|\S+))?$/.exec(line.trim());
  return m ? (m[1] ?? '') : undefined;
}

export function changeDirectory(ctx: ReplContext, rawArg: string): void {
  const arg = unquote(rawArg.trim());
  let target: string;
  if (arg === '' || arg === '~') target = ctx.home;
  else if (arg === '-') {
    if (ctx.previousCwd === undefined) {
      say(ctx, ctx.theme.red('cd: no previous directory'));
      return;
    }
    target = ctx.previousCwd;
  } else if (arg.startsWith('~/')) target = join(ctx.home, arg.slice(2));
  else target = isAbsolute(arg) ? arg : resolve(ctx.cwd, arg);
  let isDir = false;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    say(ctx, ctx.theme.red(`cd: no such directory: ${arg}`));
    return;
  }
  ctx.previousCwd = ctx.cwd;
  ctx.cwd = resolve(target);
  if (arg === '-') say(ctx, tildePath(ctx.cwd, ctx.home));
}

/** `!command`: live output; Ctrl-C / Ctrl-T / Esc stop it; its transcript waits for the next request. */
export async function runBang(ctx: ReplContext, command: string): Promise<void> {
  if (command.trim() === '') {
    say(ctx, ctx.theme.red('usage: !COMMAND'));
    return;
  }
  const controller = new AbortController();
  ctx.term.setInterruptHandler(() => controller.abort());
  // Sanitised like model commands' output (no escapes reach the terminal), shown in full.
  const view = new OutputView({
    write: (s) => ctx.out.write(s),
    keepColors: isColorTheme(ctx.theme),
    width: (ctx.out.columns ?? 80) - 1,
    maxRows: Infinity,
    indent: '',
  });
  try {
    // The engine's runner: the same environment rules as model commands (no API key, scrub.ts),
    // since this output is stored and sent to the model too.
    const r = await ctx.commands.runUnsandboxed({
      command,
      cwd: ctx.cwd,
      signal: controller.signal,
      timeoutMs: 2 ** 31 - 1,
      maxOutputBytes: CLI_OUTPUT_MAX_BYTES,
      onOutput: (chunk, stream) => view.push(chunk, stream),
    });
    view.end();
    const t = ctx.theme;
    if (r.interrupted) say(ctx, t.yellow('⏹ interrupted'));
    else if (r.exitCode !== 0) say(ctx, t.red(`✗ exit ${r.exitCode ?? r.signal ?? '?'}`));
    const note = r.interrupted ? '[interrupted by the user]\n' : '';
    const output = `${r.stdout}${r.stderr}${note}`;
    ctx.lastOutput?.record(command, output);
    ctx.engine.recordLocalCommand({ command, cwd: ctx.cwd, exit_code: r.exitCode, output, truncated: r.truncatedBytes > 0 });
  } finally {
    ctx.term.setInterruptHandler(undefined);
  }
}

async function mcpCommand(ctx: ReplContext): Promise<void> {
  const { loadMcpConfig } = await import('../../tools/mcp/config.ts');
  const { formatMcpList } = await import('../../tools/mcp/list.ts');
  const config = await loadMcpConfig({ projectDir: ctx.session.dir, env: ctx.env });
  // Server names come from a project's .mcp.json, errors from the servers themselves.
  for (const line of formatMcpList(config, ctx.mcp?.servers() ?? [])) say(ctx, sanitizeLine(line));
}

export async function dispatch(ctx: ReplContext, hooks: CommandHooks, input: string): Promise<Dispatch> {
  const line = input.trim();
  if (line === '') return { kind: 'done' };
  if (line === 'quit' || line === 'exit') return { kind: 'exit' };
  if (line === 'clear') {
    ctx.out.write('\x1b[2J\x1b[3J\x1b[H');
    return { kind: 'done' };
  }
  if (line.startsWith('!')) {
    await runBang(ctx, line.slice(1).trim());
    return { kind: 'done' };
  }
  const cd = cdArgument(line);
  if (cd !== undefined) {
    changeDirectory(ctx, cd);
    return { kind: 'done' };
  }
  const m = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(line);
  if (!m) return { kind: 'message', text: input.trim() };
  const arg = (m[2] ?? '').trim();
  switch ((m[1] ?? '').toLowerCase()) {
    case 'rollback':
      await rollbackCommand(ctx, arg);
      break;
    case 'diff':
      await diffCommand(ctx, arg);
      break;
    case 'usage':
      ctx.out.write(usageReport(ctx.session.state, ctx.engine.shape.model, ctx.costs, ctx.theme, ctx.engine.contextWindow()));
      break;
    case 'compact':
      await hooks.compact();
      break;
    case 'clear':
      await clearCommand(ctx);
      break;
    case 'resume':
      await hooks.resume(arg);
      break;
    case 'model':
      await modelCommand(ctx, arg);
      break;
    case 'mcp':
      await mcpCommand(ctx);
      break;
    case 'image':
      await imageCommand(ctx, arg);
      break;
    case 'setup':
      await hooks.setup();
      break;
    case 'ps':
      psCommand(ctx);
      break;
    case 'approvals':
      approvalsCommand(ctx, arg);
      break;
    case 'permissions':
      permissionsCommand(ctx, arg);
      break;
    case 'stop':
      await stopCommand(ctx, arg);
      break;
    case 'plan': {
      const planned = await planCommand(ctx, hooks, arg);
      if (planned.kind === 'message') return planned;
      break;
    }
    case 'help':
      say(ctx, HELP);
      break;
    case 'quit':
    case 'exit':
      return { kind: 'exit' };
    case 'skills':
      skillsCommand(ctx, BUILT_IN);
      break;
    case 'init': {
      const text = initCommand(ctx);
      if (text !== undefined) return { kind: 'message', text };
      break;
    }
    default: {
      const custom = customCommand(ctx, m[1] ?? '', arg, BUILT_IN);
      if (custom !== undefined) return { kind: 'message', text: custom };
      say(ctx, ctx.theme.red(`unknown command /${sanitizeLine(m[1] ?? '')} (see /help)`));
    }
  }
  return { kind: 'done' };
}
