import { chmodSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capOutput } from './output.ts';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, runShellCommand } from './shell.ts';
import { resolveUserShell } from './supervisor.ts';
import { makeTempDir, run } from '../../test/support/tools.ts';
import type { TempDir } from '../../test/support/tools.ts';

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => {
  dir.remove();
});

describe('runShellCommand: results', () => {
  it('reports exit codes, a death by signal, and >128 statuses exactly', async () => {
    expect(await run(dir, 'true')).toMatchObject({ exitCode: 0, signal: null, timedOut: false, interrupted: false });
    expect(await run(dir, 'exit 3')).toMatchObject({ exitCode: 3, signal: null });
    expect(await run(dir, 'kill -KILL $$')).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    // The shell itself exits 137 after its child died by SIGKILL: a plain status, kept as is.
    expect(await run(dir, "sh -c 'kill -KILL $$'; exit $?")).toMatchObject({ exitCode: 137, signal: null });
  });

  it('keeps stdout and stderr apart', async () => {
    const r = await run(dir, 'echo out; echo err >&2; echo out2');
    expect(r).toMatchObject({ stdout: 'out\nout2\n', stderr: 'err\n', exitCode: 0, truncatedBytes: 0 });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('runs in the given cwd', async () => {
    expect((await run(dir, 'pwd -P')).stdout).toBe(`${realpathSync(dir.path)}\n`);
  });

  it('runs as its own process group and session leader, stdin /dev/null, no lifeline fd', async () => {
    const r = await run(dir, 'echo $$; cut -d" " -f5,6 /proc/$$/stat; readlink /proc/$$/fd/0; test -e /proc/$$/fd/3 && echo fd3-open || echo fd3-closed');
    const [pid, groupAndSession, stdin, fd3] = r.stdout.trim().split('\n');
    expect(groupAndSession).toBe(`${pid} ${pid}`);
    expect(stdin).toBe('/dev/null');
    expect(fd3).toBe('fd3-closed');
  });

  it('passes the command as one argument, so quoting survives', async () => {
    const r = await run(dir, `printf '%s|' "a b" 'c"d' "\\$HOME" '$1' && echo`);
    expect(r.stdout).toBe('a b|c"d|$HOME|$1|\n');
  });

  it('uses the given env', async () => {
    const r = await run(dir, 'echo "$AGENTX_TEST_VAR"', { env: { ...process.env, SHELL: '/bin/sh', AGENTX_TEST_VAR: 'yes' } });
    expect(r.stdout).toBe('yes\n');
  });

  it('resolves a command that cannot start with 127 and the reason on stderr', async () => {
    const missing = await run(dir, 'true', { cwd: dir.file('nope') });
    expect(missing).toMatchObject({ exitCode: 127, stdout: '', timedOut: false, interrupted: false });
    expect(missing.stderr).toContain('working directory does not exist');
    const notDir = dir.file('f');
    writeFileSync(notDir, '');
    expect((await run(dir, 'true', { cwd: notDir })).stderr).toContain('not a directory');
    const nul = await run(dir, 'echo a\0b');
    expect(nul.exitCode).toBe(127);
    expect(nul.stderr).toContain('cannot run command');
  });

  it('does not start a command whose signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await run(dir, 'touch ran', { signal: ac.signal });
    expect(r).toMatchObject({ interrupted: true, exitCode: null });
    expect(existsSync(dir.file('ran'))).toBe(false);
  });

  it('exports the documented defaults', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(120_000);
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(64 * 1024);
  });
});

describe('runShellCommand: the user shell', () => {
  function fakeShell(name: string): string {
    const bin = dir.file('bin');
    mkdirSync(bin, { recursive: true });
    const path = `${bin}/${name}`;
    writeFileSync(path, '#!/bin/sh\nAGENTX_VIA_FAKE=1 exec /bin/sh "$@"\n');
    chmodSync(path, 0o755);
    return path;
  }
  const via = async (shell: string): Promise<string> =>
    (await run(dir, 'echo "${AGENTX_VIA_FAKE:-no}"', { env: { ...process.env, SHELL: shell } })).stdout.trim();

  it('runs the command under $SHELL when it is an absolute POSIX-like shell', async () => {
    expect(await via(fakeShell('bash'))).toBe('1');
    expect(await via(fakeShell('zsh'))).toBe('1');
    expect((await run(dir, 'echo "${BASH_VERSION:+bash}"', { env: { ...process.env, SHELL: '/bin/bash' } })).stdout).toBe('bash\n');
  });

  it('falls back to /bin/sh for other shells, relative or missing paths', async () => {
    expect(await via(fakeShell('fish'))).toBe('no');
    expect(resolveUserShell(fakeShell('csh'))).toBe('/bin/sh');
    expect(resolveUserShell('bash')).toBe('/bin/sh');
    expect(resolveUserShell(dir.file('bin/missing/bash'))).toBe('/bin/sh');
    expect(resolveUserShell(undefined)).toBe('/bin/sh');
    expect(resolveUserShell('/bin/bash')).toBe('/bin/bash');
  });
});

describe('runShellCommand: output', () => {
  it('caps each stream, keeping head and tail and saying how much was cut', async () => {
    const r = await run(dir, 'yes abcdefghij | head -c 100000; yes E | head -c 3000 >&2', { maxOutputBytes: 1000 });
    const full = 'abcdefghij\n'.repeat(10000).slice(0, 100000);
    expect(r.stdout).toBe(capOutput(full, 1000).text);
    expect(r.stdout.startsWith('abcdefghij\n')).toBe(true);
    expect(r.stdout).toContain('\n… [99000 bytes truncated] …\n');
    expect(r.stderr).toContain('[2000 bytes truncated]');
    expect(r.truncatedBytes).toBe(99000 + 2000);
  });

  it('stays bounded in memory for 200 MB of output', async () => {
    const before = process.memoryUsage.rss();
    let peak = before;
    let chunks = 0;
    const r = await run(dir, 'yes | head -c 200000000', {
      timeoutMs: 60_000,
      onOutput: () => {
        if (++chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage.rss());
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.truncatedBytes).toBe(200_000_000 - 64 * 1024);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(64 * 1024 + 100);
    // About 9 MB in practice; 200 MB held would fail this by far.
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('decodes a multi-byte character split across chunks, live and in the result', async () => {
    const live: string[] = [];
    // "€" is E2 82 AC; the pause makes the two halves arrive as separate reads.
    const r = await run(dir, "printf '\\342\\202'; sleep 0.3; printf '\\254\\n'", { onOutput: (c) => live.push(c) });
    expect(r.stdout).toBe('€\n');
    expect(live.join('')).toBe('€\n');
    expect(live.join('')).not.toContain('\uFFFD');
  });

  it('streams stdout and stderr live with their stream names', async () => {
    const live: [string, string][] = [];
    await run(dir, 'echo a; echo b >&2', { onOutput: (c, s) => live.push([s, c]) });
    expect(live).toContainEqual(['stdout', 'a\n']);
    expect(live).toContainEqual(['stderr', 'b\n']);
  });

  it('survives an onOutput callback that throws', async () => {
    const r = await runShellCommand({
      command: 'echo fine',
      cwd: dir.path,
      timeoutMs: 5_000,
      maxOutputBytes: 1000,
      onOutput: () => {
        throw new Error('display broke');
      },
    });
    expect(r).toMatchObject({ stdout: 'fine\n', exitCode: 0 });
  });
});
