// Output pipes for exec sessions that agentx reads into one static buffer each. Node's own child
// pipes allocate a fresh 64 KiB buffer for every read: ten sessions printing as fast as they can
// made agentx's RSS climb by ~40 MiB of freed-but-unreturned buffers before any of it was kept
// (measured: a bare Node reading 10 × `yes` peaks at +40 MiB; through a static buffer, +7 MiB).
// A net.Socket on a descriptor we opened can read into a buffer we give it (`onread`); Node has
// no pipe(2), so the descriptors come from FIFOs, made in batches by one mkfifo, both ends opened
// at once and the names unlinked: what is left is an anonymous pipe (close-on-exec, as Node opens
// everything), and nothing stays on disk, whatever happens to agentx.
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeChildProcess } from '../../lib/builtins.ts';

export interface OutputPipe {
  /** Agentx's end, non-blocking, for the reader. */
  read: number;
  /** The command's end (blocking, as programs expect their stdout to be); closed by agentx once the child has it. */
  write: number;
}

/** Pipes made per mkfifo run: the first session pays one spawn, the next seven none. */
const BATCH = 8;
const pool: OutputPipe[] = [];

function makeBatch(tempDir: string): void {
  const dir = mkdtempSync(join(tempDir, 'agentx-pipes-'));
  try {
    const names = Array.from({ length: BATCH }, (_, i) => join(dir, `p${i}`));
    nodeChildProcess().execFileSync('mkfifo', ['-m', '600', ...names], { stdio: 'ignore' });
    for (const name of names) {
      // The reader first (non-blocking, so it opens at once); then the writer, which a reader lets open at once.
      const read = openSync(name, constants.O_RDONLY | constants.O_NONBLOCK);
      let write: number;
      try {
        write = openSync(name, constants.O_WRONLY);
      } catch (err) {
        closeSync(read);
        throw err;
      }
      pool.push({ read, write });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh pipe; throws with the reason when none can be made (no mkfifo, no temp dir). */
export function takeOutputPipe(tempDir: string = tmpdir()): OutputPipe {
  if (pool.length === 0) makeBatch(tempDir);
  const pipe = pool.pop();
  if (pipe === undefined) throw new Error('no pipe for the output');
  return pipe;
}
