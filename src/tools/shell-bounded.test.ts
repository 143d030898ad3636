// A command printing 1 GiB: what agentx keeps is bounded by the cap (head + tail), whatever
// the output size. Peak RSS for the same run is measured in bench/ (BENCHMARKS.md).
import { describe, expect, it } from 'vitest';
import { runShellCommand } from './shell.ts';

const GiB = 1024 * 1024 * 1024;

describe('runShellCommand with a huge output', () => {
  it('captures 1 GiB of output as at most the cap, head and tail kept, and counts what was cut', async () => {
    const r = await runShellCommand({
      command: `yes abcdefgh | head -c ${GiB}; echo LAST-LINE`,
      cwd: process.cwd(),
      timeoutMs: 300_000,
      maxOutputBytes: 64 * 1024,
    });
    expect(r.exitCode).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(64 * 1024 + 100);
    expect(r.stdout.startsWith('abcdefgh\n')).toBe(true);
    expect(r.stdout.endsWith('LAST-LINE\n')).toBe(true);
    expect(r.truncatedBytes).toBe(GiB + 'LAST-LINE\n'.length - 64 * 1024);
  }, 300_000);
});
