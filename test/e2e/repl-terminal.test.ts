// The terminal belongs to the person (issue 14 §3–4, issue 15 §5–6), in a real pty: escapes
// from the model and from commands never reach it, a forged --confirm prompt shows the real
// command, menus reject free text, a 100 KB paste arrives whole, Ctrl-Z + fg leaves a working
// prompt, and answers are rendered as Markdown on a terminal only.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, sandbox } from './harness.ts';
import { KEY, spawnInPty, stripAnsi, type PtyRun } from './pty.ts';
import { prompt, readState, stateExists, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

/** What a hostile model or command writes to take the terminal over. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[?1049h\x1b[?1000h\x1b[2J\x1b[3J\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\';
/** A command that prints the same (its own text holds no escape character). */
const PRINTF = "printf 'out:\\033]2;pwned\\007\\033[?1049h\\033[?1000h\\033[2J\\033]52;c;aGk=\\007:done\\n'";
/** Sequences that must never reach the pty from model text or command output. */
const FORBIDDEN = ['\x1b]', '\x1b[?1049h', '\x1b[?1000h', '\x1b[2J', '\x1b[3J', '\x07'];

function expectNoTakeover(a: PtyRun): void {
  for (const seq of FORBIDDEN) expect(a.raw(), JSON.stringify(seq)).not.toContain(seq);
}

describe('escape sequences from the model and from commands', () => {
  it('never reach the terminal: answer, reasoning, model command output, !command output', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: `hello ${HOSTILE} world`, reasoning: `thinking ${HOSTILE} hard`, chunks: 7 });
    await turn(a, 'say something', 'world');
    expect(a.screen()).toContain('hello link world');
    suite.emu.enqueue({ kind: 'shell', commands: [PRINTF] });
    await turn(a, 'print it', /Ran it/);
    a.line(`!${PRINTF}`);
    await a.waitFor('out::done');
    await prompt(a);
    expectNoTakeover(a);
  });

  it('a forged --confirm prompt shows the real command, every control character visible', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb, ['--confirm']);
    await prompt(a);
    suite.emu.enqueue({ kind: 'shell', commands: ['echo hi\r\x1b[2Kls # harmless'] });
    a.line('list the files');
    await a.waitFor('$ echo hi\\x0d\\x1b[2Kls # harmless');
    await a.waitFor('[n] no (Enter)');
    expect(a.raw()).not.toContain('hi\r\x1b[2Kls');
    a.write('n');
    await a.waitFor(/Ran it/);
    await prompt(a);
  });
});

describe('menus never guess', () => {
  it('the startup recovery menu rejects a sentence and asks for "yes" before Clear', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = start(sb);
    await prompt(a);
    // Three attempts (the REPL's retry policy), all refused.
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 3 });
    a.line('through the outage');
    await a.waitFor('What now?');
    a.line('5');
    await a.waitFor('Kept for later');
    await prompt(a);
    a.write(KEY.ctrlD);
    await a.exited;

    const b = start(sb);
    await b.waitFor('What now?');
    b.line('please keep my session, do not clear it');
    await b.waitFor('"please keep my session, do not clear it" is not a choice');
    b.line('4');
    await b.waitFor('Type "yes" to confirm');
    b.line('y');
    await b.waitFor('Not confirmed: nothing was done');
    expect(stateExists(sb)).toBe(true);
    expect(readState(sb).pending_transaction).not.toBeNull();
    b.write(KEY.esc);
    await b.waitFor('Kept for later');
    await prompt(b);
    expect(readState(sb).pending_transaction).not.toBeNull();
  });
});

describe('terminal life', () => {
  it('a 100 KB bracketed paste arrives intact, newlines included, as one message', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const text = Array.from({ length: 2000 }, (_, i) => `paste line ${i}: ${'lorem ipsum '.repeat(4)}end`).join('\n');
    expect(text.length).toBeGreaterThan(100_000);
    const n = suite.emu.requests.length;
    a.write(`\x1b[200~${text}\x1b[201~`);
    a.write(KEY.enter);
    await a.waitFor('You said: paste line 0:', 60_000);
    await prompt(a, 60_000);
    expect(suite.emu.requests.length).toBe(n + 1);
    expect(userText(suite.emu.requests[n])).toBe(text);
  });

  it.skipIf(!existsSync('/bin/bash'))('Ctrl-Z suspends to the shell, fg resumes with a working prompt', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    // An interactive bash in the pty gives real job control: Ctrl-Z stops agentx, fg continues it.
    const sh = spawnInPty('/bin/bash', ['--norc', '--noprofile', '-i'], sb, sb.cwd, { PS1: 'shell$ ' });
    try {
      await sh.waitFor('shell$ ');
      sh.line(`${process.execPath} ${CLI}`);
      await prompt(sh);
      sh.write('half typed');
      await sh.waitFor('half typed');
      sh.write('\x1a');
      await sh.waitFor(/Stopped/);
      await sh.waitFor('shell$ ');
      sh.line('fg');
      // Redrawn with what was typed, and raw mode is back: the keys reach the line editor.
      await sh.waitFor(/> half typed/);
      const n = suite.emu.requests.length;
      sh.line(' and finished');
      await sh.waitFor('You said: half typed and finished');
      await prompt(sh);
      expect(userText(suite.emu.requests[n])).toBe('half typed and finished');
      sh.write(KEY.ctrlD);
      await sh.waitFor('shell$ ');
      sh.line('exit');
      await sh.exited;
    } finally {
      sh.kill();
    }
  });
});

/**
 * The screen once the live preview rows are gone: a row that agentx erased (CR, erase line) is
 * removed, then the escapes.
 */
function settledScreen(a: PtyRun): string {
  let prev = '';
  let cur = a.raw();
  while (cur !== prev) {
    prev = cur;
    cur = cur.replace(/[^\n]*\r\x1b\[K/, '');
  }
  return stripAnsi(cur);
}

const MARKDOWN = 'Intro with **important** words.\n\n```js\nconst x = 1;\n```\n\n- first\n- second\n';

describe('Markdown answers', () => {
  it('are rendered in a terminal: bold without asterisks, code coloured, bullets', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: MARKDOWN, chunks: 9 });
    await turn(a, 'show markdown', /• second/);
    const screen = settledScreen(a);
    expect(screen).toContain('Intro with important words.');
    expect(screen).not.toContain('**');
    expect(screen).not.toContain('```');
    expect(screen).toContain('  const x = 1;');
    expect(a.raw()).toContain('\x1b[1mimportant\x1b[22m');
    expect(a.raw()).toContain('\x1b[35mconst\x1b[39m');
  });

  it('stay raw with --raw, with NO_COLOR, and on a pipe', async () => {
    for (const [args, env] of [
      [['--raw'], {}],
      [[], { NO_COLOR: '1' }],
    ] as const) {
      const sb = sandbox(suite.emu.baseUrl, env);
      const a = start(sb, [...args]);
      await prompt(a);
      suite.emu.enqueue({ kind: 'text', text: MARKDOWN, chunks: 1 });
      await turn(a, 'show markdown', '- second');
      expect(a.screen()).toContain('Intro with **important** words.');
      expect(a.screen()).toContain('```js');
      a.kill();
    }
    const sb = sandbox(suite.emu.baseUrl);
    suite.emu.enqueue({ kind: 'text', text: MARKDOWN, chunks: 3 });
    const r = await runCli(['show markdown'], { cwd: sb.cwd, env: sb.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(MARKDOWN);
  });
});
