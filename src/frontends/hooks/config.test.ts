import { describe, expect, it } from 'vitest';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { parseHooksFile } from './config.ts';

const file = (hooks: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ hooks, ...extra });
const cmd = (command: string, timeout?: number) => ({ type: 'command', command, ...(timeout === undefined ? {} : { timeout }) });

describe('hooks files', () => {
  it('matches by exact name, by a regular expression over the whole name, Bash for shell, and all when empty', () => {
    const f = parseHooksFile(
      '/h.json',
      file({
        PreToolUse: [
          { matcher: 'shell', hooks: [cmd('a')] },
          { matcher: 'apply_patch|Edit', hooks: [cmd('b')] },
          { matcher: 'Bash', hooks: [cmd('c')] },
          { matcher: 'mcp__.*', hooks: [cmd('d')] },
          { hooks: [cmd('e')] },
        ],
      }),
      true,
    );
    expect(f.problems).toEqual([]);
    const matching = (tool: string): string[] => f.hooks.filter((h) => h.matches(tool)).map((h) => h.command);
    expect(matching('shell')).toEqual(['a', 'c', 'e']);
    expect(matching('exec_command')).toEqual(['c', 'e']);
    expect(matching('apply_patch')).toEqual(['b', 'e']);
    expect(matching('mcp__db__query')).toEqual(['d', 'e']);
    // The whole name: "shell" does not match "shell_extra".
    expect(matching('shell_extra')).toEqual(['e']);
  });

  it("timeouts: 60 s by default, at most 600; the sandbox may be turned off only in the person's own file", () => {
    const text = file({ Stop: [{ hooks: [cmd('x'), cmd('y', 5), cmd('z', 9999)] }] }, { sandbox: false });
    const own = parseHooksFile('/own.json', text, true);
    expect(own.hooks.map((h) => [h.timeoutMs, h.sandboxed])).toEqual([
      [60_000, false],
      [5000, false],
      [600_000, false],
    ]);
    const project = parseHooksFile('/p/.agentx/hooks.json', text, false);
    expect(project.hooks.every((h) => h.sandboxed)).toBe(true);
    expect(project.problems).toEqual(['/p/.agentx/hooks.json: "sandbox": false is honoured only in your own hooks file; these hooks run sandboxed']);
  });

  it('a file that is not JSON is one clean line the terminal sanitizer leaves whole (it quotes no raw bytes of the file)', () => {
    const [line] = parseHooksFile('/h.json', '{"hooks": {"Stop": [\x1b]0;owned\x07\n\x1b[2J]}}', true).problems;
    expect(line).toBe("/h.json is not valid JSON at line 1, column 21: unexpected '\\x1b' (near '…oks\": {\"Stop\": [\\x1b]0;owned\\x07'); no hooks from it");
    expect(sanitizeLine(line ?? '')).toBe(line);
  });

  it('a malformed file or entry is one line each; the rest loads', () => {
    expect(parseHooksFile('/h.json', '{"hooks": ', true).problems).toEqual([
      '/h.json is not valid JSON at line 1, column 11: the text ends too early (near \'{"hooks":\'); no hooks from it',
    ]);
    expect(parseHooksFile('/h.json', '[]', true).problems).toEqual(['/h.json: expected {"hooks": {"EventName": [...]}}; no hooks from it']);
    const f = parseHooksFile('/h.json', file({ Stop: {}, UserPromptSubmit: [7, { hooks: [cmd('ok'), { type: 'command', command: ' ' }] }] }), true);
    expect(f.hooks.map((h) => h.command)).toEqual(['ok']);
    expect(f.problems).toHaveLength(3);
  });
});
