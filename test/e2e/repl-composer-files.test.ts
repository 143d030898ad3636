// The composer's file features in a real pty (issue 26 §1): the `@` finder over the project's
// files (.gitignore respected), `@path` attaching a file to the message (and refusing a binary),
// Ctrl-O showing the whole output of the last command.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const CTRL_O = '\x0f';

async function sentText(n: number): Promise<string> {
  await expect.poll(() => suite.emu.requests.length, { timeout: 10_000 }).toBeGreaterThan(n);
  return userText(suite.emu.requests[n]);
}

describe('composer: files', () => {
  it('@ opens the finder (git-aware), ↓ and Tab pick, the sent message carries the file', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    mkdirSync(join(sb.cwd, 'src/parser'), { recursive: true });
    mkdirSync(join(sb.cwd, 'dist'), { recursive: true });
    writeFileSync(join(sb.cwd, 'src/parser/tokens.ts'), 'export const TOKEN_MARK = 42;\n');
    writeFileSync(join(sb.cwd, 'src/parser/tokenizer.ts'), 'export const TOKENIZER_MARK = 7;\n');
    writeFileSync(join(sb.cwd, 'dist/tokens.js'), 'ignored build output\n');
    writeFileSync(join(sb.cwd, '.gitignore'), 'dist/\n');
    execFileSync('git', ['init', '-q'], { cwd: sb.cwd });
    const a = suite.start(sb);
    await prompt(a);
    const n = suite.emu.requests.length;
    a.write('explain @tok');
    await a.waitFor('src/parser/tokens.ts');
    await a.waitFor('Tab or Enter inserts');
    expect(a.screen()).not.toContain('dist/tokens.js');
    a.write(KEY.down);
    a.write(KEY.tab);
    a.write('please');
    await a.waitFor('explain @src/parser/tokenizer.ts please');
    a.write(KEY.enter);
    const sent = await sentText(n);
    expect(sent).toContain('explain @src/parser/tokenizer.ts please');
    expect(sent).toContain('TOKENIZER_MARK = 7');
    expect(sent).not.toContain('TOKEN_MARK = 42');
    await a.waitFor('attached @src/parser/tokenizer.ts: 1 line');
    await prompt(a);
  });

  it('a binary @file is refused in one line; a word that is no file is plain text', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x00, 0x01, 0x02]));
    const a = suite.start(sb);
    await prompt(a);
    const n = suite.emu.requests.length;
    // Esc closes the finder for the word (it stays closed while the word grows); Enter then sends.
    a.write('check @blob.bin with @team');
    await a.waitFor('no file matches @team');
    a.write(KEY.esc);
    a.write('X');
    await a.waitFor('with @teamX');
    await a.waitFor('network off');
    expect(a.screen().slice(a.screen().lastIndexOf('with @teamX'))).not.toContain('no file matches');
    a.write('\x7f');
    a.write(KEY.enter);
    await a.waitFor('@blob.bin looks binary: not attached');
    const sent = await sentText(n);
    expect(sent).toBe('check @blob.bin with @team');
    await prompt(a);
  });

  it('Ctrl-O prints the whole output of the last command above the prompt', async () => {
    const a = suite.start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue({ kind: 'shell', commands: ['seq 101 140'] });
    await turn(a, 'count', '… 28 more lines (Ctrl-O at the prompt shows them)');
    a.write(CTRL_O);
    await a.waitFor('full output of $ seq 101 140');
    await a.waitFor(/139\s+140\s+── end of output/);
    expect(a.screen()).toContain('101');
    await prompt(a);
  });
});

describe('status line: background sessions', () => {
  it('counts the exec sessions still running and is redrawn when one ends', async () => {
    const a = suite.start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue(
      { kind: 'function', name: 'exec_command', arguments: JSON.stringify({ cmd: 'sleep 2', yield_time_ms: 200 }) },
      { kind: 'text', text: 'left it running' },
    );
    a.line('start a sleeper');
    await a.waitFor('left it running');
    await a.waitFor('network off · approval on-request · 1 background session (/ps)');
    // No key is pressed: the end of the session alone redraws the line.
    await expect.poll(() => /approval on-request\s*$/.test(a.screen()), { timeout: 10_000 }).toBe(true);
  });
});
