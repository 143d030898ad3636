import { describe, expect, it } from 'vitest';
import { completeCommand } from './commands.ts';

describe('completeCommand', () => {
  it('completes slash commands only', () => {
    expect(completeCommand('/us')).toEqual([['/usage'], '/us']);
    expect(completeCommand('/rollback')[0]).toEqual(['/rollback', '/rollback undo']);
    expect(completeCommand('hello')).toEqual([[], 'hello']);
  });
});
