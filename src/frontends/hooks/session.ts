// The session's hooks: the person's file and (once approved) the project's, bound to the
// session's command sandbox. Problems in the files are one line each; the rest still loads.
import type { SessionHooks } from '../../engine/hooks.ts';
import { randomHex } from '../../lib/fsutil.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import type { CommandRunner } from '../runtime.ts';
import { approveHooksFile, loadHooks, type HooksFile } from './config.ts';
import { createSessionHooks } from './run.ts';

export interface HooksInput {
  env: NodeJS.ProcessEnv;
  projectDir: string;
  commands: CommandRunner;
  secrets: readonly string[];
  cwd(): string;
  /** One line for the person (sanitized here). */
  notice(line: string): void;
  /** The REPL asks about an unapproved project file; a one-shot cannot (absent: not run, said). */
  approve?: (file: HooksFile) => Promise<boolean>;
  now?: () => Date;
}

/** The hooks of this session, or undefined when none are configured. */
export async function startHooks(o: HooksInput): Promise<SessionHooks | undefined> {
  const loaded = loadHooks(o.env, o.projectDir);
  for (const p of loaded.problems) o.notice(sanitizeLine(p));
  const hooks = [...loaded.hooks];
  const pending = loaded.pending;
  if (pending !== undefined) {
    if (o.approve !== undefined && (await o.approve(pending))) {
      approveHooksFile(o.env, pending, o.now?.() ?? new Date());
      hooks.push(...pending.hooks);
    } else {
      o.notice(
        sanitizeLine(
          `${pending.path}: project hooks not run (not approved${o.approve === undefined ? '; start agentx interactively in this directory to review them' : ''})`,
        ),
      );
    }
  }
  if (hooks.length === 0) return undefined;
  return createSessionHooks(hooks, {
    env: o.env,
    secrets: o.secrets,
    sessionId: `agentx-${randomHex(16)}`,
    cwd: () => o.cwd(),
    wrapper: () => o.commands.childWrapper(),
    report: (line) => o.notice(line),
  });
}
