import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../config/config.ts';
import { OFF_IF_UNAVAILABLE, SANDBOX_MODES } from '../sandbox/policy.ts';
import { APPROVAL_MODES } from '../tools/permissions/escalation.ts';
import { helpText, jsonRequested, parseArgs } from './args.ts';
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

  it('reads `-` as stdin and the subcommands by their exact words', () => {
    expect(parseArgs(['-']).readStdin).toBe(true);
    expect(parseArgs(['setup']).command).toBe('setup');
    expect(parseArgs(['setup', '--api-key', 'k']).apiKey).toBe('k');
    expect(parseArgs(['mcp', 'list']).command).toBe('mcp-list');
    expect(parseArgs(['clean']).command).toBe('clean');
    expect(parseArgs(['-C', 'dir', 'clean'])).toMatchObject({ command: 'clean', cwd: 'dir' });
    expect(parseArgs(['help']).command).toBe('help');
    expect(parseArgs(['version']).command).toBe('version');
  });

  it('a command word followed by other words is an unknown command listing the real ones, not a paid prompt', () => {
    expect(() => parseArgs(['mcp', 'serve', 'x'])).toThrow(
      new UsageError(
        'unknown command \'mcp serve\'; commands: setup, mcp list|add|get|remove|login|logout, resume, clean (to send it as a message, quote it: agentx "mcp serve x")',
      ),
    );
    // Alone, `mcp` wants a subcommand; quoting one word changes nothing for the shell, so the hint is --, which works.
    expect(() => parseArgs(['mcp'])).toThrow(
      new UsageError("'mcp' needs a subcommand: list, add, get, remove, login, logout (to send it as a message: agentx -- mcp)"),
    );
    expect(parseArgs(['--', 'mcp'])).toMatchObject({ command: 'run', message: ['mcp'] });
    // `mcp add` is real (main.ts runs it before parsing); after options it is told to come first.
    expect(() => parseArgs(['-q', 'mcp', 'add', 'x'])).toThrow(/'mcp add' takes its own options: put it first/);
    expect(() => parseArgs(['setup', 'the', 'repo'])).toThrow(/unknown command 'setup the'/);
    expect(() => parseArgs(['clean', 'up'])).toThrow(/unknown command 'clean up'/);
    // All of `mcp list` and more: that command, which takes no arguments; the quoted form is a message.
    expect(() => parseArgs(['mcp', 'list', 'all', 'of them'])).toThrow(
      new UsageError('\'mcp list\' takes no arguments, got "all" "of them" (to send it as a message, quote it: agentx "mcp list all of them")'),
    );
    expect(parseArgs(['mcp list all'])).toMatchObject({ command: 'run', message: ['mcp list all'] });
    // Quoted as one argument, or after --, it is a message.
    expect(parseArgs(['setup the repo'])).toMatchObject({ command: 'run', message: ['setup the repo'] });
    expect(parseArgs(['--', 'setup'])).toMatchObject({ command: 'run', message: ['setup'] });
    expect(parseArgs(['--', 'mcp', 'list'])).toMatchObject({ command: 'run', message: ['mcp', 'list'] });
    expect(parseArgs(['-', 'setup'])).toMatchObject({ command: 'run', readStdin: true, message: ['setup'] });
    // help and version followed by words are ordinary messages.
    expect(parseArgs(['help', 'me', 'fix', 'this']).command).toBe('run');
  });

  it('a lone word another agent CLI uses as a command is refused; with more words it is a message', () => {
    for (const word of ['login', 'init', 'run', 'continue']) {
      expect(() => parseArgs([word])).toThrow(
        new UsageError(
          `'${word}' is not a command; commands: setup, mcp list|add|get|remove|login|logout, resume, clean (to send it as a message: agentx -- ${word})`,
        ),
      );
    }
    expect(parseArgs(['--', 'resume']).message).toEqual(['resume']);
    expect(() => parseArgs(['resume', 'the', 'work'])).toThrow(/unknown command 'resume the'/);
    expect(parseArgs(['login', 'the', 'parser', 'work']).command).toBe('run');
    expect(parseArgs(['fix the bug']).message).toEqual(['fix the bug']);
    expect(parseArgs(['refactor']).message).toEqual(['refactor']);
  });

  it('agentx resume [--last] starts the REPL on an earlier conversation; --last belongs to it alone', () => {
    expect(parseArgs(['resume'])).toMatchObject({ command: 'resume', message: [] });
    expect(parseArgs(['resume', '--last'])).toMatchObject({ command: 'resume', resumeLast: true });
    expect(() => parseArgs(['--last', 'hi'])).toThrow(new UsageError('--last is only accepted by `agentx resume`'));
  });

  it('--fresh and --json are one-shot flags; jsonRequested sees --json before parsing', () => {
    expect(parseArgs(['--fresh', 'hi']).fresh).toBe(true);
    expect(parseArgs(['hi']).fresh).toBe(false);
    expect(jsonRequested(['--json', '--nope'])).toBe(true);
    expect(jsonRequested(['--', '--json'])).toBe(false);
    expect(jsonRequested(['hi'])).toBe(false);
  });

  it('--json with a subcommand is one usage error naming it; help, version and -- are not subcommands', () => {
    const refusal = (command: string): UsageError =>
      new UsageError(`--json is only accepted by one-shots (agentx --json "message"), not by \`agentx ${command}\`, which has no JSON output`);
    expect(() => parseArgs(['--json', 'clean'])).toThrow(refusal('clean'));
    expect(() => parseArgs(['clean', '--json'])).toThrow(refusal('clean'));
    expect(() => parseArgs(['--json', 'mcp', 'list'])).toThrow(refusal('mcp list'));
    expect(() => parseArgs(['--json', 'resume', '--last'])).toThrow(refusal('resume'));
    expect(() => parseArgs(['--json', 'setup', '--api-key', 'sk-x'])).toThrow(refusal('setup'));
    // The refusal at once, not "put it first" and then the refusal.
    expect(() => parseArgs(['--json', 'mcp', 'get', 'x'])).toThrow(refusal('mcp get'));
    expect(parseArgs(['--json', 'help']).command).toBe('help');
    expect(parseArgs(['--json', '--version']).command).toBe('version');
    expect(parseArgs(['--json', '--', 'clean'])).toMatchObject({ command: 'run', json: true, message: ['clean'] });
    expect(parseArgs(['--json', 'clean up the repo'])).toMatchObject({ command: 'run', json: true });
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
      // The same checks as the settings' at start (config/setting-checks.ts); the key is never shown.
      [['setup', '--api-key', 'sk-4242\nX'], /^--api-key: contains a line break or another control character \(the key is not shown\)$/],
      [['--base-url', 'not a url', 'x'], /^--base-url: not an http\(s\) URL: "not a url"$/],
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

  it('help lines never glue a long flag to its text; the usage lines say what they mean', () => {
    const help = helpText('0.0.0');
    expect(help).not.toMatch(/custom\|offhow/);
    expect(help).toMatch(/--patch-tool builtin\|function\|custom\|off\n {36}how the apply_patch/);
    for (const line of help.split('\n').filter((l) => l.startsWith('  -') || l.startsWith('      --'))) {
      expect(line).toMatch(/\S  +\S|^\s+--?\S+( \S+)?$/);
    }
    expect(help).not.toContain('agentx - | cmd');
    expect(help).toContain('cmd | agentx "message"');
    expect(help).toMatch(/agentx clean +remove leftover one-shot/);
    expect(help).toMatch(/Keys in the interactive session: Enter sends/);
    // The keys line names the composer's keys, not the old "Tab completes /commands" only.
    for (const key of ['Alt-Enter', 'Ctrl-J', 'Esc', 'Ctrl-R', '@ finds', 'Ctrl-O', 'completes /commands and paths']) expect(help).toContain(key);
    // `agentx mcp add` is a real command: the help never cites it as an unknown one.
    expect(help).not.toMatch(/unknown[^\n]*\n?[^\n]*agentx mcp add\)/);
    expect(help).toContain('--fresh');
    expect(help).toContain('AGENTX_MAX_RETRIES');
  });

  it('help names every value a flag accepts and the real defaults', () => {
    const help = helpText('0.0.0');
    // The option's own row (its help follows on the same line when the names fit the column).
    const row = (flag: string): string => help.split('\n').find((l) => new RegExp(`^ {2}(?:-\\w, | {4})--${flag}\\b`).test(l)) ?? '';
    for (const value of [...SANDBOX_MODES, OFF_IF_UNAVAILABLE]) {
      expect(row('sandbox')).toContain(value);
      expect(() => parseArgs(['--sandbox', value, 'hi'])).not.toThrow();
    }
    for (const mode of APPROVAL_MODES) expect(row('approval')).toContain(mode);
    // The model's default is config.ts's, named as it is resolved: flag, AGENTX_MODEL, then the default.
    expect(row('model')).toContain(`else ${DEFAULT_MODEL})`);
    expect(row('model')).toContain('AGENTX_MODEL');
  });

  it("every flag of the help is in docs/usage.md's flag table", () => {
    const usage = readFileSync(new URL('../../docs/usage.md', import.meta.url), 'utf8');
    const table = usage.slice(usage.indexOf('## Flags'), usage.indexOf('Short flags stack'));
    const flags = [...helpText('0.0.0').matchAll(/^ {2}(?:-\w, | {4})--([\w-]+)/gm)].map((m) => m[1] ?? '');
    expect(flags.length).toBeGreaterThan(20);
    for (const flag of flags) expect(table, `--${flag} is missing from docs/usage.md`).toMatch(new RegExp(`\`--${flag}[\\s\`]`));
  });
});

describe('--approval', () => {
  it('takes a mode; --confirm is untrusted; a bad mode is one clear line', () => {
    expect(parseArgs(['--approval', 'never', 'hi']).approval).toBe('never');
    expect(parseArgs(['--confirm', 'hi']).approval).toBe('untrusted');
    expect(parseArgs(['hi']).approval).toBeUndefined();
    expect(() => parseArgs(['--approval', 'sometimes', 'hi'])).toThrow(/--approval: expected untrusted, on-request, never, got "sometimes"/);
  });
});
