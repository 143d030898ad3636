// File rollback settings (README, "Rollback with files"): from the environment, then the config
// file (~/.agentx), same names. A value that is set but unusable is a one-line configuration error.
import { ConfigError } from '../cli/errors.ts';

export interface SnapshotSettings {
  /** AGENTX_SNAPSHOTS=off turns workspace snapshots (and so file rollback and /diff) off. */
  enabled: boolean;
  /** Files larger than this are not snapshotted. */
  maxFileBytes: number;
  /** All projects' snapshot stores together are kept under this. */
  storeMaxBytes: number;
}

export const SNAPSHOT_VARIABLES = {
  enabled: 'AGENTX_SNAPSHOTS',
  maxFileBytes: 'AGENTX_SNAPSHOT_MAX_FILE_BYTES',
  storeMaxBytes: 'AGENTX_SNAPSHOT_STORE_MAX_BYTES',
} as const;

export const SNAPSHOT_DEFAULTS: SnapshotSettings = {
  enabled: true,
  maxFileBytes: 5 * 1024 * 1024,
  storeMaxBytes: 2 * 1024 ** 3,
};

function value(name: string, env: NodeJS.ProcessEnv, file: Record<string, string>): string | undefined {
  const raw = env[name] ?? file[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function bytes(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new ConfigError(`${name}: expected a whole number of bytes ≥ ${min}, got "${raw}"`);
  return n;
}

export function resolveSnapshotSettings(env: NodeJS.ProcessEnv, file: Record<string, string> = {}): SnapshotSettings {
  const v = SNAPSHOT_VARIABLES;
  const onOff = value(v.enabled, env, file)?.toLowerCase();
  if (onOff !== undefined && onOff !== 'on' && onOff !== 'off') throw new ConfigError(`${v.enabled}: expected on or off, got "${onOff}"`);
  return {
    enabled: onOff !== 'off',
    maxFileBytes: bytes(v.maxFileBytes, value(v.maxFileBytes, env, file), SNAPSHOT_DEFAULTS.maxFileBytes, 1),
    storeMaxBytes: bytes(v.storeMaxBytes, value(v.storeMaxBytes, env, file), SNAPSHOT_DEFAULTS.storeMaxBytes, 1024 * 1024),
  };
}
