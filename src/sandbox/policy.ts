// Sandbox modes → the rules a model command runs under (issue 14). Pure; the file system is seen
// only through the PathProbe it is given (realPathProbe in production).
import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'workspace-write';
/** `AGENTX_SANDBOX=off-if-unavailable`: workspace-write, but run unsandboxed (with a warning) if bwrap cannot. */
export const OFF_IF_UNAVAILABLE = 'off-if-unavailable';

/** The configured setting: a mode, and whether a missing sandbox may be skipped instead of failing. */
export interface SandboxSetting {
  mode: SandboxMode;
  offIfUnavailable: boolean;
  network: boolean;
  /** AGENTX_SANDBOX_UNIX_SOCKETS=on: commands may create Unix sockets (no seccomp filter). Absent: off. */
  unixSockets?: boolean;
  /** false: each command gets a private network namespace instead of the session's shared one (netns.ts). Absent: shared. */
  sharedNetwork?: boolean;
  /**
   * Plan mode's read-only sandbox (frontends/runtime.ts planModeConfig). What is said about a
   * refusal or a missing sandbox then never offers more rights (no --sandbox danger-full-access):
   * plan mode changes nothing, whatever the session was started with.
   */
  planMode?: boolean;
}

export const DEFAULT_SANDBOX_SETTING: SandboxSetting = { mode: DEFAULT_SANDBOX_MODE, offIfUnavailable: false, network: false, unixSockets: false };

/** Parses a `--sandbox` / `AGENTX_SANDBOX` value; undefined when it is none of the accepted words. */
export function parseSandboxValue(value: string): Pick<SandboxSetting, 'mode' | 'offIfUnavailable'> | undefined {
  if (value === OFF_IF_UNAVAILABLE) return { mode: DEFAULT_SANDBOX_MODE, offIfUnavailable: true };
  const mode = SANDBOX_MODES.find((m) => m === value);
  return mode === undefined ? undefined : { mode, offIfUnavailable: false };
}

export const SANDBOX_VALUES_TEXT = `${SANDBOX_MODES.join(', ')} or ${OFF_IF_UNAVAILABLE}`;

/** Parses `AGENTX_SANDBOX_NETWORK` and `AGENTX_SANDBOX_UNIX_SOCKETS`; undefined when it is neither on nor off. */
export function parseNetworkValue(value: string): boolean | undefined {
  if (value === 'on') return true;
  if (value === 'off') return false;
  return undefined;
}

/** A path the sandboxed command must not read; files get /dev/null bound over them, directories an empty unreadable tmpfs. */
export interface HiddenPath {
  path: string;
  kind: 'file' | 'dir';
}

/** What bwrap is asked to enforce for one command. */
export interface SandboxPolicy {
  mode: Exclude<SandboxMode, 'danger-full-access'>;
  /** Writable bind mounts, absolute and real (symlinks resolved); empty in read-only mode. */
  writableRoots: string[];
  /**
   * Paths inside a writable root that stay read-only: the session's state files (see buildPolicy)
   * and the person's agentx config directory (configDirRule).
   */
  readOnly: string[];
  hidden: HiddenPath[];
  network: boolean;
  /**
   * With the network off: argv that runs bwrap inside the agentx session's shared network
   * namespace (netns.ts), so commands reach each other's servers on loopback. Absent: a private one.
   */
  joinNetns?: string[];
  /** Unix sockets allowed (AGENTX_SANDBOX_UNIX_SOCKETS=on); absent or false: the seccomp filter refuses them. */
  unixSockets?: boolean;
  /**
   * Directories inside a writable root that lead down to a hidden path, bound onto themselves
   * (still writable) so that they are mount points, which cannot be renamed or removed. Without
   * it, a command could rename the hidden path's parent away and create the path anew, outside
   * the mount (a planted code cache in a HOME under /tmp). Parents first. Absent: none.
   */
  pinned?: string[];
}

/**
 * Credential stores under $HOME that no model command needs to read (README "Sandbox" lists them).
 * Tools that need them (git push over ssh, cloud CLIs) must run with --sandbox danger-full-access.
 */
