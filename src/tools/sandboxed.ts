// The command runner every model command goes through: the sandbox setting decides how it runs.
// - danger-full-access: unsandboxed, as before;
// - read-only / workspace-write: inside bwrap with the policy from src/sandbox/policy.ts; when bwrap
//   is missing or unusable the command fails with the fix (said to the person once), unless
//   AGENTX_SANDBOX=off-if-unavailable, which runs it unsandboxed after a once-only warning;
// - always: the environment from src/sandbox/env.ts (no key, no pager, no editor, no tmux), and the
//   key redacted from the output kept and sent (in case a command found it anyway);
// - sandboxed, unless AGENTX_SANDBOX_UNIX_SOCKETS=on: the seccomp filter of src/sandbox/seccomp.ts
//   (no Unix sockets) and no session-socket variables. On an architecture without a filter, the
//   command is refused with one line naming the setting: the secure default, not a silent gap.
// A result that looks like a sandbox refusal gets a note for the model and carries the refusal, so
// the tool can ask the engine (the question channel) whether to run it again with more rights.
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { homeDir } from '../paths.ts';
import { bwrapCommand } from '../sandbox/bwrap.ts';
import { sessionNetns } from '../sandbox/netns.ts';
import { detectSandbox, unavailableMessage, type SandboxAvailability } from '../sandbox/detect.ts';
import { looksLikeSandboxDenial, sandboxDenialNote, type SandboxDenial } from '../sandbox/denial.ts';
import { commandEnvironment, redactSecrets, sandboxedEnvironment } from '../sandbox/env.ts';
import { noFilterMessage, unixSocketFilter } from '../sandbox/seccomp.ts';
import {
  agentxPaths,
  buildPolicy,
  hiddenCandidates,
  isInside,
  realPathProbe,
  resolveHiddenPaths,
  type PathProbe,
  type SandboxPolicy,
  type SandboxSetting,
} from '../sandbox/policy.ts';
import { runShellCommand, SPAWN_FAILURE_EXIT_CODE, type ShellRunOptions, type ShellRunResult } from './shell.ts';
import type { SessionLaunch } from './exec/exec-tool.ts';
import type { RunScope } from './permissions/escalation.ts';
import { resolveUserShell, SANDBOX_SECCOMP_FD } from './supervisor.ts';

export interface CommandRunnerSetup {
  setting: SandboxSetting;
  /** The session's directory (where agentx was started, or -C DIR): writable in workspace-write. */
  sessionDir: string;
  /** agentx's own environment: HOME, PATH, XDG_STATE_HOME, AGENTX_BWRAP, and the base of commands' environment. */
  env: NodeJS.ProcessEnv;
  /** The config file in use (hidden from sandboxed commands). */
  configFile: string;
  /** Values never given to a command in any variable (the API key). */
  secrets: string[];
  /** One line for the person, said at most once per runner (= per session). */
  notice: (message: string) => void;
  platform: NodeJS.Platform;
  /** Which seccomp filter to use; default the machine's (process.arch). */
  arch?: NodeJS.Architecture;
  tempDir?: string;
}

/** A command result, with the sandbox's refusal when the output looks like one. */
export type SandboxedRunResult = ShellRunResult & { sandboxDenial?: SandboxDenial };

/**
 * A model command's options; `scope` is how the engine decided it runs (engine/permissions.ts):
 * unsandboxed, sandboxed with the network, or (absent, "sandboxed") as configured.
 */
export type ModelRunOptions = ShellRunOptions & { scope?: RunScope };

export interface CommandRunner {
  run(opts: ModelRunOptions): Promise<SandboxedRunResult>;
  /** For commands the person typed (REPL `!cmd`): same environment rules, no sandbox. */
  runUnsandboxed(opts: ShellRunOptions): Promise<ShellRunResult>;
  /**
   * Whether the sandbox hides this path from commands (credentials, agentx's own files): tools
   * that read files themselves, outside the sandbox (view_image), refuse the same paths.
   */
  hides(path: string): boolean;
  /**
   * For long-running children (MCP stdio servers): a function that rewrites an argv to run inside
   * the same sandbox as model commands; `null` when they run unsandboxed (danger-full-access, or
   * off-if-unavailable without bwrap); a message when they must not start at all.
   */
  childWrapper(): Promise<((argv: string[], cwd: string) => string[]) | null | { refused: string }>;
  /**
   * For exec sessions (tools/exec/): the argv and environment of a long-running model command,
   * run like `run` runs one (same sandbox, hidden paths, filter, scrubbed environment).
   */
  sessionLaunch(command: string, cwd: string, scope?: RunScope): Promise<SessionLaunch>;
  /** The key out of a text a command printed (what `run` does to its results). */
  redact(text: string): string;
}

function failure(message: string): ShellRunResult {
  return {
    stdout: '',
    stderr: `agentx: ${message}\n`,
    exitCode: SPAWN_FAILURE_EXIT_CODE,
    signal: null,
    timedOut: false,
    interrupted: false,
    durationMs: 0,
    truncatedBytes: 0,
  };
}

