// What the REPL's parts share: the session, the engine's dependencies, the terminal, and the
// session's working directory (which `cd` changes; the state files stay where agentx started).
import { hostname, userInfo } from 'node:os';
import type { CliOptions } from '../../cli/args.ts';
import type { Config } from '../../config/config.ts';
import { formatCliTranscript } from '../../agent/new-chain.ts';
import type { TurnDeps } from '../../agent/turn.ts';
import { preview, type SessionState } from '../../session/state.ts';
import type { Theme } from '../../ui/theme.ts';
import type { ReplSession } from './session.ts';
import type { TerminalInput } from './terminal.ts';
import type { CostTracker } from './usage-view.ts';

export interface ReplContext {
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WriteStream;
  theme: Theme;
  term: TerminalInput;
  session: ReplSession;
  config: Config & { apiKey: string };
  /** Rebuilt by /setup; /model changes its request shape. */
  deps: TurnDeps;
  home: string;
  cwd: string;
  previousCwd: string | undefined;
  /** The directory the model was last told about; a different `cwd` is noted in the next request. */
  announcedCwd: string;
  costs: CostTracker;
  /** Newest first, shared with the line editor. */
  history: string[];
}

/** One line of information for the user, on its own line. */
export function say(ctx: Pick<ReplContext, 'out'>, line: string): void {
  ctx.out.write(`${line}\n`);
}

export function tildePath(path: string, home: string): string {
  if (home && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}

export function promptText(ctx: Pick<ReplContext, 'theme' | 'cwd' | 'home'>): string {
  let user = 'user';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (containers): a generic name is fine for a prompt.
  }
  const host = hostname().split('.')[0] ?? 'localhost';
  const t = ctx.theme;
  return `${t.green(`${user}@${host}`)}:${t.cyan(tildePath(ctx.cwd, ctx.home))}> `;
}

export function interruptionNote(state: SessionState): string {
  const it = state.interrupted_turn;
  if (!it) return '';
  return `Note: the user interrupted your previous turn (their message: "${preview(it.user_message)}") before it finished. `
    + 'Whatever it was doing may be incomplete; do not redo or continue it unless the user asks.';
}

/** Context parts that precede the next user message: interruption, local shell runs, a new cwd. */
export function turnContext(ctx: Pick<ReplContext, 'session' | 'cwd' | 'announcedCwd'>): string[] {
  const state = ctx.session.state;
  const parts = [interruptionNote(state), formatCliTranscript(state.pending_cli_transcript)];
  if (ctx.cwd !== ctx.announcedCwd) parts.push(`The user changed the working directory to ${ctx.cwd}; your commands now run there.`);
  return parts.filter((p) => p.length > 0);
}
