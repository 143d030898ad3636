// Runs git against the private snapshot store, never against the person's repository.
//
// Every call gets GIT_DIR (the private bare store), GIT_WORK_TREE (the workspace) and, when
// given, GIT_INDEX_FILE (a private index). Everything else that could make git read or write
// the person's repository or configuration is switched off in the environment: inherited GIT_*
// variables are dropped, system and global config are not read, and the settings that matter are
// forced at "command" scope (GIT_CONFIG_COUNT), which outranks any config file, so a value in the
// store's own config cannot weaken them either.

import { spawn } from 'node:child_process';

export type Env = Record<string, string | undefined>;

export interface GitContext {
  /** The git executable (a name looked up in PATH, or a path). */
  gitBin: string;
  /** The private bare store. */
  gitDir: string;
  /** The workspace snapshotted; git's working directory. */
  workTree: string;
  /** The caller's environment, before hardening (PATH is needed to find git). */
  env: Env;
}

export interface GitRun {
  /** A private index file for this call. */
  indexFile?: string;
  /** Written to git's stdin. */
  input?: string | Buffer;
  /** Exit codes treated as success (default: only 0). */
  okCodes?: number[];
  /** Run without GIT_DIR/GIT_WORK_TREE (git init of the store). */
  bare?: boolean;
  /** The commit time (commit-tree), instead of the clock's. */
  date?: Date;
  /** A throwaway index: written whole, no shared part left behind in the store. */
  throwawayIndex?: boolean;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed${code === null ? '' : ` (exit ${code})`}: ${firstLine(stderr) || 'no message'}`);
    this.name = 'GitError';
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/** Settings forced on every call, at command scope. */
const FORCED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  // Only protected (command-line/global) config may set safe.directory. The store and the
  // workspace may belong to another user when agentx runs as root (containers).
  ['safe.directory', '*'],
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.filemode', 'true'],
  ['core.quotepath', 'false'],
  ['core.excludesFile', '/dev/null'],
  ['core.attributesFile', '/dev/null'],
  ['core.untrackedCache', 'false'],
  // Snapshots copy and rewrite a small split index; the 20,000-entry shared part is written once
  // per large change (sharedindex.<id> in the store; unused ones expire after a day).
  ['core.splitIndex', 'true'],
  ['splitIndex.sharedIndexExpire', '1.day.ago'],
  ['core.sparseCheckout', 'false'],
  ['core.commitGraph', 'false'],
  ['gc.auto', '0'],
  ['repack.writeBitmaps', 'false'],
  ['maintenance.auto', 'false'],
  ['commit.gpgSign', 'false'],
  ['index.version', '4'],
];

/** The hardened environment for one git call. */
export function gitEnv(ctx: GitContext, run: GitRun = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(ctx.env)) {
    if (value === undefined || key.startsWith('GIT_')) continue;
    env[key] = value;
  }
  if (run.bare !== true) {
    env.GIT_DIR = ctx.gitDir;
    env.GIT_WORK_TREE = ctx.workTree;
  }
  if (run.indexFile !== undefined) env.GIT_INDEX_FILE = run.indexFile;
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = '/dev/null';
  env.GIT_ATTR_NOSYSTEM = '1';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_NO_REPLACE_OBJECTS = '1';
  env.GIT_AUTHOR_NAME = 'agentx';
  env.GIT_AUTHOR_EMAIL = 'agentx@localhost';
  env.GIT_COMMITTER_NAME = 'agentx';
  env.GIT_COMMITTER_EMAIL = 'agentx@localhost';
  if (run.date !== undefined) {
    const stamp = `@${Math.floor(run.date.getTime() / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = stamp;
    env.GIT_COMMITTER_DATE = stamp;
  }
  // Older git (< 2.32) ignores GIT_CONFIG_GLOBAL: point the places it would look at nothing.
  env.XDG_CONFIG_HOME = `${ctx.gitDir}/no-xdg-config`;
  env.LC_ALL = 'C';
  delete env.LANGUAGE;
  const config = run.throwawayIndex === true ? FORCED_CONFIG.map(([k, v]) => [k, k === 'core.splitIndex' ? 'false' : v] as const) : FORCED_CONFIG;
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Runs one git command; rejects with GitError on an exit code not in okCodes. */
export function runGit(ctx: GitContext, args: readonly string[], run: GitRun = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ctx.gitBin, [...args], {
      cwd: ctx.workTree,
      env: gitEnv(ctx, run),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(error));
    // git may exit before reading all of its input (a fatal error): that is reported by the exit code.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      const result = { code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
      if ((run.okCodes ?? [0]).includes(result.code)) resolve(result);
      else reject(new GitError(args, code, result.stderr));
    });
    child.stdin.end(run.input ?? '');
  });
}

/** NUL-separated output split into its records (the trailing empty one dropped). */
export function splitNul(buffer: Buffer): string[] {
  const text = buffer.toString('utf8');
  if (text === '') return [];
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** Paths joined for git's `-z --stdin` inputs. */
export function joinNul(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join('');
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A snapshot/tree/blob id as git prints it; anything else never reaches git's argv. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}

export type GitAvailability = { ok: true; version: string } | { ok: false; notice: string };

export const GIT_MISSING_NOTICE = 'file rollback is unavailable: git not found';

/** Whether git can be run at all; `git --version` once per executable. */
export function detectGit(gitBin: string, env: Env): Promise<GitAvailability> {
  return new Promise((resolve) => {
    const clean: Record<string, string> = {};
    for (const [key, value] of Object.entries(env)) if (value !== undefined && !key.startsWith('GIT_')) clean[key] = value;
    let out = '';
    const child = spawn(gitBin, ['--version'], { env: clean, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', () => resolve({ ok: false, notice: GIT_MISSING_NOTICE }));
    child.on('close', (code) => {
      const version = /git version (\S+)/.exec(out)?.[1];
      if (code === 0 && version !== undefined) resolve({ ok: true, version });
      else resolve({ ok: false, notice: GIT_MISSING_NOTICE });
    });
  });
}