function withNote(result: ShellRunResult, note: string, opts: ShellRunOptions): ShellRunResult {
  const sep = result.stderr === '' || result.stderr.endsWith('\n') ? '' : '\n';
  const text = `${sep}${note}\n`;
  opts.onOutput?.(text, 'stderr');
  return { ...result, stderr: result.stderr + text };
}

/**
 * The real location of a path that may not exist: its deepest existing ancestor resolved, the
 * rest appended. So `link/absent.png`, with `link` pointing into ~/.ssh, is inside ~/.ssh too.
 */
function realPathOfAny(path: string): string {
  const found = realPathProbe(path);
  if (found) return found.path;
  const parent = dirname(path);
  return parent === path ? path : join(realPathOfAny(parent), basename(path));
}

/**
 * For a long-running child (MCP server): bwrap reading the filter on fd 5 from a pipe that sh fills
 * with printf (each byte as an octal escape, so no NUL or % in an argument), its stdin put back.
 */
const FILTER_PIPE_SCRIPT = `f=$1; shift; exec 9<&0; printf "$f" | { exec ${SANDBOX_SECCOMP_FD}<&0 0<&9 9<&-; exec "$@"; }`;

function withFilterPipe(filter: Buffer, argv: string[]): string[] {
  const escaped = [...filter].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
  return ['/bin/sh', '-c', FILTER_PIPE_SCRIPT, 'agentx-seccomp', escaped, ...argv];
}

/**
 * A hidden file that does not exist yet inside a writable root (~/.agentx, ~/.agentx_history with
 * HOME under /tmp) needs a mount point, and bwrap would create it in the real directory as an
 * empty 0444 file that stays behind: the person's history could then not be appended to, and the
 * file would not be private. agentx creates it first, empty and 0600 (an empty config is no
 * setting at all). O_EXCL and O_NOFOLLOW: whatever is already there, a link a command planted
 * included, is left alone and only covered.
 */
function createMountPointFiles(policy: SandboxPolicy): void {
  for (const hidden of policy.hidden) {
    if (hidden.kind !== 'file' || !policy.writableRoots.some((root) => isInside(hidden.path, root))) continue;
    try {
      closeSync(openSync(hidden.path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600));
    } catch {
      // There already (the usual case), or its directory is missing: bwrap makes the mount point.
    }
  }
}

/** realPathProbe, and a path that does not exist where it would be (as a directory: it covers what would go below). */
const anyPathProbe: PathProbe = (path) => realPathProbe(path) ?? { path: realPathOfAny(path), kind: 'dir' };

