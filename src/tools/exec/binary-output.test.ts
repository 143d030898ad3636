import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeControls, looksBinary, outputForModel } from './binary-output.ts';

describe('session output for the model', () => {
  it('replaces random bytes with a note of their size', () => {
    const text = randomBytes(4096).toString('utf8');
    expect(looksBinary(text)).toBe(true);
    expect(outputForModel(text, 4096)).toBe('[binary output: 4096 bytes not shown]');
  });

  it('keeps text, UTF-8 and line structure, and escapes control bytes other than \\n \\t \\r', () => {
    expect(looksBinary('hello\n\twörld ✓\r\n')).toBe(false);
    expect(outputForModel('a\tb\r\nc\n', 7)).toBe('a\tb\r\nc\n');
    expect(escapeControls('x\u0000y\u001b[31mz\u007f')).toBe('x\\x00y\\x1b[31mz\\x7f');
  });

  it('takes a little non-UTF-8 in text for text (a Latin-1 name in a log)', () => {
    const text = Buffer.concat([Buffer.from('café '.repeat(3)), Buffer.from([0xe9]), Buffer.from(' ok\n'.repeat(10))]).toString('utf8');
    expect(looksBinary(text)).toBe(false);
  });
});
