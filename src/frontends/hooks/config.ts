// Hooks files: ~/.config/agentx/hooks.json (the person's) and a project's .agentx/hooks.json,
// in Claude Code's shape so existing files work:
//   {"hooks": {"PreToolUse": [{"matcher": "shell", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}}
// A malformed entry is one line and skipped; the rest loads. A project's file runs nothing until
// the person approved that exact content (the same store as .mcp.json: tools/mcp/approval.ts).
import { isRecord } from '../../lib/guards.ts';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HookEventName } from '../../engine/hooks.ts';
import { nodeCrypto } from '../../lib/builtins.ts';
import { errorCode, errorMessage } from '../../lib/fsutil.ts';
import { jsonParseError } from '../../lib/json-error.ts';
import { approvalsPath, isApproved, recordApproval, userMcpConfigPath } from '../../tools/mcp/approval.ts';

export const HOOK_EVENTS: readonly HookEventName[] = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'Notification'];
export const DEFAULT_HOOK_TIMEOUT_S = 60;
const MAX_HOOK_TIMEOUT_S = 600;
/** Tool events match on the tool's name; Claude Code's and Codex's name for a shell command is "Bash". */
const TOOL_EVENTS = new Set<HookEventName>(['PreToolUse', 'PostToolUse']);

export interface HookCommand {
  event: HookEventName;
  /** The matcher as written (shown in approvals and errors); undefined: every tool. */
  matcher: string | undefined;
  matches(toolName: string): boolean;
  command: string;
  timeoutMs: number;
  /** The person's own file may say `"sandbox": false`; a project's never can. */
  sandboxed: boolean;
  /** The file it came from. */
  file: string;
}

export interface HooksFile {
  path: string;
  /** sha256 of the content: what an approval is for. */
  sha256: string;
  hooks: HookCommand[];
  /** One line per problem; those entries were skipped. */
  problems: string[];
}

export function userHooksPath(env: NodeJS.ProcessEnv): string {
  return join(dirname(userMcpConfigPath(env)), 'hooks.json');
}

export function projectHooksPath(projectDir: string): string {
  return join(projectDir, '.agentx', 'hooks.json');
}

/** A tool matcher: empty or "*" matches all; otherwise the exact name or a regular expression over the whole name. */
function toolMatcher(matcher: string | undefined): ((name: string) => boolean) | string {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${matcher})$`);
  } catch (err) {
    return `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${errorMessage(err)})`;
  }
  const aliases = (name: string): string[] => (name === 'shell' || name === 'exec_command' ? [name, 'Bash'] : [name]);
  return (name) => aliases(name).some((n) => n === matcher || re.test(n));
}

/** Parses a hooks file's text; `own`: the person's file (may turn the sandbox off). */
export function parseHooksFile(path: string, text: string, own: boolean): HooksFile {
  const sha256 = nodeCrypto().createHash('sha256').update(text).digest('hex');
  const out: HooksFile = { path, sha256, hooks: [], problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    out.problems.push(`${jsonParseError(path, text, err)}; no hooks from it`);
    return out;
  }
  if (!isRecord(parsed) || !isRecord(parsed.hooks)) {
    out.problems.push(`${path}: expected {"hooks": {"EventName": [...]}}; no hooks from it`);
    return out;
  }
  let sandboxed = true;
  if (parsed.sandbox === false) {
    if (own) sandboxed = false;
    else out.problems.push(`${path}: "sandbox": false is honoured only in your own hooks file; these hooks run sandboxed`);
  }
  for (const [event, groups] of Object.entries(parsed.hooks)) {
    const name = HOOK_EVENTS.find((e) => e === event);
    if (name === undefined) {
      out.problems.push(`${path}: unknown hook event ${JSON.stringify(event)} (known: ${HOOK_EVENTS.join(', ')}); skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.problems.push(`${path}: hooks.${event} must be a list of {"matcher", "hooks"}; skipped`);
      continue;
    }
    for (const [i, group] of groups.entries()) {
      const where = `${path}: hooks.${event}[${i}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        out.problems.push(`${where} must have a "hooks" list; skipped`);
        continue;
      }
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      const matches = TOOL_EVENTS.has(name) ? toolMatcher(matcher) : () => true;
      if (typeof matches === 'string') {
        out.problems.push(`${where}: ${matches}; skipped`);
        continue;
      }
      for (const [j, hook] of group.hooks.entries()) {
        if (!isRecord(hook) || hook.type !== 'command' || typeof hook.command !== 'string' || hook.command.trim() === '') {
          out.problems.push(`${where}.hooks[${j}] must be {"type": "command", "command": "…"}; skipped`);
          continue;
        }
        const timeout = typeof hook.timeout === 'number' && hook.timeout > 0 ? Math.min(hook.timeout, MAX_HOOK_TIMEOUT_S) : DEFAULT_HOOK_TIMEOUT_S;
        out.hooks.push({ event: name, matcher, matches, command: hook.command, timeoutMs: Math.round(timeout * 1000), sandboxed, file: path });
      }
    }
  }
  return out;
}

/** Reads one hooks file; null when there is none. */
export function readHooksFile(path: string, own: boolean): HooksFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    return { path, sha256: '', hooks: [], problems: [`${path}: cannot be read (${errorMessage(err)}); no hooks from it`] };
  }
  return parseHooksFile(path, text, own);
}

export interface LoadedHooks {
  hooks: HookCommand[];
  problems: string[];
  /** A project file not approved yet (its hooks are not in `hooks`); approve() adds them. */
  pending?: HooksFile;
}

/** The person's hooks, then the project's if its exact content was approved. */
export function loadHooks(env: NodeJS.ProcessEnv, projectDir: string): LoadedHooks {
  const own = readHooksFile(userHooksPath(env), true);
  const project = readHooksFile(projectHooksPath(projectDir), false);
  const hooks = [...(own?.hooks ?? [])];
  const problems = [...(own?.problems ?? []), ...(project?.problems ?? [])];
  if (project === null || project.hooks.length === 0) return { hooks, problems };
  if (isApproved(approvalsPath(env), project.path, project.sha256)) return { hooks: [...hooks, ...project.hooks], problems };
  return { hooks, problems, pending: project };
}

/** Remembers the person's approval of this exact project hooks file. */
export function approveHooksFile(env: NodeJS.ProcessEnv, file: HooksFile, now: Date): void {
  recordApproval(approvalsPath(env), file.path, file.sha256, now);
}
