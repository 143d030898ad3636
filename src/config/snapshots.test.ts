import { describe, expect, it } from 'vitest';
import { ConfigError } from '../cli/errors.ts';
import { resolveSnapshotSettings, SNAPSHOT_DEFAULTS } from './snapshots.ts';

describe('snapshot settings', () => {
  it('defaults: on, 5 MB per file, 2 GB for the stores', () => {
    expect(resolveSnapshotSettings({})).toEqual(SNAPSHOT_DEFAULTS);
    expect(SNAPSHOT_DEFAULTS).toEqual({ enabled: true, maxFileBytes: 5 * 1024 * 1024, storeMaxBytes: 2 * 1024 ** 3 });
  });

  it('the environment wins over the config file', () => {
    const file = { AGENTX_SNAPSHOTS: 'off', AGENTX_SNAPSHOT_MAX_FILE_BYTES: '100' };
    expect(resolveSnapshotSettings({}, file)).toMatchObject({ enabled: false, maxFileBytes: 100 });
    expect(resolveSnapshotSettings({ AGENTX_SNAPSHOTS: 'on', AGENTX_SNAPSHOT_MAX_FILE_BYTES: '7' }, file)).toMatchObject({ enabled: true, maxFileBytes: 7 });
  });

  it('a bad value is a one-line configuration error naming the variable', () => {
    expect(() => resolveSnapshotSettings({ AGENTX_SNAPSHOTS: 'maybe' })).toThrow(ConfigError);
    expect(() => resolveSnapshotSettings({ AGENTX_SNAPSHOT_STORE_MAX_BYTES: '5' })).toThrow(/AGENTX_SNAPSHOT_STORE_MAX_BYTES/);
    expect(() => resolveSnapshotSettings({ AGENTX_SNAPSHOT_MAX_FILE_BYTES: '1.5' })).toThrow(/AGENTX_SNAPSHOT_MAX_FILE_BYTES/);
  });
});
