// Can this machine sandbox model commands? Finds bwrap and probes it once per process: a real
// sandbox with the same flags as a command, running `exit 0`. Missing bwrap, a kernel or container
// that forbids namespaces, or a non-Linux system all give one clear line with the fix.
import { delimiter, isAbsolute, join } from 'node:path';
import { bwrapArgs } from './bwrap.ts';
import { isInside, type SandboxPolicy } from './policy.ts';
import { nodeChildProcess } from '../lib/builtins.ts';
import { isExecutableFile } from '../lib/fsutil.ts';

/** A failure carries its parts too, so plan mode can say it without the ways to run unsandboxed. */
export type SandboxAvailability = { ok: true; bwrapPath: string } | { ok: false; message: string; problem: string; fix?: string };

export interface DetectInput {
  platform: NodeJS.Platform;
  /** PATH, and AGENTX_BWRAP (an explicit bwrap path, also how tests simulate a missing bwrap). */
  env: NodeJS.ProcessEnv;
  /** Directories a model command can write: a `bwrap` found there is not trusted. */
  untrustedDirs: string[];
  /** Probe with the network namespace too (that is what fails on some hosts). */
  network: boolean;
  /** An existing directory the probe hides, to check the tmpfs-with-mode mount works. */
  tempDir: string;
}

const PROBE_TIMEOUT_MS = 10_000;
const HOW_TO_SKIP = 'run with --sandbox danger-full-access, or AGENTX_SANDBOX=off-if-unavailable, to run model commands unsandboxed';

/**
 * One line: the problem, the fix when there is one, and how to choose running unsandboxed. In
 * plan mode there is no such choice (its commands run in the read-only sandbox or not at all), so
 * none is offered.
 */
export function unavailableMessage(problem: string, fix?: string, planMode = false): string {
  if (planMode) {
    return `model commands cannot be sandboxed: ${problem}. Plan mode runs commands only in the read-only sandbox, so none can run${fix === undefined ? '' : ` until it works (fix: ${fix})`}.`;
  }
  return fix === undefined
    ? `model commands cannot be sandboxed: ${problem}. To go on, ${HOW_TO_SKIP}.`
    : `model commands cannot be sandboxed: ${problem}. Fix: ${fix} (or ${HOW_TO_SKIP}).`;
}

function unavailable(problem: string, fix?: string): SandboxAvailability {
  return { ok: false, message: unavailableMessage(problem, fix), problem, ...(fix === undefined ? {} : { fix }) };
}

/**
 * `$AGENTX_BWRAP` when set, else the first `bwrap` on PATH in an absolute directory the model
 * cannot write (a planted ./bwrap in the workspace must not become the sandbox).
 */
export function findBwrap(env: NodeJS.ProcessEnv, untrustedDirs: string[]): { path?: string; problem?: string } {
  const explicit = env.AGENTX_BWRAP;
  if (explicit !== undefined && explicit !== '') {
    return isExecutableFile(explicit) ? { path: explicit } : { problem: `AGENTX_BWRAP=${explicit} is not an executable file` };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir) || untrustedDirs.some((u) => isInside(dir, u))) continue;
    const candidate = join(dir, 'bwrap');
    if (isExecutableFile(candidate)) return { path: candidate };
  }
  return { problem: 'bubblewrap (bwrap) is not installed' };
}

/** The smallest policy with every kind of mount and namespace a real command gets. */
function probePolicy(input: DetectInput): SandboxPolicy {
  return { mode: 'workspace-write', writableRoots: [], readOnly: [], hidden: [{ path: input.tempDir, kind: 'dir' }], network: input.network };
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Runs the probe sandbox; resolves with bwrap's complaint, or undefined when it worked. */
export function probeBwrap(bwrapPath: string, policy: SandboxPolicy): Promise<string | undefined> {
  const args = bwrapArgs({ policy, cwd: '/', argv: ['/bin/sh', '-c', 'exit 0'] });
  return new Promise((resolve) => {
    nodeChildProcess().execFile(bwrapPath, args, { timeout: PROBE_TIMEOUT_MS, env: {} }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      resolve(firstLine(String(stderr)) || err.message);
    });
  });
}

async function detect(input: DetectInput): Promise<SandboxAvailability> {
  if (input.platform !== 'linux') {
    return unavailable(`the sandbox is Linux-only for now (this is ${input.platform})`);
  }
  const found = findBwrap(input.env, input.untrustedDirs);
  if (found.path === undefined) {
    return unavailable(found.problem ?? 'bwrap not found', 'apt install bubblewrap');
  }
  const complaint = await probeBwrap(found.path, probePolicy(input));
  if (complaint !== undefined) {
    return unavailable(
      `bwrap cannot create a sandbox here (${complaint})`,
      'allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap), or run agentx outside this container',
    );
  }
  return { ok: true, bwrapPath: found.path };
}

const cache = new Map<string, Promise<SandboxAvailability>>();

/** Probes once per process for each (platform, bwrap choice, network) and remembers the answer. */
export function detectSandbox(input: DetectInput): Promise<SandboxAvailability> {
  const key = JSON.stringify([input.platform, input.env.AGENTX_BWRAP ?? '', input.env.PATH ?? '', input.network, input.untrustedDirs]);
  let found = cache.get(key);
  if (!found) {
    found = detect(input);
    cache.set(key, found);
  }
  return found;
}
