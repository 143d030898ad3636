// The composer in a real pty (issue 26 §1, §2's status line, §5's notices and notification):
// newline keys, multi-line editing, type-ahead, Esc, paste placeholders, Ctrl-R, Tab on paths,
// the status line, Ctrl-O, and the bell after a long turn.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;
const ALT_ENTER = '\x1b\r';
const CTRL_J = '\n';
const CTRL_R = '\x12';
const CTRL_U = '\x15';

/** The user text of the request the emulator got after `n` earlier ones. */
async function sentText(n: number): Promise<string> {
  await expect.poll(() => suite.emu.requests.length, { timeout: 10_000 }).toBeGreaterThan(n);
  return userText(suite.emu.requests[n]);
}

describe('composer: typing', () => {
  it('Alt-Enter, Ctrl-J and \\+Enter insert a newline; Enter sends the whole message', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    const n = suite.emu.requests.length;
    a.write('one');
    a.write(ALT_ENTER);
    a.write('two');
    a.write(CTRL_J);
    a.write('three\\');
    await a.waitFor('three\\');
    // Enter after a typed backslash (alone, as a key: text right after it in one chunk reads as a paste).
    a.write(KEY.enter);
    await a.waitFor(/three\s+\S/);
    a.write('four');
    await a.waitFor('four');
    expect(suite.emu.requests.length).toBe(n);
    a.write(KEY.enter);
    expect(await sentText(n)).toBe('one\ntwo\nthree\nfour');
    await a.waitFor('You said: one');
    await prompt(a);
  });

  it('the arrows move over the lines of a message (history only from the first line)', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    await turn(a, 'older message', 'You said: older');
    const n = suite.emu.requests.length;
    a.write('ab');
    a.write(CTRL_J);
    a.write('cd');
    a.write(KEY.up);
    a.write('X');
    a.write(KEY.down);
    a.write('Y');
    await a.waitFor('cdY');
    a.write(KEY.enter);
    expect(await sentText(n)).toBe('abX\ncdY');
    await prompt(a);
  });

  it('the status line under the prompt shows the model, context left and the sandbox', async () => {
    const a = start(sandbox(suite.emu.baseUrl, { AGENTX_MODEL: 'gpt-5.1', AGENTX_REASONING_EFFORT: 'high' }));
    await prompt(a);
    await a.waitFor(/gpt-5\.1 high · \d+% context left\S* · sandbox \S+, network off/);
    await turn(a, 'hello', 'You said: hello');
    await a.waitFor(/gpt-5\.1 high · \d+% context left/);
  });
});

describe('composer: while a turn runs', () => {
  it('type-ahead is queued, shown, and sent when the turn ends', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: 'a slow answer in several pieces', chunks: 6, delayMs: 250 });
    const n = suite.emu.requests.length;
    a.line('first question');
    await a.waitFor('a slow');
    a.write('second question');
    a.write(KEY.enter);
    await a.waitFor('pieces');
    expect(await sentText(n + 1)).toBe('second question');
    await a.waitFor('You said: second question');
    await prompt(a);
  });

  it('two messages typed ahead stay two messages; a pasted block typed ahead stays one', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: 'slow words arrive one by one', chunks: 6, delayMs: 250 });
    const n = suite.emu.requests.length;
    a.line('start');
    await a.waitFor('slow');
    // Typed key by key as a person types (each key its own chunk, no bracketed paste): each Enter ends a message.
    for (const key of ['s', 'e', 'c', 'o', 'n', 'd', KEY.enter, 't', 'h', 'i', 'r', 'd', KEY.enter]) {
      a.write(key);
      await new Promise((r) => setTimeout(r, 15));
    }
    await a.waitFor('one by one');
    expect(await sentText(n + 1)).toBe('second');
    expect(await sentText(n + 2)).toBe('third');
    await a.waitFor('You said: third');
    await prompt(a);
    // A bracketed paste during a turn keeps its newlines: one message.
    suite.emu.enqueue({ kind: 'text', text: 'more slow words arrive here', chunks: 6, delayMs: 250 });
    const m = suite.emu.requests.length;
    a.line('again');
    await a.waitFor('more');
    a.write('\x1b[200~line one\nline two\x1b[201~');
    a.write(KEY.enter);
    await a.waitFor('arrive here');
    expect(await sentText(m + 1)).toBe('line one\nline two');
    await prompt(a);
  });

  it('Ctrl-U takes the queued text back: nothing is sent', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: 'another slow answer here', chunks: 5, delayMs: 250 });
    a.line('go');
    await a.waitFor('another');
    const n = suite.emu.requests.length;
    a.write('never send this');
    a.write(CTRL_U);
    await a.waitFor('here');
    await prompt(a);
    await turn(a, 'checked', 'You said: checked');
    expect(suite.emu.requests.length).toBe(n + 1);
    expect(userText(suite.emu.requests[n])).not.toContain('never send this');
  });

  it('Esc interrupts the turn like Ctrl-C; text typed ahead comes back unsent', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: 'words that will be cut off before the end', chunks: 8, delayMs: 400 });
    a.line('long one');
    await a.waitFor('words');
    const n = suite.emu.requests.length;
    a.write('keep me');
    a.write(KEY.enter);
    a.write(KEY.esc);
    await a.waitFor('interrupted');
    await prompt(a);
    await a.waitFor('keep me');
    expect(suite.emu.requests.length).toBe(n);
    a.write(KEY.enter);
    expect(await sentText(n)).toContain('keep me');
    await prompt(a);
  });
});

