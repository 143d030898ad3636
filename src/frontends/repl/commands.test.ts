import { describe, expect, it } from 'vitest';
import { cdArgument, completeCommand } from './commands.ts';

describe('completeCommand', () => {
  it('completes slash commands only', () => {
    expect(completeCommand('/us')).toEqual([['/usage'], '/us']);
    expect(completeCommand('/co')).toEqual([['/compact'], '/co']);
    expect(completeCommand('/rollback')[0]).toEqual(['/rollback', '/rollback undo']);
    expect(completeCommand('hello')).toEqual([[], 'hello']);
  });
});

describe('cdArgument', () => {
  it('recognises cd with at most one argument', () => {
    expect(cdArgument('cd')).toBe('');
    expect(cdArgument('cd ~')).toBe('~');
    expect(cdArgument('cd -')).toBe('-');
    expect(cdArgument('cd "my dir"')).toBe('"my dir"');
    expect(cdArgument('cd into src and run the tests')).toBeUndefined();
    expect(cdArgument('cdrom')).toBeUndefined();
  });
});
