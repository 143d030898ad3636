// The per-server memory on real files in a temp dir.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UNKNOWN_CAPABILITIES, capabilitiesPath, fileCapabilities, loadServerCapabilities, saveServerCapabilities } from './server-capabilities.ts';

const root = mkdtempSync(join(tmpdir(), 'agentx-servers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const day = 24 * 3600_000;

describe('server capabilities file', () => {
  it('lives under XDG_STATE_HOME, else ~/.local/state', () => {
    expect(capabilitiesPath({ XDG_STATE_HOME: '/x/state' }, '/home/a')).toBe('/x/state/agentx/servers.json');
    expect(capabilitiesPath({ XDG_STATE_HOME: 'relative' }, '/home/a')).toBe('/home/a/.local/state/agentx/servers.json');
    expect(capabilitiesPath({}, '/home/a')).toBe('/home/a/.local/state/agentx/servers.json');
  });

  it('remembers per base URL, survives a reload, and forgets after two weeks', () => {
    const file = join(root, 'a', 'agentx', 'servers.json');
    const t0 = new Date('2026-03-01T00:00:00Z');
    const caps = { contextManagement: 'no' as const, compactEndpoint: 'yes' as const, observedWindows: { 'local-model': 30_000 } };
    expect(saveServerCapabilities(file, 'http://one/v1', caps, t0)).toBe(true);
    expect(saveServerCapabilities(file, 'http://two/v1', UNKNOWN_CAPABILITIES, t0)).toBe(true);
    expect(loadServerCapabilities(file, 'http://one/v1', new Date(t0.getTime() + day))).toEqual(caps);
    expect(loadServerCapabilities(file, 'http://two/v1', t0)).toEqual(UNKNOWN_CAPABILITIES);
    expect(loadServerCapabilities(file, 'http://one/v1', new Date(t0.getTime() + 15 * day))).toEqual(UNKNOWN_CAPABILITIES);
    expect(loadServerCapabilities(file, 'http://three/v1', t0)).toEqual(UNKNOWN_CAPABILITIES);
  });

  it('a broken file reads as unknown and is replaced on the next save', () => {
    const file = join(root, 'broken.json');
    writeFileSync(file, '{"servers": [1, 2');
    const memory = fileCapabilities(file, 'http://s/v1', () => new Date());
    expect(memory.get()).toEqual(UNKNOWN_CAPABILITIES);
    memory.set({ compactEndpoint: 'no' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1, servers: { 'http://s/v1': { compactEndpoint: 'no' } } });
  });

  it('an unwritable place only costs the memory, never an error', () => {
    const dir = join(root, 'ro');
    writeFileSync(join(root, 'ro'), 'a file where a directory should be');
    expect(saveServerCapabilities(join(dir, 'agentx', 'servers.json'), 'http://s/v1', UNKNOWN_CAPABILITIES, new Date())).toBe(false);
  });
});
