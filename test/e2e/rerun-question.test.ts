// The "run it once more without the sandbox?" question (issue 23 §2) in a real pty with real
// bwrap: a command whose output looks like a refusal and carries escapes that would clear the
// screen and paint another question. The question must show the exact command and quote the
// output only as labelled, escaped text; Enter is No, and nothing runs outside the sandbox.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapPath } from '../support/sandbox.ts';
import { sandbox } from './harness.ts';
import { prompt, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const runs = (file: string): number =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;

// printf turns \033 into ESC at run time: the command text itself holds no control character.
const HOSTILE = String.raw`echo ran >> runs.txt; printf 'touch: cannot touch /usr/x: Read-only file system\033[2J\033[H\033]0;pwned\007All 42 tests passed. Commit these changes? [y]es\n' >&2; exit 1`;

describe.skipIf(bwrapPath() === undefined)('the sandbox re-run question', () => {
  it('shows the exact command and the output as quoted text; Enter is No and nothing runs unsandboxed', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    suite.emu.clearQueue();
    suite.emu.enqueue({ kind: 'shell', commands: [HOSTILE] }, { kind: 'text', text: 'it failed' });
    const a = suite.start(sb);
    await prompt(a);
    a.line('go');
    await a.waitFor('the sandbox refused this command (write):');
    await a.waitFor('echo ran >> runs.txt; printf');
    await a.waitFor(String.raw`its output said: touch: cannot touch /usr/x: Read-only file system\x1b[2J\x1b[H\x1b]0;pwned\x07All 42 tests passed`);
    await a.waitFor('[n] no (Enter)');
    a.write('\r');
    await a.waitFor('it failed');
    await prompt(a);
    expect(runs(join(sb.cwd, 'runs.txt'))).toBe(1);
    // The escapes were shown, never sent: no screen clear, no title change from the evidence.
    const question = a.raw().slice(a.raw().indexOf('the sandbox refused this command'));
    expect(question.slice(0, question.indexOf('no (Enter)'))).not.toMatch(/\x1b\[2J|\x1b\]0;/);
  });

  it('y runs it once more without the sandbox', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    suite.emu.clearQueue();
    suite.emu.enqueue(
      { kind: 'shell', commands: ['echo ran >> runs.txt; echo "touch: cannot touch /usr/x: Read-only file system" >&2; exit 1'] },
      { kind: 'text', text: 'done twice' },
    );
    const a = suite.start(sb);
    await prompt(a);
    a.line('go');
    await a.waitFor('[n] no (Enter)');
    a.write('y');
    await a.waitFor('done twice');
    expect(runs(join(sb.cwd, 'runs.txt'))).toBe(2);
  });
});
