// Custom slash commands: Markdown prompt files in ~/.config/agentx/commands/ (the person's) and
// a project's .agentx/commands/. `/name args` sends the file's text with $ARGUMENTS replaced by
// args (or args appended when the file does not say where). They are plain text: a project's
// command runs nothing by itself, it only becomes the message the person chose to send.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseFrontMatter } from '../lib/front-matter.ts';
import { errorCode, errorMessage } from '../lib/fsutil.ts';
import { userMcpConfigPath } from '../tools/mcp/approval.ts';

export interface CustomCommand {
  name: string;
  description: string;
  /** The prompt text (front matter removed). */
  template: string;
  path: string;
  scope: 'user' | 'project';
}

/** A command file bigger than this is not a prompt anyone meant to send. */
const MAX_COMMAND_BYTES = 64 * 1024;
const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

export function userCommandsDir(env: NodeJS.ProcessEnv): string {
  return join(dirname(userMcpConfigPath(env)), 'commands');
}

export function projectCommandsDir(projectDir: string): string {
  return join(projectDir, '.agentx', 'commands');
}

function readDir(dir: string, scope: CustomCommand['scope'], problems: string[]): CustomCommand[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') problems.push(`${dir}: cannot be read (${errorMessage(err)})`);
    return [];
  }
  const out: CustomCommand[] = [];
  for (const file of names.sort()) {
    if (!file.endsWith('.md')) continue;
    const name = file.slice(0, -3);
    const path = join(dir, file);
    if (!NAME.test(name)) {
      problems.push(`${path}: a command name is letters, digits, - and _; skipped`);
      continue;
    }
    try {
      const st = statSync(path);
      if (!st.isFile()) continue;
      if (st.size > MAX_COMMAND_BYTES) {
        problems.push(`${path}: ${st.size} bytes, more than a command file may have (${MAX_COMMAND_BYTES}); skipped`);
        continue;
      }
      const text = readFileSync(path, 'utf8');
      const malformed = malformedCommand(text);
      if (malformed !== null) {
        problems.push(`${path}: ${malformed}; skipped`);
        continue;
      }
      const { fields, body } = parseFrontMatter(text);
      const description = fields.description ?? body.trim().split('\n')[0] ?? '';
      out.push({ name, description, template: body.trim(), path, scope });
    } catch (err) {
      problems.push(`${path}: cannot be read (${errorMessage(err)}); skipped`);
    }
  }
  return out;
}

/**
 * Why a command file cannot be used, or null: a front matter left open would be sent to the
 * model as the prompt, and an empty prompt sends nothing the person meant.
 */
function malformedCommand(text: string): string | null {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (normalized.startsWith('---\n') && !normalized.slice(3).includes('\n---')) return 'the front matter opened with --- is never closed';
  if (parseFrontMatter(text).body.trim() === '') return 'the file has no prompt text';
  return null;
}

/** The commands by name: a project's command of the same name wins over the person's (it is closer). */
export function loadCustomCommands(env: NodeJS.ProcessEnv, projectDir: string, reserved: readonly string[]): { commands: CustomCommand[]; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map<string, CustomCommand>();
  for (const c of [...readDir(userCommandsDir(env), 'user', problems), ...readDir(projectCommandsDir(projectDir), 'project', problems)]) {
    if (reserved.includes(c.name.toLowerCase())) {
      problems.push(`${c.path}: /${c.name} is a built-in command; the file is not used`);
      continue;
    }
    byName.set(c.name.toLowerCase(), c);
  }
  return { commands: [...byName.values()], problems };
}

/** The message a command sends: $ARGUMENTS replaced, or the arguments after the text. */
export function expandCommand(command: CustomCommand, args: string): string {
  if (command.template.includes('$ARGUMENTS')) return command.template.split('$ARGUMENTS').join(args);
  return args === '' ? command.template : `${command.template}\n\n${args}`;
}
