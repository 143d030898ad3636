// The one place that knows where per-user files live, so tests can redirect all of them by
// setting HOME (and AGENTX_CONFIG for the config file).
import { homedir } from 'node:os';
import { join } from 'node:path';

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENTX_CONFIG && env.AGENTX_CONFIG.length > 0 ? env.AGENTX_CONFIG : join(homeDir(env), '.agentx');
}

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(homeDir(env), '.agentx_history');
}

export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(homeDir(env), '.agentx-logs');
}