export const CREDENTIAL_PATHS_IN_HOME = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.pgpass',
  '.my.cnf',
  '.password-store',
  '.local/share/keyrings',
  '.config/op',
  '.codex',
  '.claude.json',
  '.config/openai',
] as const;

/** Root-only system secrets: a sandboxed command run by root keeps uid 0 (without capabilities), so it could read them. */
export const SYSTEM_SECRET_PATHS = ['/etc/shadow', '/etc/gshadow'] as const;

/**
 * Unix sockets lead out of any file-system sandbox: a read-only mount does not stop connect(), and
 * a network namespace only cuts abstract sockets. Behind these are services that run what they are
 * asked outside the sandbox (systemd, D-Bus, Docker, containerd, Podman, libvirt: for root or
 * their group, the whole machine) and the person's desktop session (X11 input, the per-user
 * runtime dirs with the session bus, keyring, gpg and ssh agents).
 */
export const ESCAPE_SOCKET_PATHS = [
  '/run/user',
  '/run/dbus',
  '/run/systemd/private',
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd',
  '/run/podman',
  '/run/libvirt',
  '/tmp/.X11-unix',
  '/tmp/.ICE-unix',
] as const;

export interface AgentxPaths {
  home: string;
  /** The config file (~/.agentx or $AGENTX_CONFIG). */
  configFile: string;
  /** $XDG_STATE_HOME/agentx, default ~/.local/state/agentx. */
  stateStore: string;
  /**
   * $XDG_CACHE_HOME/agentx, default ~/.cache/agentx: bin/agentx.js keeps its V8 code cache there,
   * compiled code that agentx runs outside the sandbox, so a command must not be able to plant one.
   */
  codeCache: string;
  /** Per-session sockets named by the environment: $XDG_RUNTIME_DIR, $SSH_AUTH_SOCK. */
  sessionSockets: string[];
  /**
   * $XDG_CONFIG_HOME/agentx, default ~/.config/agentx: the person's hooks.json, mcp.json,
   * rules.json and commands, which agentx trusts and runs. Read-only to commands (hooks may keep
   * their scripts there); mcp.json, which may hold tokens, hidden.
   */
  configDir: string;
}

/** agentx's own files (the config holds the key; the state store, the code cache, debug logs, prompt history) and the session's sockets. */
export function agentxPaths(env: NodeJS.ProcessEnv, home: string, configFile: string): AgentxPaths {
  const xdgState = env.XDG_STATE_HOME !== undefined && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(home, '.local/state');
  const sessionSockets = [env.XDG_RUNTIME_DIR, env.SSH_AUTH_SOCK].filter((p): p is string => p !== undefined && isAbsolute(p));
  const xdgCache = env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, '.cache');
  const xdgConfig = env.XDG_CONFIG_HOME !== undefined && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return { home, configFile, stateStore: join(xdgState, 'agentx'), codeCache: join(xdgCache, 'agentx'), sessionSockets, configDir: join(xdgConfig, 'agentx') };
}

/** Every path the sandbox hides, existing or not, in a fixed order. */
export function hiddenCandidates(paths: AgentxPaths): string[] {
  return [
    resolve(paths.home, paths.configFile),
    paths.stateStore,
    paths.codeCache,
    join(paths.home, '.agentx-logs'),
    join(paths.home, '.agentx_history'),
    join(paths.configDir, 'mcp.json'),
    ...CREDENTIAL_PATHS_IN_HOME.map((p) => join(paths.home, p)),
    ...SYSTEM_SECRET_PATHS,
    ...ESCAPE_SOCKET_PATHS,
    ...paths.sessionSockets,
  ];
}

/** What the file system says about a path: its real location and kind, or undefined when absent. */
export type PathProbe = (path: string) => HiddenPath | undefined;

/**
 * The real file system: follows symlinks; anything that is neither a file nor a directory counts
 * as a file. Runs for ~45 paths per command, most of them absent: a stat that does not throw for
 * those keeps it well under a millisecond (throwing and catching made it ~10× slower).
 */