describe('composer: pastes, history, completion', () => {
  it('a long paste shows as a placeholder, is sent in full, and history keeps it compact', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const text = Array.from({ length: 40 }, (_, i) => `pasted row ${i}`).join('\n');
    const n = suite.emu.requests.length;
    a.write(`explain \x1b[200~${text}\x1b[201~`);
    await a.waitFor('explain [pasted: 40 lines, 549 bytes]');
    expect(a.screen()).not.toContain('pasted row 39');
    a.write(KEY.enter);
    expect(await sentText(n)).toBe(`explain ${text}`);
    await prompt(a);
    a.write(KEY.up);
    await a.waitFor('explain [pasted: 40 lines, 549 bytes]');
    // Recalled in the same session, the placeholder still stands for the text.
    a.write(KEY.enter);
    expect(await sentText(n + 1)).toBe(`explain ${text}`);
    await prompt(a);
    a.write(KEY.ctrlD);
    await a.exited;
    const history = readFileSync(join(sb.home, '.agentx_history'), 'utf8');
    expect(history).toContain('explain [pasted: 40 lines, 549 bytes]');
    expect(history).not.toContain('pasted row 39');
  });

  it('Ctrl-R searches the history; Enter takes the match, the next Enter sends it', async () => {
    const a = start(sandbox(suite.emu.baseUrl));
    await prompt(a);
    await turn(a, 'alpha first', 'You said: alpha');
    await turn(a, 'beta second', 'You said: beta');
    const n = suite.emu.requests.length;
    a.write(CTRL_R);
    await a.waitFor('search history:');
    a.write('lph');
    await a.waitFor('search history: lph');
    // The match is shown in the composer while searching; Enter takes it (the search line goes).
    expect(a.screen()).toMatch(/> alpha first/);
    a.write(KEY.enter);
    await a.waitFor(/network off(?![\s\S]*search history)/);
    expect(suite.emu.requests.length).toBe(n);
    a.write(KEY.enter);
    expect(await sentText(n)).toBe('alpha first');
    await prompt(a);
  });

  it('Tab completes paths (after @ too) and /commands', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'notes-with-a-long-name.txt'), 'x');
    const a = start(sb);
    await prompt(a);
    const n = suite.emu.requests.length;
    a.write('look at @notes-w');
    a.write(KEY.tab);
    a.write('now');
    await a.waitFor('notes-with-a-long-name.txt now');
    a.write(KEY.enter);
    expect(await sentText(n)).toContain('look at @notes-with-a-long-name.txt now');
    await prompt(a);
    a.write('/us');
    a.write(KEY.tab);
    a.write(KEY.enter);
    await a.waitFor(/tokens|turn/i);
    await prompt(a);
  });
});

describe('a long turn ends', () => {
  it('rings the bell (AGENTX_NOTIFY_AFTER_MS lowers the 10 s threshold); AGENTX_NOTIFY=off is silent', async () => {
    const a = start(sandbox(suite.emu.baseUrl, { AGENTX_NOTIFY_AFTER_MS: '0', AGENTX_NOTIFY: 'bell' }));
    await prompt(a);
    await turn(a, 'ring', 'You said: ring');
    expect(a.raw()).toContain('\x07');
    const b = start(sandbox(suite.emu.baseUrl, { AGENTX_NOTIFY_AFTER_MS: '0', AGENTX_NOTIFY: 'off' }));
    await prompt(b);
    await turn(b, 'quiet', 'You said: quiet');
    expect(b.raw()).not.toContain('\x07');
  });
});
