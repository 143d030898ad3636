// The files the `@` finder offers: in a git work tree `git ls-files` (tracked and untracked, what
// .gitignore excludes left out), elsewhere a walk that skips dot directories, node_modules and
// what the top .gitignore names. Paths are relative to the directory listed. The list is read in
// the background and kept a while, so typing `@` never waits for a large tree twice.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** More than this many files: the rest is left out (the finder stays fast, the list bounded). */
export const PROJECT_FILES_MAX = 200_000;
/** A list older than this is read again the next time `@` is typed (the old one is shown meanwhile). */
const FRESH_MS = 30_000;

export function listGitFiles(dir: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: dir, maxBuffer: 256 * 2 ** 20, encoding: 'utf8' }, (err, stdout) => {
      if (err) return resolve(undefined);
      // A file both staged and changed is listed once per stage; one entry each is enough.
      const seen = new Set<string>();
      for (const f of stdout.split('\0')) if (f !== '' && seen.size < PROJECT_FILES_MAX) seen.add(f);
      resolve([...seen]);
    });
  });
}

/** Simple .gitignore rules (names and `*` globs, `dir/`); negations and nested files are not read. */
function ignoreRules(dir: string): ((name: string, isDir: boolean) => boolean) {
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, '.gitignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'));
  } catch {
    // No .gitignore: only the built-in skips apply.
  }
  const rules = lines.map((l) => {
    const dirOnly = l.endsWith('/');
    const name = l.replace(/^\//, '').replace(/\/$/, '');
    const re = new RegExp(`^${name.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
    return { dirOnly, re };
  });
  return (name, isDir) => rules.some((r) => (!r.dirOnly || isDir) && r.re.test(name));
}

export async function walkFiles(root: string): Promise<string[]> {
  const ignored = ignoreRules(root);
  const files: string[] = [];
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
      else if (files.length < PROJECT_FILES_MAX) files.push(path);
    }
  }
  return files;
}

export async function listProjectFiles(dir: string): Promise<string[]> {
  return (await listGitFiles(dir)) ?? walkFiles(dir);
}

/** The list for the session's current directory, read on demand and reused while fresh. */
export class ProjectFiles {
  private dir: string | undefined;
  private files: readonly string[] | undefined;
  private readAt = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly list: (dir: string) => Promise<string[]> = listProjectFiles) {}

  /**
   * The files of `dir` if known (possibly a little stale), undefined while the first list is read.
   * `onReady` is called when a newer list arrives.
   */
  get(dir: string, onReady: () => void): readonly string[] | undefined {
    if (dir !== this.dir) {
      this.dir = dir;
      this.files = undefined;
      this.readAt = 0;
    }
    if (this.reading === undefined && Date.now() - this.readAt > FRESH_MS) {
      this.reading = this.list(dir).then((files) => {
        if (this.dir === dir) {
          this.files = files;
          this.readAt = Date.now();
        }
      }, () => undefined).finally(() => {
        this.reading = undefined;
        onReady();
      });
    }
    return this.files;
  }
}
