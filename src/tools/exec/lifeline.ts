// The lifeline of agentx's exec sessions: one FIFO whose only writer is agentx. Each session's
// supervisor opens it for reading and blocks on it; the read ends (EOF) when the last writer is
// gone, which the kernel guarantees however agentx dies, kill -9 included. Its watcher then stops
// the session's whole process group (tools/supervisor.ts).
//
// The FIFO is unlinked as soon as agentx holds it: supervisors open it as /proc/<agentx>/fd/<n>.
// A sandboxed command has its own /proc (PID namespace) and cannot reach it, so it cannot hold a
// writer open to outlive agentx; nothing is left in /tmp when agentx is killed.
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeChildProcess } from '../../lib/builtins.ts';

export interface Lifeline {
  /** What a supervisor opens for reading. */
  readonly path: string;
  close(): void;
}

export function openLifeline(tempDir: string = tmpdir()): Lifeline {
  const dir = mkdtempSync(join(tempDir, 'agentx-exec-'));
  try {
    const fifo = join(dir, 'lifeline');
    // Node has no mkfifo; the coreutils one takes a millisecond, once per agentx process.
    nodeChildProcess().execFileSync('mkfifo', ['-m', '600', fifo], { stdio: 'ignore' });
    // Read-write: opening never blocks, and agentx counts as the writer that keeps it alive.
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    return {
      path: `/proc/${process.pid}/fd/${fd}`,
      close: () => {
        try {
          closeSync(fd);
        } catch {
          /* already closed */
        }
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
