// Real read-only and full filesystems for the "no place to write" tests: a small tmpfs mounted
// over a test directory. Needs root with mount rights (CI and the dev machines run as root);
// where mounting is refused the caller skips, saying why.
import { spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface Mounted {
  path: string;
  unmount(): void;
}

function run(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** Mounts a tmpfs of `sizeKb` at `path` (created if needed); undefined when mounting is not allowed. */
export function mountTmpfs(path: string, sizeKb: number, readOnly = false): Mounted | undefined {
  mkdirSync(path, { recursive: true });
  if (!run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k${readOnly ? ',ro' : ''}`, 'tmpfs', path])) return undefined;
  return {
    path,
    unmount: () => {
      run('umount', ['-l', path]);
    },
  };
}

/** Writes into `dir` until the filesystem is full (ENOSPC), so no more data blocks are left. */
export function fillUp(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, block);
  } catch {
    // ENOSPC: full, as wanted.
  } finally {
    closeSync(fd);
  }
}

/** Whether this machine lets the tests mount (checked once, on a throwaway directory). */
export function canMount(scratch: string): boolean {
  const m = mountTmpfs(scratch, 64);
  m?.unmount();
  return m !== undefined;
}
