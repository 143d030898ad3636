// The files the `@` finder offers: in a git work tree `git ls-files` (tracked and untracked, what
// .gitignore excludes left out), elsewhere a walk that skips dot directories, node_modules and
// what the top .gitignore names. Paths are relative to the directory listed. The list is read in
// the background — from the REPL's start, before `@` is typed — and kept a while; while it is
// read, the part known so far is offered (git's index first: bench/composer.mjs measures the time
// to those first results on 100k files), so typing `@` never waits for a large tree.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** More than this many files: the rest is left out (the finder stays fast, the list bounded). */
export const PROJECT_FILES_MAX = 200_000;
/** A list older than this is read again the next time `@` is typed (the old one is shown meanwhile). */
const FRESH_MS = 30_000;

/** While a list is read, what is known so far is handed on at most this often (each hand-on re-ranks an open finder). */
const PARTIAL_EVERY_MS = 100;

/** What a listing has found so far, each path once, at most PROJECT_FILES_MAX. */
class FoundFiles {
  readonly paths: string[] = [];
  private readonly seen = new Set<string>();
  private lastTold = -Infinity;

  constructor(private readonly onPartial?: (files: readonly string[]) => void) {}

  get full(): boolean {
    return this.paths.length >= PROJECT_FILES_MAX;
  }

  add(path: string): void {
    // A file both staged and changed is listed once per stage; one entry each is enough.
    if (path === '' || this.full || this.seen.has(path)) return;
    this.seen.add(path);
    this.paths.push(path);
  }

  /** Hands on what is known: the first time at once (the finder's first results), then throttled. */
  tell(force = false): void {
    if (this.onPartial === undefined || this.paths.length === 0) return;
    const now = performance.now();
    if (!force && now - this.lastTold < PARTIAL_EVERY_MS) return;
    this.lastTold = now;
    this.onPartial(this.paths);
  }
}

/**
 * Streams `git ls-files -z ARGS` into `found` as its output arrives. Resolves false when `dir` is
 * not in a git work tree (or git is missing): the caller walks the directory instead.
 */
function streamGitFiles(dir: string, args: string[], found: FoundFiles): Promise<boolean> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('git', ['ls-files', '-z', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve(false);
      return;
    }
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const names = (partial + chunk).split('\0');
      partial = names.pop() ?? '';
      for (const name of names) found.add(name);
      found.tell();
      // Enough: the rest would be left out anyway.
      if (found.full) child.kill();
    });
    child.on('error', () => resolve(false));
    child.on('close', (code) => {
      found.add(partial);
      resolve(code === 0 || found.full);
    });
  });
}

/**
 * The files of a git work tree, in two phases: the index (`--cached`, tracked files: read from
 * one file, fast) is handed on as it streams in, so the finder has results before git has looked
 * at the tree; the untracked files .gitignore does not exclude (`--others`, which walks the tree:
 * the slow half) join them when that walk is done. Both run at once. Undefined outside a work tree.
 */
export async function listGitFiles(dir: string, onPartial?: (files: readonly string[]) => void): Promise<string[] | undefined> {
  const found = new FoundFiles(onPartial);
  const untracked = new FoundFiles();
  const [inTree] = await Promise.all([
    streamGitFiles(dir, ['--cached'], found).then((ok) => {
      if (ok) found.tell(true);
      return ok;
    }),
    streamGitFiles(dir, ['--others', '--exclude-standard'], untracked),
  ]);
  if (!inTree) return undefined;
  for (const path of untracked.paths) found.add(path);
  return found.paths;
}

/** Simple .gitignore rules (names and `*` globs, `dir/`); negations and nested files are not read. */
function ignoreRules(dir: string): (name: string, isDir: boolean) => boolean {
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, '.gitignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'));
  } catch {
    // No .gitignore: only the built-in skips apply.
  }
  const rules = lines.map((l) => {
    const dirOnly = l.endsWith('/');
    const name = l.replace(/^\//, '').replace(/\/$/, '');
    const re = new RegExp(
      `^${name
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    return { dirOnly, re };
  });
  return (name, isDir) => rules.some((r) => (!r.dirOnly || isDir) && r.re.test(name));
}

export async function walkFiles(root: string, onPartial?: (files: readonly string[]) => void): Promise<string[]> {
  const ignored = ignoreRules(root);
  const found = new FoundFiles(onPartial);
  const files = found.paths;
  const pending = [''];
  while (pending.length > 0 && files.length < PROJECT_FILES_MAX) {
    const rel = pending.shift() ?? '';
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      const isDir = e.isDirectory();
      if (e.name.startsWith('.') && isDir) continue;
      if (e.name === 'node_modules' || ignored(e.name, isDir)) continue;
      if (isDir) pending.push(path);
      else found.add(path);
    }
    found.tell();
  }
  return files;
}

/** The project's files: git's lists in a work tree, else the walk; `onPartial` gets what is known while it is read. */
export async function listProjectFiles(dir: string, onPartial?: (files: readonly string[]) => void): Promise<string[]> {
  return (await listGitFiles(dir, onPartial)) ?? walkFiles(dir, onPartial);
}

/** The list for the session's current directory, read on demand (or ahead: prefetch) and reused while fresh. */
export class ProjectFiles {
  private dir: string | undefined;
  private files: readonly string[] | undefined;
  /** The list is whole (not a part handed on while the first read of this directory runs). */
  private complete = false;
  private readAt = 0;
  private reading: Promise<void> | undefined;
  /** The finder open now, told when more files are known (the latest caller of get). */
  private onReady: (() => void) | undefined;

  constructor(private readonly list: (dir: string, onPartial: (files: readonly string[]) => void) => Promise<string[]> = listProjectFiles) {}

  /** Starts reading `dir` in the background, so the first `@` finds the list (or its first part) ready. */
  prefetch(dir: string): void {
    this.get(dir, undefined);
  }

  /**
   * The files of `dir` if known (possibly a little stale, or the part read so far), undefined
   * before anything is. `onReady` is called when more arrive.
   */
  get(dir: string, onReady: (() => void) | undefined): readonly string[] | undefined {
    if (onReady !== undefined) this.onReady = onReady;
    if (dir !== this.dir) {
      this.dir = dir;
      this.files = undefined;
      this.complete = false;
      this.readAt = 0;
    }
    if (this.reading === undefined && Date.now() - this.readAt > FRESH_MS) {
      const partial = (files: readonly string[]): void => {
        // A re-read of a known list keeps showing the old whole list, never a shorter part.
        if (this.dir !== dir || this.complete) return;
        this.files = files;
        this.onReady?.();
      };
      this.reading = this.list(dir, partial)
        .then(
          (files) => {
            if (this.dir === dir) {
              this.files = files;
              this.complete = true;
              this.readAt = Date.now();
            }
          },
          () => undefined,
        )
        .finally(() => {
          this.reading = undefined;
          this.onReady?.();
        });
    }
    return this.files;
  }
}
