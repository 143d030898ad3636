// The REPL in a real pty against the emulator: turns, local commands, cd, paste, /clear, the lock.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { body, prompt, readState, stateExists, turn, userText, replSuite } from './repl-fixtures.ts';

const suite = replSuite();
const start = suite.start;

describe('repl', () => {
  it('streams the answer as it arrives and exits on Ctrl-D', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'text', text: 'alpha beta gamma delta', chunks: 4, delayMs: 400 });
    a.line('stream please');
    await a.waitFor('alpha');
    expect(a.screen()).not.toContain('delta');
    await a.waitFor('delta');
    await a.waitFor(/tokens: \d+ in/);
    await prompt(a);
    const s = readState(sb);
    expect(s.usage.turns).toBe(1);
    expect(s.history[0]?.user_preview).toBe('stream please');
    a.write(KEY.ctrlD);
    expect((await a.exited).exitCode).toBe(0);
    // The history file keeps what was typed, private to the user.
    const hist = join(sb.home, '.agentx_history');
    expect(readFileSync(hist, 'utf8')).toContain('stream please');
    expect(statSync(hist).mode & 0o777).toBe(0o600);
  });

  it('sends a !command transcript with the next message, then resumes on restart', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    a.line('!echo hi-from-bang');
    await a.waitFor('hi-from-bang');
    await prompt(a);
    expect(readState(sb).pending_cli_transcript).toHaveLength(1);
    const before = suite.emu.requests.length;
    await turn(a, 'what did I run?', 'You said: ');
    const req = suite.emu.requests[before];
    expect(userText(req)).toContain('$ echo hi-from-bang');
    expect(userText(req)).toContain('hi-from-bang\n');
    expect(readState(sb).pending_cli_transcript).toHaveLength(0);
    a.line('exit');
    expect((await a.exited).exitCode).toBe(0);

    const b = start(sb);
    await b.waitFor('Resuming session: 1 turn, last: "what did I run?"');
    await prompt(b);
    const n = suite.emu.requests.length;
    await turn(b, 'again', 'You said: again');
    expect(body(suite.emu.requests[n]).previous_response_id).toBe(suite.emu.requests[before]?.responseId);
  });

  it('cd changes where commands run and the next request says so', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    mkdirSync(join(sb.cwd, 'sub'));
    const a = start(sb);
    await prompt(a);
    a.line('cd nowhere');
    await a.waitFor('cd: no such directory: nowhere');
    a.line('cd sub');
    await a.waitFor(/project\/sub> /);
    const before = suite.emu.requests.length;
    a.line('run: pwd > where.txt; pwd');
    await a.waitFor(/Ran it/);
    await prompt(a);
    expect(readFileSync(join(sb.cwd, 'sub', 'where.txt'), 'utf8').trim()).toBe(join(sb.cwd, 'sub'));
    expect(userText(suite.emu.requests[before])).toContain(`changed the working directory to ${join(sb.cwd, 'sub')}`);
    // Said once: the following request does not repeat it.
    const next = suite.emu.requests.length;
    await turn(a, 'thanks', 'You said: thanks');
    expect(userText(suite.emu.requests[next])).not.toContain('changed the working directory');
    a.line('cd -');
    await a.waitFor(/project> /);
    // The session files stay where agentx started.
    expect(existsSync(join(sb.cwd, '.agentx_responseid'))).toBe(true);
    expect(existsSync(join(sb.cwd, 'sub', '.agentx_responseid'))).toBe(false);
  });

  it('sends a multi-line paste as one message and completes slash commands with Tab', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const before = suite.emu.requests.length;
    a.write('\x1b[200~first line\nsecond line\x1b[201~');
    a.write(KEY.enter);
    await a.waitFor('You said: first line\nsecond line');
    await prompt(a);
    expect(suite.emu.requests.length).toBe(before + 1);
    expect(userText(suite.emu.requests[before])).toBe('first line\nsecond line');
    a.write('/usa');
    a.write(KEY.tab);
    await a.waitFor('/usage');
    a.write(KEY.enter);
    await a.waitFor('Session: 1 turn');
    await prompt(a);
  });

  it('/clear forgets the conversation (undo brings it back) and withdraws the checkpoint; clear only clears the screen', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    await turn(a, 'remember me', 'You said: remember me');
    expect(stateExists(sb)).toBe(true);
    expect(existsSync(join(sb.cwd, '.agentx_checkpoint'))).toBe(true);
    // Wait for the screen clear itself: the prompt is redrawn with each typed key, so waiting for a
    // prompt alone could return before `clear` was read, and the next line typed would then join it
    // in one chunk (taken as a paste: one message "clear\n/clear" to the model).
    const clears = a.raw().split('\x1b[3J').length;
    a.line('clear');
    await expect.poll(() => a.raw().split('\x1b[3J').length).toBeGreaterThan(clears);
    await prompt(a);
    expect(stateExists(sb)).toBe(true);
    // /clear asks first; no keeps the conversation.
    a.line('/clear');
    await a.waitFor('Clear the conversation (1 turn)?');
    a.write('n');
    await a.waitFor('Kept the conversation.');
    await prompt(a);
    expect(readState(sb).last_user_message).toBe('remember me');
    a.line('/clear');
    await a.waitFor('Clear the conversation (1 turn)?');
    a.write('y');
    await a.waitFor('cleared');
    await prompt(a);
    expect(readState(sb).response_id).toBeNull();
    expect(readState(sb).history).toEqual([]);
    expect(existsSync(join(sb.cwd, '.agentx_checkpoint'))).toBe(false);
    const before = suite.emu.requests.length;
    await turn(a, 'who am I?', 'You said: who am I?');
    expect(body(suite.emu.requests[before]).previous_response_id).toBeUndefined();
    expect(readState(sb).usage.turns).toBe(1);
    a.line('/rollback undo');
    await a.waitFor('Undid the rollback');
    await prompt(a);
    expect(readState(sb).last_user_message).toBe('remember me');
  });

  it('--json without a message (the interactive session, which has no JSON form) is one usage line, exit 2', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb, ['--json']);
    await a.waitFor('--json is only accepted by one-shots (agentx --json "message"), not by the interactive session');
    expect((await a.exited).exitCode).toBe(2);
    expect(stateExists(sb)).toBe(false);
  });

  it('refuses a second interactive agentx in the same directory', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    const b = start(sb);
    await b.waitFor(`another agentx (pid ${a.pid}) is already running`);
    expect((await b.exited).exitCode).toBe(2);
    // The first one is unaffected.
    await turn(a, 'still here?', 'You said: still here?');
  });

  it('exits on Ctrl-C twice at an empty prompt', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    a.write('some text');
    a.write(KEY.ctrlC);
    await prompt(a);
    a.write(KEY.ctrlC);
    await a.waitFor('Ctrl-C again to exit');
    a.write(KEY.ctrlC);
    expect((await a.exited).exitCode).toBe(0);
  });

  it('asks before model commands with --confirm (= --approval untrusted): Enter is no, y runs once', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb, ['--confirm']);
    await prompt(a);
    a.line('run: echo declined >> ledger');
    await a.waitFor('[n] no (Enter)');
    a.write('\r');
    await a.waitFor(/Ran it/);
    await prompt(a);
    expect(existsSync(join(sb.cwd, 'ledger'))).toBe(false);
    a.line('run: echo accepted >> ledger');
    await a.waitFor('[n] no (Enter)');
    a.write('y');
    await a.waitFor(/Ran it/);
    await prompt(a);
    a.line('run: echo again >> ledger');
    await a.waitFor('[n] no (Enter)');
    a.write('t');
    await a.waitFor('tell the model: ');
    const before = suite.emu.requests.length;
    a.line('use printf instead');
    await a.waitFor(/Ran it/);
    await prompt(a);
    expect(JSON.stringify(suite.emu.requests.slice(before).map((r) => r.body))).toContain('said what to do instead:\\nuse printf instead');
    expect(readFileSync(join(sb.cwd, 'ledger'), 'utf8')).toBe('accepted\n');
  });

  it('p remembers a prefix across a restart; it does not match a longer command', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    a.line('escalate: echo saved >> ledger');
    await a.waitFor('the model asks to run this outside the sandbox');
    await a.waitFor('{"prefix":["echo","saved"],"decision":"allow"}');
    a.write('p');
    // Enter: remembered in the rules file (the default).
    await a.waitFor('[s] this session only: ');
    a.write('\r');
    await a.waitFor(/Ran it/);
    await prompt(a);
    a.write(KEY.ctrlD);
    await a.exited;
    const rules = join(sb.home, '.config', 'agentx', 'rules.json');
    expect(statSync(rules).mode & 0o777).toBe(0o600);
    const b = start(sb, ['--approval', 'untrusted']);
    await prompt(b);
    b.line('run: echo saved >> ledger');
    await b.waitFor(/Ran it/);
    await prompt(b);
    b.line('run: echo saved >> ledger && touch other');
    await b.waitFor('"touch other" matches no rule');
    b.write('n');
    await b.waitFor(/Ran it/);
    await prompt(b);
    expect(readFileSync(join(sb.cwd, 'ledger'), 'utf8')).toBe('saved\nsaved\n');
    expect(existsSync(join(sb.cwd, 'other'))).toBe(false);
  });

  it('p then s allows a prefix for this session only: not written, asked again after a restart', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    a.line('escalate: echo once >> ledger');
    await a.waitFor('the model asks to run this outside the sandbox');
    a.write('p');
    await a.waitFor('[s] this session only: ');
    a.write('s');
    await a.waitFor(/Ran it/);
    await prompt(a);
    // Allowed for the rest of the session: the same escalation runs without a question.
    a.line('escalate: echo once >> ledger');
    await a.waitFor(/Ran it/);
    await prompt(a);
    expect(a.raw().split('the model asks to run this outside the sandbox')).toHaveLength(2);
    a.write(KEY.ctrlD);
    await a.exited;
    expect(existsSync(join(sb.home, '.config', 'agentx', 'rules.json'))).toBe(false);
    const b = start(sb);
    await prompt(b);
    b.line('escalate: echo once >> ledger');
    await b.waitFor('the model asks to run this outside the sandbox');
    b.write('n');
    await b.waitFor(/Ran it/);
    await prompt(b);
    expect(readFileSync(join(sb.cwd, 'ledger'), 'utf8')).toBe('once\nonce\n');
  });

  it('offers setup when there is no API key, then works', async () => {
    const sb = sandbox();
    const a = start(sb);
    await a.waitFor('No API key');
    await a.waitFor('API key [not set]: ');
    a.line('sk-typed-in-setup-0123456789');
    await a.waitFor('Model [');
    a.line('');
    await a.waitFor('Base URL [');
    a.line(suite.emu.baseUrl);
    await prompt(a);
    expect(a.screen()).not.toContain('sk-typed-in-setup');
    await turn(a, 'configured?', 'You said: configured?');
    expect(readFileSync(join(sb.home, '.agentx'), 'utf8')).toContain('AGENTX_BASE_URL');
  });

  it('moves a corrupt state file aside, removes stale one-shot files, and switches models', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, '.agentx_responseid'), '{"version": 1, "response_id": ');
    const stale = join(sb.cwd, '.agentx_responseid.oneshot-999999-2020-01-01T00-00-00-000Z');
    writeFileSync(stale, '{}');
    utimesSync(stale, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const a = start(sb);
    await a.waitFor(/moved it to \.agentx_responseid\.corrupt-/);
    await prompt(a);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(sb.cwd).some((f) => f.startsWith('.agentx_responseid.corrupt-'))).toBe(true);
    a.line('/model gpt-4.1');
    await a.waitFor('model for the next requests: gpt-4.1');
    const n = suite.emu.requests.length;
    await turn(a, 'which model?', 'You said: which model?');
    expect((suite.emu.requests[n]?.body as { model?: string }).model).toBe('gpt-4.1');
  });

  it('retries a failed request from the recovery menu in the same session', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_RETRY_BASE_MS: '10' });
    const a = start(sb);
    await prompt(a);
    suite.emu.enqueue({ kind: 'http_error', status: 503, times: 5 });
    const n = suite.emu.requests.length;
    a.line('through the outage');
    await a.waitFor('What now?');
    const failed = readState(sb).pending_transaction;
    expect(failed).not.toBeNull();
    a.write(KEY.enter); // 1 = Retry is preselected
    await a.waitFor('You said: through the outage');
    await prompt(a);
    expect(suite.emu.requests.length).toBe(n + 6);
    expect(body(suite.emu.requests.at(-1)).input).toEqual(failed?.input);
    expect(readState(sb).pending_transaction).toBeNull();
    expect(readState(sb).usage.turns).toBe(1);
  });

  it('/setup changes the model for later requests; Ctrl-C cancels it', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = start(sb);
    await prompt(a);
    a.line('/setup');
    await a.waitFor('API key [');
    a.write(KEY.enter);
    await a.waitFor('Model [');
    a.write(KEY.ctrlC);
    await a.waitFor('setup cancelled');
    await prompt(a);
    a.line('/setup');
    await a.waitFor('API key [');
    a.write(KEY.enter);
    await a.waitFor('Model [');
    a.line('gpt-5-mini');
    await a.waitFor('Base URL [');
    a.write(KEY.enter);
    await a.waitFor('using model gpt-5-mini');
    await prompt(a);
    const n = suite.emu.requests.length;
    await turn(a, 'after setup', 'You said: after setup');
    expect((suite.emu.requests[n]?.body as { model?: string }).model).toBe('gpt-5-mini');
  });
});
