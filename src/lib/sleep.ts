// Waiting that a signal cuts short: retry backoffs (engine, via the front-ends) and the pause
// between two sandbox setups (tools/shell.ts). Resolves, never rejects: the caller checks the signal.

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
