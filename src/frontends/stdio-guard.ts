// What agentx does when its own output cannot be written (README "When things go wrong").
// - stdout EPIPE (`agentx --json … | head -1`): the reader has gone and wants no more, so agentx
//   stops quietly with 141 (128 + SIGPIPE), as a program killed by SIGPIPE would; what ran is
//   journaled, so nothing is half-recorded.
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

export function guardStdio(io: { stdout: ErrorSource; stderr: ErrorSource; exit: (code: number) => void }): void {
  io.stdout.on('error', (err) => {
    if (codeOf(err) === 'EPIPE') io.exit(EXIT_BROKEN_PIPE);
    // Anything else: this output is lost, the session is not.
  });
  io.stderr.on('error', () => undefined);
}
