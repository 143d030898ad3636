import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.ts';
import { UsageError } from './errors.ts';

describe('parseArgs', () => {
  it('treats words as a one-shot message and defaults the display flags on', () => {
    const o = parseArgs(['fix', 'the', 'test']);
    expect(o.command).toBe('run');
    expect(o.message).toEqual(['fix', 'the', 'test']);
    expect(o).toMatchObject({ quiet: false, json: false, color: true, raw: false, showUsage: true, showReasoning: true });
    expect(parseArgs(['--raw', 'hi']).raw).toBe(true);
  });

  it('stacks short flags, with a value attached or following', () => {
    expect(parseArgs(['-qC', 'dir', 'hi'])).toMatchObject({ quiet: true, cwd: 'dir', message: ['hi'] });
    expect(parseArgs(['-qCdir', 'hi'])).toMatchObject({ quiet: true, cwd: 'dir' });
    expect(parseArgs(['-qm', 'gpt-5', 'x'])).toMatchObject({ quiet: true, model: 'gpt-5' });
  });

  it('accepts --flag=value and --flag value', () => {
    expect(parseArgs(['--model=o4-mini', 'x']).model).toBe('o4-mini');
    expect(parseArgs(['--shell-tool', 'function', 'x']).shellTool).toBe('function');
    expect(parseArgs(['--base-url', 'http://localhost:1/v1', 'x']).baseUrl).toBe('http://localhost:1/v1');
  });

  it('turns every --no-* display flag off', () => {
    const o = parseArgs(['--no-color', '--no-usage', '--no-timers', '--no-reasoning', '--no-shell-calls', 'x']);
    expect(o).toMatchObject({ color: false, showUsage: false, showTimers: false, showReasoning: false, showShellCalls: false });
  });

  it('reads `-` as stdin and `setup` as the setup command', () => {
    expect(parseArgs(['-']).readStdin).toBe(true);
    expect(parseArgs(['setup']).command).toBe('setup');
    expect(parseArgs(['setup', '--api-key', 'k']).apiKey).toBe('k');
    // "setup the repo" is a message, not the command
    expect(parseArgs(['setup', 'the', 'repo']).command).toBe('run');
  });

  it('keeps words after -- verbatim, even if they look like flags', () => {
    expect(parseArgs(['--', '-q', 'is', 'a', 'word']).message).toEqual(['-q', 'is', 'a', 'word']);
  });

  it('rejects unknown flags, missing values and bad values with a UsageError naming them', () => {
    const bad: [string[], RegExp][] = [
      [['--nope'], /unknown option --nope/],
      [['-x'], /unknown option -x/],
      [['--model'], /--model needs a value/],
      [['--shell-tool', 'zsh'], /--shell-tool/],
      [['--base-url', 'ftp://x'], /--base-url/],
      [['--quiet=yes'], /takes no value/],
      [['--api-key', 'k', 'hello'], /only accepted by `agentx setup`/],
    ];
    for (const [argv, re] of bad) {
      expect(() => parseArgs(argv)).toThrow(UsageError);
      expect(() => parseArgs(argv)).toThrow(re);
    }
  });

  it('help and version win over everything else', () => {
    expect(parseArgs(['-q', '-h']).command).toBe('help');
    expect(parseArgs(['hello', '-v']).command).toBe('version');
  });
});