export const realPathProbe: PathProbe = (path) => {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return undefined;
    return { path: realpathSync.native(path), kind: st.isDirectory() ? 'dir' : 'file' };
  } catch {
    return undefined;
  }
};

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The candidates that exist, by their real path (a mount over a symlink would cover its target
 * anyway; the real path also covers other links to it). A path that contains a visible root (the
 * workspace) is left visible: hiding it would hide the workspace itself. Mounts are made in this order, so a
 * directory listed after a file inside it still covers that file.
 */
export function resolveHiddenPaths(candidates: string[], visibleRoots: string[], probe: PathProbe): HiddenPath[] {
  const out: HiddenPath[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const found = probe(candidate);
    if (!found || seen.has(found.path)) continue;
    if (visibleRoots.some((root) => isInside(root, found.path))) continue;
    // Already covered by a hidden directory (whose empty tmpfs has nothing to mount onto).
    if (out.some((h) => h.kind === 'dir' && isInside(found.path, h.path))) continue;
    seen.add(found.path);
    out.push(found);
  }
  return out;
}

export interface PolicyInput {
  setting: SandboxSetting;
  /** The session's directory: the project agentx was started in (or -C DIR). */
  sessionDir: string;
  /** The system temp dir (os.tmpdir()). */
  tempDir: string;
  paths: AgentxPaths;
  probe: PathProbe;
}

/**
 * The interactive session's state files beside the project (session/store.ts STATE_FILE and
 * CHECKPOINT_FILE). One-shot state files and the lock are left out: they come and go while other
 * commands run, and bwrap fails a command whose mount source vanishes mid-setup (seen with 30
 * concurrent one-shots).
 */
export const SESSION_STATE_FILES = ['.agentx_responseid', '.agentx_checkpoint'] as const;

/** The policy for one command, or undefined in danger-full-access (no sandbox). */
export function buildPolicy(input: PolicyInput): SandboxPolicy | undefined {
  const { mode, network } = input.setting;
  if (mode === 'danger-full-access') return undefined;
  const roots = mode === 'workspace-write' ? realRoots([input.sessionDir, input.tempDir], input.probe) : [];
  // The session directory stays visible even in read-only mode, where it is not a writable root.
  const visible = [...roots, ...realRoots([input.sessionDir], input.probe)];
  const present = resolveHiddenPaths(hiddenCandidates(input.paths), visible, input.probe);
  const config = configDirRule(input.paths.configDir, roots, visible, input.probe);
  const absent = absentOwnPaths([...ownPaths(input.paths), ...(config.absent ? [config.absent] : [])], roots, visible, input.probe);
  const hidden = [...present, ...absent.filter((a) => !present.some((h) => h.kind === 'dir' && isInside(a.path, h.path)))];
  const readOnlyDirs = config.readOnly === undefined ? [] : [config.readOnly];
  return {
    mode,
    writableRoots: roots,
    readOnly: [...readOnlyDirs, ...(roots.length > 0 ? sessionStateFiles(input) : [])],
    hidden,
    network,
    unixSockets: input.setting.unixSockets === true,
    pinned: pinnedAncestors([...hidden, ...readOnlyDirs.map((path): HiddenPath => ({ path, kind: 'dir' }))], roots),
  };
}

/**
 * agentx's own paths that it trusts, with the kind each has once it exists. A sandbox can only
 * cover what exists: one of these missing inside a writable root (a HOME under /tmp) could be
 * created by a command — a ~/.agentx naming another base URL or AGENTX_SANDBOX=danger-full-access,
 * a hooks.json agentx would run — so absentOwnPaths covers those too.
 */
function ownPaths(paths: AgentxPaths): HiddenPath[] {
  return [
    { path: resolve(paths.home, paths.configFile), kind: 'file' },
    { path: paths.stateStore, kind: 'dir' },
    { path: paths.codeCache, kind: 'dir' },
    { path: join(paths.home, '.agentx-logs'), kind: 'dir' },
    { path: join(paths.home, '.agentx_history'), kind: 'file' },
  ];
}

