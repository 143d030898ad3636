// Modes → rules, with a made-up file system (PathProbe) so every case is exact.
import { describe, expect, it } from 'vitest';
import {
  agentxPaths,
  buildPolicy,
  hiddenCandidates,
  isWritable,
  parseNetworkValue,
  parseSandboxValue,
  resolveHiddenPaths,
  type HiddenPath,
  type PathProbe,
  type SandboxSetting,
} from './policy.ts';

/** A probe over a fixed set of paths; `links` maps a symlink to its target. */
function fakeFs(entries: HiddenPath[], links: Record<string, string> = {}): PathProbe {
  return (path) => {
    const real = links[path] ?? path;
    return entries.find((e) => e.path === real);
  };
}

const HOME = '/home/u';
const paths = agentxPaths({}, HOME, `${HOME}/.agentx`);
const setting = (s: Partial<SandboxSetting> = {}): SandboxSetting => ({ mode: 'workspace-write', offIfUnavailable: false, network: false, ...s });
const dirs = (...p: string[]): HiddenPath[] => p.map((path) => ({ path, kind: 'dir' }));
const files = (...p: string[]): HiddenPath[] => p.map((path) => ({ path, kind: 'file' }));

describe('parsing the setting', () => {
  it('accepts the three modes and off-if-unavailable (= workspace-write that may fall back)', () => {
    expect(parseSandboxValue('read-only')).toEqual({ mode: 'read-only', offIfUnavailable: false });
    expect(parseSandboxValue('danger-full-access')).toEqual({ mode: 'danger-full-access', offIfUnavailable: false });
    expect(parseSandboxValue('off-if-unavailable')).toEqual({ mode: 'workspace-write', offIfUnavailable: true });
    for (const bad of ['', 'off', 'Workspace-Write', 'none']) expect(parseSandboxValue(bad)).toBeUndefined();
  });

  it('accepts on and off for the network, nothing else', () => {
    expect(parseNetworkValue('on')).toBe(true);
    expect(parseNetworkValue('off')).toBe(false);
    expect(parseNetworkValue('yes')).toBeUndefined();
  });

  it('places the state store under $XDG_STATE_HOME when it is absolute', () => {
    expect(agentxPaths({ XDG_STATE_HOME: '/s' }, HOME, 'x').stateStore).toBe('/s/agentx');
    expect(agentxPaths({ XDG_STATE_HOME: 'rel' }, HOME, 'x').stateStore).toBe(`${HOME}/.local/state/agentx`);
    // The code cache (bin/agentx.js) the same way, under $XDG_CACHE_HOME.
    expect(agentxPaths({ XDG_CACHE_HOME: '/c' }, HOME, 'x').codeCache).toBe('/c/agentx');
    expect(agentxPaths({ XDG_CACHE_HOME: 'rel' }, HOME, 'x').codeCache).toBe(`${HOME}/.cache/agentx`);
  });
});

