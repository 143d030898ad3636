// Writing inside a workspace without check-then-write races. Node has no openat(), so a path that
// was checked once can be redirected before the write (a sandboxed command flips a directory to a
// symlink). Instead every parent directory is opened from the workspace root one component at a
// time with O_NOFOLLOW|O_DIRECTORY, and each operation names its file relative to the opened
// directory through /proc/self/fd/<fd>/<name>: the kernel resolves that through the descriptor,
// so whatever happens to the path afterwards, the write lands in the directory that was opened.
// Where /proc is not mounted, the path is used and re-verified with fstat (the descriptor's
// dev/ino must equal an lstat of the path) before and after each operation, failing closed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomHex } from './fsutil.ts';

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/** A refusal: the path is not (or no longer) a plain directory chain inside the workspace. */
export class UnsafePathError extends Error {
  override name = 'UnsafePathError';
  /** `not_dir`: a component is a plain file (a reader may treat the path as missing); else a refusal. */
  constructor(
    message: string,
    readonly reason: 'symlink' | 'not_dir' | 'name' | 'changed' = 'name',
  ) {
    super(message);
  }
}

function errno(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

let procUsable: boolean | null = null;

/** Whether /proc/self/fd names opened directories (checked once; tests may force the fallback). */
export function procFdUsable(force?: boolean | null): boolean {
  if (force !== undefined) procUsable = force;
  if (procUsable === null) {
    let fd: number | null = null;
    try {
      fd = fs.openSync('/', DIR_FLAGS);
      procUsable = fs.statSync(`/proc/self/fd/${fd}/.`).ino === fs.fstatSync(fd).ino;
    } catch {
      procUsable = false;
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  }
  return procUsable;
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new UnsafePathError(`not a plain file name: ${JSON.stringify(name)}`);
  }
}

/** An opened directory inside the workspace; every operation is relative to it. */
export class OpenDir {
  private closed = false;
  private constructor(
    readonly fd: number,
    /** The path it was opened as (for messages and the no-/proc fallback). */
    readonly abs: string,
    /** The workspace-relative path ('' for the root). */
    readonly rel: string,
  ) {}

  /** Opens the workspace root itself (the root is trusted; it may be reached through a symlink). */
  static root(root: string): OpenDir {
    const abs = path.resolve(root);
    return new OpenDir(fs.openSync(abs, C.O_RDONLY | C.O_DIRECTORY), abs, '');
  }

  /** Runs `op` on the name inside this directory, resolved through the descriptor. */
  at<T>(name: string, op: (p: string) => T): T {
    checkName(name);
    if (this.closed) throw new Error('directory already closed');
    if (procFdUsable()) return op(`/proc/self/fd/${this.fd}/${name}`);
    this.verify();
    const result = op(path.join(this.abs, name));
    this.verify();
    return result;
  }

  /** Fallback check: the path still names the opened directory (fails closed). */
  verify(): void {
    const held = fs.fstatSync(this.fd);
    let now: fs.Stats;
    try {
      now = fs.lstatSync(this.abs);
    } catch {
      throw new UnsafePathError(`${this.rel || '.'} changed while being written; refused`, 'changed');
    }
    if (!now.isDirectory() || now.dev !== held.dev || now.ino !== held.ino) {
      throw new UnsafePathError(`${this.rel || '.'} changed while being written; refused`, 'changed');
    }
  }

  /** Opens the subdirectory `name` without following a symlink; with `create`, makes it first if missing. */
  child(name: string, create: boolean): { dir: OpenDir; created: boolean } {
    const rel = this.rel === '' ? name : `${this.rel}/${name}`;
    let created = false;
    const open = (): number =>
      this.at(name, (p) => {
        try {
          return fs.openSync(p, DIR_FLAGS);
        } catch (err) {
          const code = errno(err);
          // With O_DIRECTORY|O_NOFOLLOW Linux reports a symlink as ENOTDIR, others as ELOOP.
          if (code === 'ELOOP' || (code === 'ENOTDIR' && isSymlink(p))) {
            throw new UnsafePathError(`${rel} is a symbolic link; refused to go through it`, 'symlink');
          }
          if (code === 'ENOTDIR') throw new UnsafePathError(`${rel} is not a directory`, 'not_dir');
          throw err;
        }
      });
    let fd: number;
    try {
      fd = open();
    } catch (err) {
      if (!create || errno(err) !== 'ENOENT') throw err;
      try {
        this.at(name, (p) => fs.mkdirSync(p));
        created = true;
      } catch (mkErr) {
        if (errno(mkErr) !== 'EEXIST') throw mkErr; // made concurrently: open what is there
      }
      fd = open();
    }
    return { dir: new OpenDir(fd, path.join(this.abs, name), rel), created };
  }

  /** Writes `name` atomically: a temp file beside it (O_EXCL|O_NOFOLLOW), then a rename within this directory. */
  writeFile(name: string, data: string | Buffer, opts: WriteAtOptions): void {
    const temp = opts.tempName(name);
    const fd = this.at(temp, (p) => fs.openSync(p, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, opts.createMode ?? 0o666));
    try {
      try {
        fs.writeFileSync(fd, data);
        if (opts.mode !== null) fs.fchmodSync(fd, opts.mode);
        opts.prepare?.(fd);
        if (opts.durable) fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      this.rename(temp, name);
    } catch (err) {
      this.unlinkQuiet(temp);
      throw err;
    }
  }

  /** Makes a symlink at `name` (replacing what is there) via a temp name and a rename. */
  writeSymlink(name: string, target: string | Buffer, tempName: (name: string) => string): void {
    const temp = tempName(name);
    this.at(temp, (p) => fs.symlinkSync(target, p));
    try {
      this.rename(temp, name);
    } catch (err) {
      this.unlinkQuiet(temp);
      throw err;
    }
  }

  /** Renames within this directory (both names resolved through the same descriptor). */
  rename(from: string, to: string): void {
    checkName(to);
    this.at(from, (src) => fs.renameSync(src, procFdUsable() ? `/proc/self/fd/${this.fd}/${to}` : path.join(this.abs, to)));
  }

  unlink(name: string): void {
    this.at(name, (p) => fs.unlinkSync(p));
  }

  unlinkQuiet(name: string): void {
    try {
      this.unlink(name);
    } catch {
      // best effort: it is inside the opened directory either way
    }
  }

  rmdir(name: string): void {
    this.at(name, (p) => fs.rmdirSync(p));
  }

  /** The names in this directory (read through the descriptor). */
  names(): string[] {
    if (procFdUsable()) return fs.readdirSync(`/proc/self/fd/${this.fd}`);
    this.verify();
    const names = fs.readdirSync(this.abs);
    this.verify();
    return names;
  }

  /** lstat of `name` inside this directory, or null when missing. */
  lstat(name: string): fs.Stats | null {
    try {
      return this.at(name, (p) => fs.lstatSync(p));
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      throw err;
    }
  }

  sync(): void {
    try {
      fs.fsyncSync(this.fd);
    } catch {
      // Some file systems refuse fsync on a directory.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

export interface WriteAtOptions {
  /** Permission bits to set; null keeps the creation mode minus the umask. */
  mode: number | null;
  /** Mode the temp file is created with (default 0666). */
  createMode?: number;
  durable: boolean;
  /** The temp name beside `name` (agentx's own pattern, so snapshots and cleanups recognise it). */
  tempName: (name: string) => string;
  /** Extra steps on the open temp file before the rename (e.g. fchown). */
  prepare?: (fd: number) => void;
}

/** A temp name: `prefix`, the name cut to 64 characters (NAME_MAX), a random part, `suffix`. */
export function tempNameFor(prefix: string, suffix = ''): (name: string) => string {
  return (name) => `${prefix}${name.slice(0, 64)}.${randomHex(12)}${suffix}`;
}

/** The parent directory of a file, opened from the root, and the file's own name in it. */
export interface OpenedParent {
  dir: OpenDir;
  name: string;
  /** Workspace-relative paths of directories created on the way, outermost first. */
  created: string[];
}

/**
 * Opens the parent of workspace-relative `rel` from `root`, one component at a time, refusing a
 * symlink or non-directory on the way. With `create`, missing directories are made the same way.
 * The caller closes `dir`.
 */
export function openParent(root: string, rel: string, create: boolean): OpenedParent {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) throw new UnsafePathError(`not a path inside the workspace: ${rel}`);
  const name = parts.pop() as string;
  const created: string[] = [];
  let dir = OpenDir.root(root);
  try {
    for (const part of parts) {
      const next = dir.child(part, create);
      dir.close();
      dir = next.dir;
      if (next.created) created.push(dir.rel);
    }
  } catch (err) {
    dir.close();
    throw err;
  }
  return { dir, name, created };
}

/** Runs `fn` with the opened parent of `rel`, closing it afterwards. */
export function withParent<T>(root: string, rel: string, create: boolean, fn: (p: OpenedParent) => T): T {
  const opened = openParent(root, rel, create);
  try {
    return fn(opened);
  } finally {
    opened.dir.close();
  }
}
