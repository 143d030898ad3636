import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EXIT_BROKEN_PIPE, guardStdio } from './stdio-guard.ts';

const errno = (code: string): Error => Object.assign(new Error(code), { code });

describe('guardStdio', () => {
  it('EPIPE on stdout ends quietly with 141; other output errors are absorbed', () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const exits: number[] = [];
    guardStdio({ stdout, stderr, exit: (c) => exits.push(c) });
    stdout.emit('error', errno('EBADF'));
    stderr.emit('error', errno('EPIPE'));
    expect(exits).toEqual([]);
    stdout.emit('error', errno('EPIPE'));
    expect(exits).toEqual([EXIT_BROKEN_PIPE]);
  });
});