describe('buildPolicy', () => {
  const fs = fakeFs([
    ...dirs('/w', '/tmp', `${HOME}/.ssh`, `${HOME}/.aws`, `${HOME}/.local/state/agentx`),
    ...files(`${HOME}/.agentx`, `${HOME}/.netrc`, '/etc/shadow'),
  ]);
  const input = { sessionDir: '/w', tempDir: '/tmp', paths, probe: fs };

  it('workspace-write: the session dir and temp dir are writable; existing secrets are hidden', () => {
    const p = buildPolicy({ ...input, setting: setting() });
    expect(p).toEqual({
      mode: 'workspace-write',
      network: false,
      writableRoots: ['/w', '/tmp'],
      readOnly: [],
      hidden: [...files(`${HOME}/.agentx`), ...dirs(`${HOME}/.local/state/agentx`, `${HOME}/.ssh`, `${HOME}/.aws`), ...files(`${HOME}/.netrc`, '/etc/shadow')],
      unixSockets: false,
      pinned: [],
    });
    expect(buildPolicy({ ...input, setting: setting({ unixSockets: true }) })?.unixSockets).toBe(true);
  });

  it('pins every directory between a writable root and a hidden path inside it (HOME under the temp dir), parents first', () => {
    const home = '/tmp/h';
    const inTemp = agentxPaths({}, home, `${home}/.agentx`);
    const probe = fakeFs([
      ...dirs('/w', '/tmp', home, `${home}/.ssh`, `${home}/.cache/agentx`, `${home}/.local/state/agentx`, `${home}/.config/gcloud`),
      ...files(`${home}/.agentx`, `${home}/.docker/config.json`),
    ]);
    const p = buildPolicy({ sessionDir: '/w', tempDir: '/tmp', paths: inTemp, probe, setting: setting() });
    expect(p?.pinned).toEqual([home, `${home}/.cache`, `${home}/.config`, `${home}/.docker`, `${home}/.local`, `${home}/.local/state`]);
    // Outside any writable root (the layout above): nothing to pin.
    expect(buildPolicy({ ...input, setting: setting() })?.pinned).toEqual([]);
    // Read-only mode has no writable root.
    expect(buildPolicy({ sessionDir: '/w', tempDir: '/tmp', paths: inTemp, probe, setting: setting({ mode: 'read-only' }) })?.pinned).toEqual([]);
  });

  it("keeps the session's state files in the project read-only (only those that exist; not one-shot files)", () => {
    const probe = fakeFs([...dirs('/w', '/tmp'), ...files('/w/.agentx_responseid', '/w/.agentx_responseid.oneshot-1', '/w/src.ts')]);
    expect(buildPolicy({ ...input, probe, setting: setting() })?.readOnly).toEqual(['/w/.agentx_responseid']);
    const both = fakeFs([...dirs('/w', '/tmp'), ...files('/w/.agentx_responseid', '/w/.agentx_checkpoint')]);
    expect(buildPolicy({ ...input, probe: both, setting: setting() })?.readOnly).toEqual(['/w/.agentx_responseid', '/w/.agentx_checkpoint']);
    expect(buildPolicy({ ...input, probe: both, setting: setting({ mode: 'read-only' }) })?.readOnly).toEqual([]);
  });

  it('read-only: nothing writable, the same paths hidden; the network setting is kept', () => {
    const p = buildPolicy({ ...input, setting: setting({ mode: 'read-only', network: true }) });
    expect(p?.writableRoots).toEqual([]);
    expect(p?.network).toBe(true);
    expect(p?.hidden).toHaveLength(6);
  });

  it('danger-full-access: no policy at all', () => {
    expect(buildPolicy({ ...input, setting: setting({ mode: 'danger-full-access' }) })).toBeUndefined();
  });

  it('uses real paths and drops a root inside another', () => {
    const probe = fakeFs(dirs('/real/w', '/tmp'), { '/link/w': '/real/w', '/tmp/x': '/tmp' });
    expect(buildPolicy({ ...input, sessionDir: '/link/w', probe, setting: setting() })?.writableRoots).toEqual(['/real/w', '/tmp']);
    const nested = fakeFs(dirs('/tmp', '/tmp/w'));
    expect(buildPolicy({ ...input, sessionDir: '/tmp/w', probe: nested, setting: setting() })?.writableRoots).toEqual(['/tmp']);
  });

  it('hides the sockets that lead out: system services, the desktop session, the ssh agent', () => {
    const c = hiddenCandidates(agentxPaths({ XDG_RUNTIME_DIR: '/run/user/1000', SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1' }, HOME, 'x'));
    for (const p of ['/run/user', '/run/dbus', '/run/systemd/private', '/var/run/docker.sock', '/tmp/.X11-unix', '/run/user/1000', '/tmp/ssh-x/agent.1']) {
      expect(c).toContain(p);
    }
    expect(agentxPaths({ SSH_AUTH_SOCK: 'relative' }, HOME, 'x').sessionSockets).toEqual([]);
  });

  it('lists the config file first, then the state store, the code cache, logs and history, then credentials', () => {
    const c = hiddenCandidates(paths);
    expect(c.slice(0, 5)).toEqual([
      `${HOME}/.agentx`,
      `${HOME}/.local/state/agentx`,
      `${HOME}/.cache/agentx`,
      `${HOME}/.agentx-logs`,
      `${HOME}/.agentx_history`,
    ]);
    for (const p of [
      '.ssh',
      '.aws',
      '.config/gcloud',
      '.azure',
      '.kube',
      '.docker/config.json',
      '.gnupg',
      '.netrc',
      '.npmrc',
      '.pypirc',
      '.git-credentials',
      '.config/gh',
    ]) {
      expect(c).toContain(`${HOME}/${p}`);
    }
  });
});

describe('resolveHiddenPaths', () => {
  it('hides the target of a symlinked credential dir, once', () => {
    const probe = fakeFs(dirs('/secrets/ssh'), { [`${HOME}/.ssh`]: '/secrets/ssh', [`${HOME}/.ssh2`]: '/secrets/ssh' });
    expect(resolveHiddenPaths([`${HOME}/.ssh`, `${HOME}/.ssh2`], [], probe)).toEqual(dirs('/secrets/ssh'));
  });

  it('never hides a directory that contains the workspace, nor paths inside a hidden directory', () => {
    const probe = fakeFs([...dirs(`${HOME}/.config/gh`, `${HOME}/.ssh`), ...files(`${HOME}/.ssh/config`)]);
    expect(resolveHiddenPaths([`${HOME}/.config/gh`, `${HOME}/.ssh`, `${HOME}/.ssh/config`], [`${HOME}/.config/gh/work`], probe)).toEqual(dirs(`${HOME}/.ssh`));
  });
});

describe('isWritable', () => {
  const policy = { mode: 'workspace-write' as const, writableRoots: ['/w'], readOnly: ['/w/.agentx_checkpoint'], hidden: dirs('/w/.secret'), network: false };
  it('is true inside a writable root, false outside it, inside a hidden path or for a read-only file', () => {
    expect(isWritable(policy, '/w/.agentx_checkpoint')).toBe(false);
    expect(isWritable(policy, '/w/a/b')).toBe(true);
    expect(isWritable(policy, '/w')).toBe(true);
    expect(isWritable(policy, '/wx')).toBe(false);
    expect(isWritable(policy, '/etc/passwd')).toBe(false);
    expect(isWritable(policy, '/w/.secret/k')).toBe(false);
  });
});