export function createCommandRunner(setup: CommandRunnerSetup): CommandRunner {
  const baseEnv = commandEnvironment(setup.env, setup.secrets);
  const envFor = (opts: ShellRunOptions): NodeJS.ProcessEnv => (opts.env ? commandEnvironment(opts.env, setup.secrets) : baseEnv);
  const tempDir = setup.tempDir ?? tmpdir();
  const paths = agentxPaths(setup.env, homeDir(setup.env), setup.configFile);
  const said = new Set<string>();
  const noticeOnce = (message: string): void => {
    if (said.has(message)) return;
    said.add(message);
    setup.notice(message);
  };
  const sessionUnsandboxed = setup.setting.mode === 'danger-full-access';
  const arch = setup.arch ?? process.arch;
  const filter = setup.setting.unixSockets === true ? undefined : unixSocketFilter(arch);
  const noFilter = setup.setting.unixSockets !== true && filter === undefined ? noFilterMessage(arch) : undefined;

  const runUnsandboxed = (opts: ShellRunOptions): Promise<ShellRunResult> => runShellCommand({ ...opts, env: envFor(opts), sandbox: undefined });

  // Plan mode offers no way out of its read-only sandbox (policy.ts SandboxSetting.planMode).
  const planMode = setup.setting.planMode === true;
  const availability = async (): Promise<SandboxAvailability> => {
    const found = await detectSandbox({
      platform: setup.platform,
      env: setup.env,
      network: setup.setting.network,
      tempDir,
      untrustedDirs: [setup.sessionDir, tempDir],
    });
    return !found.ok && planMode ? { ...found, message: unavailableMessage(found.problem, found.fix, true) } : found;
  };

  // "Once with the network only": the same sandbox with the network on, for this command.
  const policyNow = (withNetwork = false): SandboxPolicy | undefined =>
    buildPolicy({
      setting: withNetwork ? { ...setup.setting, network: true } : setup.setting,
      sessionDir: setup.sessionDir,
      tempDir,
      paths,
      probe: realPathProbe,
    });

  // With the network off, commands share the agentx session's namespace (sandbox/netns.ts): a
  // server one starts is reachable from the next, and nothing outside is.
  const sandboxPolicy = async (bwrapPath: string, withNetwork = false): Promise<SandboxPolicy | undefined> => {
    const policy = policyNow(withNetwork);
    if (policy) createMountPointFiles(policy);
    if (!policy || policy.network || setup.setting.sharedNetwork === false) return policy;
    const ns = await sessionNetns(bwrapPath, process.getuid?.() === 0);
    if ('prefix' in ns) return { ...policy, joinNetns: ns.prefix };
    noticeOnce(
      `the sandbox's network namespace cannot be shared between commands (${ns.failed}): a server a command starts is not reachable from the next one.`,
    );
    return policy;
  };

  const afterDenial = (opts: ShellRunOptions, result: ShellRunResult, policy: SandboxPolicy): SandboxedRunResult => {
    const denial = looksLikeSandboxDenial(result, policy);
    if (!denial) return result;
    return { ...withNote(result, sandboxDenialNote(denial, policy, planMode), opts), sandboxDenial: denial };
  };

  const redacted = <R extends ShellRunResult>(r: R): R => ({
    ...r,
    stdout: redactSecrets(r.stdout, setup.secrets),
    stderr: redactSecrets(r.stderr, setup.secrets),
  });

  // Live output is redacted chunk by chunk: best effort (a key split across two chunks shows on
  // the person's own screen), while the result kept and sent is redacted whole.
  const redactLive = (opts: ShellRunOptions): ShellRunOptions => {
    const show = opts.onOutput;
    return show ? { ...opts, onOutput: (chunk, stream) => show(redactSecrets(chunk, setup.secrets), stream) } : opts;
  };

  const run = async (opts: ModelRunOptions): Promise<SandboxedRunResult> => redacted(await runOnce(redactLive(opts)));

  const refuse = (message: string, opts: ShellRunOptions): ShellRunResult => {
    noticeOnce(message);
    const failed = failure(message);
    opts.onOutput?.(failed.stderr, 'stderr');
    return failed;
  };

  const runOnce = async (opts: ModelRunOptions): Promise<SandboxedRunResult> => {
    if (sessionUnsandboxed || opts.scope === 'unsandboxed') return runUnsandboxed(opts);
    const found = await availability();
    if (!found.ok) {
      if (setup.setting.offIfUnavailable) {
        noticeOnce(`warning: ${found.message} Running model commands WITHOUT a sandbox (AGENTX_SANDBOX=off-if-unavailable).`);
        return runUnsandboxed(opts);
      }
      return refuse(found.message, opts);
    }
    const policy = await sandboxPolicy(found.bwrapPath, opts.scope === 'sandboxed-with-network');
    if (!policy) return runUnsandboxed(opts);
    if (noFilter !== undefined) return refuse(noFilter, opts);
    const env = sandboxedEnvironment(envFor(opts), policy.unixSockets === true);
    const result = await runShellCommand({ ...opts, env, sandbox: { bwrapPath: found.bwrapPath, policy, seccomp: filter } });
    return afterDenial(opts, result, policy);
  };

  // The sandbox wrapper of long-running children (MCP servers, hooks, exec sessions).
  const childWrapper = async (scope?: RunScope): Promise<((argv: string[], cwd: string) => string[]) | null | { refused: string }> => {
    if (sessionUnsandboxed || scope === 'unsandboxed') return null;
    const found = await availability();
    if (!found.ok) {
      if (setup.setting.offIfUnavailable) return null;
      return { refused: found.message };
    }
    const policy = await sandboxPolicy(found.bwrapPath, scope === 'sandboxed-with-network');
    if (!policy) return null;
    if (noFilter !== undefined) return { refused: noFilter };
    if (!filter) return (argv, cwd) => bwrapCommand(found.bwrapPath, { policy, cwd, argv });
    return (argv, cwd) => withFilterPipe(filter, bwrapCommand(found.bwrapPath, { policy, cwd, argv, seccompFd: SANDBOX_SECCOMP_FD }));
  };

  return {
    run,
    runUnsandboxed: async (opts) => redacted(await runUnsandboxed(redactLive(opts))),
    hides: (path) => {
      if (sessionUnsandboxed) return false;
      const policy = policyNow();
      if (!policy) return false;
      // Unlike the mounts, which can only cover what exists, a path agentx itself would create is
      // checked too: `.ssh/authorized_keys` in a workspace that is the home directory, before ~/.ssh exists.
      const visible = [...policy.writableRoots, realPathOfAny(setup.sessionDir)];
      const real = realPathOfAny(path);
      return resolveHiddenPaths(hiddenCandidates(paths), visible, anyPathProbe).some((h) => isInside(real, h.path));
    },
    childWrapper: () => childWrapper(),
    sessionLaunch: async (command, cwd, scope) => {
      const inner = [resolveUserShell(baseEnv.SHELL), '-c', command];
      const wrap = await childWrapper(scope);
      if (wrap === null) return { ok: true, argv: inner, env: baseEnv };
      if ('refused' in wrap) {
        noticeOnce(wrap.refused);
        return { ok: false, error: wrap.refused };
      }
      const policy = policyNow(scope === 'sandboxed-with-network');
      return { ok: true, argv: wrap(inner, cwd), env: sandboxedEnvironment(baseEnv, policy?.unixSockets === true), readOnly: policy?.mode === 'read-only' };
    },
    redact: (text) => redactSecrets(text, setup.secrets),
  };
}
