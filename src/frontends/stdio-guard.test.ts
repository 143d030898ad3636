import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EXIT_BROKEN_PIPE, guardStdio } from './stdio-guard.ts';

const errno = (code: string): Error => Object.assign(new Error(code), { code });

describe('guardStdio', () => {
  it('absorbs output errors; after EPIPE on stdout a finished run exits 0, an unfinished one 141', () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const guard = guardStdio({ stdout, stderr });
    stdout.emit('error', errno('EBADF'));
    stderr.emit('error', errno('EPIPE'));
    expect(guard.stdoutClosed).toBe(false);
    expect(guard.exitStatus(1)).toBe(1);
    stdout.emit('error', errno('EPIPE'));
    expect(guard.stdoutClosed).toBe(true);
    expect(guard.exitStatus(0)).toBe(0);
    expect(guard.exitStatus(1)).toBe(EXIT_BROKEN_PIPE);
    expect(guard.exitStatus(130)).toBe(EXIT_BROKEN_PIPE);
  });
});