/**
 * Those of `own` that do not exist but would be created inside a writable root, by the real path
 * they would get. bwrap makes the mount point (an empty file for /dev/null, an empty directory for
 * the tmpfs) in the real directory, which stays behind: an empty ~/.agentx is no setting at all.
 */
function absentOwnPaths(own: readonly HiddenPath[], roots: readonly string[], visible: readonly string[], probe: PathProbe): HiddenPath[] {
  const out: HiddenPath[] = [];
  for (const p of own) {
    if (probe(p.path) !== undefined) continue;
    const real = realPathOfAbsent(p.path, probe);
    if (!roots.some((r) => isInside(real, r) && real !== r)) continue;
    if (visible.some((v) => isInside(v, real)) || out.some((o) => o.kind === 'dir' && isInside(real, o.path))) continue;
    out.push({ path: real, kind: p.kind });
  }
  return out;
}

/**
 * The person's agentx config directory: bound read-only onto itself when it exists inside a
 * writable root (outside one, the read-only root covers it already); absent there, covered like
 * an absent own path, so nothing can be planted in it.
 */
function configDirRule(dir: string, roots: readonly string[], visible: readonly string[], probe: PathProbe): { readOnly?: string; absent?: HiddenPath } {
  const found = probe(dir);
  if (found === undefined) return { absent: { path: dir, kind: 'dir' } };
  if (found.kind !== 'dir' || !roots.some((r) => isInside(found.path, r) && found.path !== r)) return {};
  if (visible.some((v) => isInside(v, found.path))) return {};
  return { readOnly: found.path };
}

/** Where an absent path would be: the real path of its nearest existing ancestor, plus the rest. */
function realPathOfAbsent(path: string, probe: PathProbe): string {
  const found = probe(path);
  if (found !== undefined) return found.path;
  const parent = dirname(path);
  return parent === path ? path : join(realPathOfAbsent(parent, probe), relative(parent, path));
}

/**
 * For each hidden path inside a writable root, every directory strictly between the root and it
 * (see SandboxPolicy.pinned). Pinning (a writable bind onto itself) rather than a read-only bind
 * of the topmost one: with the workspace or a HOME under /tmp, a read-only ~/.cache or HOME would
 * break ordinary commands, while a mount point only refuses rename and rmdir (EBUSY). The roots
 * themselves are mount points already, and the hidden path is one by its own mount.
 */
export function pinnedAncestors(hidden: readonly HiddenPath[], roots: readonly string[]): string[] {
  const pins = new Set<string>();
  for (const h of hidden) {
    const root = roots.find((r) => isInside(h.path, r) && h.path !== r);
    if (root === undefined) continue;
    for (let dir = dirname(h.path); dir !== root && isInside(dir, root); dir = dirname(dir)) pins.add(dir);
  }
  return [...pins].sort((a, b) => a.split(sep).length - b.split(sep).length || a.localeCompare(b));
}

/**
 * The conversation's state files stay readable (the model knows the conversation anyway) but not
 * writable: a command must not forge history or pending tool calls that agentx would load and
 * offer to run. agentx itself writes them outside the sandbox, by atomic rename.
 */
function sessionStateFiles(input: PolicyInput): string[] {
  return SESSION_STATE_FILES.map((name) => input.probe(join(input.sessionDir, name)))
    .filter((p): p is HiddenPath => p !== undefined && p.kind === 'file')
    .map((p) => p.path);
}

/** Existing directories by real path, deduplicated, and without any root already inside another. */
function realRoots(dirs: string[], probe: PathProbe): string[] {
  const real = dirs
    .map((d) => probe(d))
    .filter((p): p is HiddenPath => p !== undefined && p.kind === 'dir')
    .map((p) => p.path);
  return real.filter((r, i) => !real.some((other, j) => j !== i && isInside(r, other) && (r !== other || j < i)));
}

/** True when `path` may be written under `policy` (used to judge "Permission denied" messages). */
export function isWritable(policy: SandboxPolicy, path: string): boolean {
  return (
    policy.writableRoots.some((root) => isInside(path, root)) &&
    !policy.readOnly.some((p) => isInside(path, p)) &&
    !policy.hidden.some((h) => isInside(path, h.path))
  );
}
