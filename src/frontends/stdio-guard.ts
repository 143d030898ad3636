// What agentx does when its own output cannot be written (README "When things go wrong").
// - stdout EPIPE (`agentx --json … | head -1`): the reader has gone and wants no more. The turn
//   is not cut short (a half-run turn is worse than unread output): it runs on with its output
//   dropped, is saved, and agentx exits 0 when it finished, 141 (128 + SIGPIPE, what a program
//   killed by SIGPIPE reports) when it did not — exitStatus below.
// - any other stdout/stderr failure (EBADF from a read-only descriptor, EIO from a vanished
//   terminal, EPIPE on stderr): the output is dropped and the work goes on; the exit status
//   still tells how it went. Without a listener, Node turns these into a crash with a stack trace.

export const EXIT_BROKEN_PIPE = 141;

interface ErrorSource {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

export interface StdioGuard {
  /** The reader of stdout went away (EPIPE) at some point. */
  readonly stdoutClosed: boolean;
  /** The status to exit with: `code`, or 141 for a run that did not succeed once stdout was gone. */
  exitStatus(code: number): number;
}

export function guardStdio(io: { stdout: ErrorSource; stderr: ErrorSource }): StdioGuard {
  let stdoutClosed = false;
  io.stdout.on('error', (err) => {
    if (codeOf(err) === 'EPIPE') stdoutClosed = true;
    // Anything else: this output is lost, the session is not.
  });
  io.stderr.on('error', () => undefined);
  return {
    get stdoutClosed() {
      return stdoutClosed;
    },
    exitStatus: (code) => (stdoutClosed && code !== 0 ? EXIT_BROKEN_PIPE : code),
  };
}
