// The one place that knows where per-user files live, so tests can redirect all of them by
// setting HOME (and AGENTX_CONFIG for the config file).
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { nodeCrypto } from './lib/builtins.ts';

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
  return join(privateStateDir(env, home), 'snapshots');
}

/** `$XDG_STATE_HOME/agentx` (XDG's default when unset or relative): agentx's private state store, hidden from commands. */
export function privateStateDir(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
  return join(base, 'agentx');
}

/** `<private store>/state.key`: the key of the seals on the project's state files (store/seal.ts). */
export function stateKeyPath(env: NodeJS.ProcessEnv, home: string): string {
  return join(privateStateDir(env, home), 'state.key');
}

/** A readable, collision-free name for a project: its directory's name and a hash of its real path. */
export function projectName(workspaceRealPath: string): string {
  const name =
    basename(workspaceRealPath)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  const hash = nodeCrypto().createHash('sha256').update(workspaceRealPath).digest('hex').slice(0, 16);
  return `${name}-${hash}`;
}

/** The project's conversation log (store/log/conversation-log.ts): `<private store>/conversations/<project>.log`. */
export function conversationLogPath(env: NodeJS.ProcessEnv, home: string, workspaceRealPath: string): string {
  return join(privateStateDir(env, home), 'conversations', `${projectName(workspaceRealPath)}.log`);
}

export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(homeDir(env), '.agentx-logs');
}

/** The project's exec-session registry files (store/exec-registry.ts): `<private store>/exec-sessions/<project>/`. */
export function execRegistryDir(env: NodeJS.ProcessEnv, home: string, workspaceRealPath: string): string {
  return join(privateStateDir(env, home), 'exec-sessions', projectName(workspaceRealPath));
}

/** The project's earlier conversations (store/session-archive.ts): `<private store>/sessions/<project>/`. */
export function sessionArchiveDir(env: NodeJS.ProcessEnv, home: string, workspaceRealPath: string): string {
  return join(privateStateDir(env, home), 'sessions', projectName(workspaceRealPath));
}
