// /model and /setup in a real pty (issue 26 §2, §5): /model alone lists what the server offers
// (GET /v1/models), or says in one line that it lists none; Ctrl-C in /setup cancels at once
// and writes nothing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, turn, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

describe('/model', () => {
  it('alone, lists the models the server offers, the current one marked', async () => {
    const a = suite.start(sandbox(suite.emu.baseUrl, { AGENTX_MODEL: 'gpt-5-mini' }));
    await prompt(a);
    a.line('/model');
    await a.waitFor('model: gpt-5-mini');
    await a.waitFor(/models the server offers \(5\): gpt-4\.1, gpt-5, gpt-5-codex, gpt-5-mini \*, o4-mini/);
    await prompt(a);
  });

  it('says so in one line when the server lists none, then names the known families', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    // A port nothing listens on: the listing fails, the REPL does not.
    const a = suite.start({ ...sb, env: { ...sb.env, AGENTX_BASE_URL: 'http://127.0.0.1:65531/v1' } });
    await prompt(a);
    a.line('/model');
    await a.waitFor(/The server lists no models: GET http:\/\/127\.0\.0\.1:65531\/v1\/models failed/);
    await a.waitFor('knows the context window of: gpt-5*');
    await prompt(a);
  });
});

describe('/model NAME EFFORT', () => {
  it('is saved in the config file and survives a restart', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    a.line('/model gpt-4.1 high');
    await a.waitFor('model for the next requests: gpt-4.1, reasoning effort high (saved in');
    a.line('/exit');
    await a.exited;
    const b = suite.start(sb);
    await prompt(b);
    const n = suite.emu.requests.length;
    await turn(b, 'which model?', 'You said: which model?');
    expect(suite.emu.requests[n]?.body).toMatchObject({ model: 'gpt-4.1', reasoning: { effort: 'high' } });
  });
});

describe('/setup', () => {
  it('shows the values in effect and where they come from; Ctrl-C cancels at once, and nothing is written', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_MODEL: 'gpt-oss-20b' });
    const a = suite.start(sb);
    await prompt(a);
    a.line('/setup');
    await a.waitFor(/API key \[sk-…6789, from AGENTX_API_KEY in the environment; the environment wins/);
    a.write(KEY.ctrlC);
    await a.waitFor('setup cancelled: Ctrl-C; nothing was saved');
    await prompt(a);
    a.line('/setup');
    await a.waitFor('API key [');
    a.write('sk-typed-but-cancelled');
    a.write(KEY.enter);
    await a.waitFor('Model [gpt-oss-20b, from AGENTX_MODEL in the environment');
    a.write(KEY.ctrlC);
    await a.waitFor('setup cancelled: Ctrl-C; nothing was saved');
    await prompt(a);
    expect(existsSync(join(sb.home, '.agentx'))).toBe(false);
    await turn(a, 'still here', 'You said: still here');
  });
});
