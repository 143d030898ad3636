// The one place that knows where per-user files live, so tests can redirect all of them by
// setting HOME (and AGENTX_CONFIG for the config file).
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENTX_CONFIG && env.AGENTX_CONFIG.length > 0 ? env.AGENTX_CONFIG : join(homeDir(env), '.agentx');
}

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(homeDir(env), '.agentx_history');
}

/**
 * `$XDG_STATE_HOME/agentx/snapshots`, XDG's default when unset or relative: the workspace snapshot
 * stores (src/workspace/store.ts), one directory per project.
 */
export function snapshotsRoot(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
  return join(base, 'agentx', 'snapshots');
}

export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(homeDir(env), '.agentx-logs');
}
