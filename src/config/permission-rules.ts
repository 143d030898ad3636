// The command rules files (docs/permissions.md): the person's ~/.config/agentx/rules.json and a
// project's .agentx/rules.json. A project's deny and ask rules apply at once (they only restrict);
// its allow rules hold only once the person approved that exact content, remembered outside every
// project (the same store as .mcp.json approvals), so a cloned repository cannot allow itself
// anything. A malformed file is one line naming it; one that may hold a deny or ask rule stops agentx.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../cli/errors.ts';
import { homeDir } from '../paths.ts';
import { approvalsPath, isApproved, recordApproval } from '../tools/mcp/approval.ts';
import { parseRulesText, type CommandRule } from '../tools/permissions/rules.ts';

export interface LoadedRules {
  /** the rules in force: the person's, the project's deny/ask, the project's allow once approved */
  rules: CommandRule[];
  /** the project's allow rules waiting for the person's approval (listed by /permissions) */
  inactive: CommandRule[];
  /** one line each: a malformed file whose allow rules are ignored, unapproved project rules */
  notices: string[];
  /** the project file and the hash of its content, for approving its allow rules */
  project: { path: string; sha256: string } | undefined;
  /** where "always allow this prefix" saves */
  userPath: string;
}

export function userRulesPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(homeDir(env), '.config');
  return join(base, 'agentx', 'rules.json');
}

export function projectRulesPath(projectDir: string): string {
  return resolve(projectDir, '.agentx', 'rules.json');
}

function readText(path: string): string | undefined | { error: string } {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    return { error: `${path}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** One file's rules; a malformed file that may hold a deny or ask rule throws (never silently drops a restriction). */
function loadOne(path: string, notices: string[]): { rules: CommandRule[]; text: string } | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  if (typeof text !== 'string') throw new ConfigError(`${text.error} (rules file unreadable; agentx does not start without its deny and ask rules)`);
  const parsed = parseRulesText(text, path);
  if (parsed.ok) return { rules: parsed.rules, text };
  if (parsed.fatal) throw new ConfigError(`${parsed.error} (the file holds deny or ask rules; fix it: agentx does not start without them)`);
  notices.push(`${parsed.error} (its rules are ignored)`);
  return undefined;
}

export function loadPermissionRules(env: NodeJS.ProcessEnv, projectDir: string): LoadedRules {
  const notices: string[] = [];
  const userPath = userRulesPath(env);
  const user = loadOne(userPath, notices);
  const projectPath = projectRulesPath(projectDir);
  // The person's own file in the project directory (agentx started in ~/.config's parent) is read once.
  const project = projectPath === userPath ? undefined : loadOne(projectPath, notices);
  const rules = [...(user?.rules ?? [])];
  let inactive: CommandRule[] = [];
  let projectRef: LoadedRules['project'];
  if (project !== undefined) {
    const sha256 = createHash('sha256').update(project.text).digest('hex');
    projectRef = { path: projectPath, sha256 };
    const allows = project.rules.filter((r) => r.decision === 'allow');
    rules.push(...project.rules.filter((r) => r.decision !== 'allow'));
    if (allows.length > 0 && isApproved(approvalsPath(env), projectPath, sha256)) rules.push(...allows);
    else if (allows.length > 0) {
      inactive = allows;
      notices.push(
        `${projectPath}: its ${allows.length} allow rule${allows.length === 1 ? ' is' : 's are'} not in force until you approve ${allows.length === 1 ? 'it' : 'them'} (/permissions approve in the interactive session); its deny and ask rules apply`,
      );
    }
  }
  return { rules, inactive, notices, project: projectRef, userPath };
}

/** Approves the project file's allow rules as they were read (an edit since asks again). */
export function approveProjectRules(env: NodeJS.ProcessEnv, loaded: LoadedRules, now: Date): CommandRule[] {
  if (loaded.project === undefined || loaded.inactive.length === 0) return [];
  recordApproval(approvalsPath(env), loaded.project.path, loaded.project.sha256, now);
  return loaded.inactive;
}
