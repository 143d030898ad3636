// Configuration mistakes the requests depend on (a proxy agentx cannot speak, a malformed proxy
// URL, an ftp:// base URL, a CA file that is not there, a key with a line break) are refused at
// start: exit 2 with one line naming the setting, no request sent. Before, each was retried as a
// connection failure for about a minute (the one-shot default) and ended with exit 1, or was
// ignored until an https request needed it. The retry settings are the defaults here (the
// harness's short ones removed), so a retried mistake would hold the run for that minute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';
import { PROMPT } from './repl-fixtures.ts';
import { spawnAgentx } from './pty.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

const PASSWORD = 'pr0xy-pa55-c0nf1g';
const KEY_TAIL = 'k3y-t4il-9f8e';

interface Case {
  name: string;
  env: NodeJS.ProcessEnv;
  line: RegExp;
}

const CASES: Case[] = [
  {
    name: 'ALL_PROXY with a socks4:// proxy',
    env: { ALL_PROXY: `socks4://alice:${PASSWORD}@127.0.0.1:1080` },
    line: /^agentx: ALL_PROXY: socks4 proxies are not supported \(use an http:\/\/, socks5:\/\/ or socks5h:\/\/ proxy\)\n$/,
  },
  {
    name: 'HTTP_PROXY with an https:// proxy',
    env: { HTTP_PROXY: `https://alice:${PASSWORD}@proxy.example:3128` },
    line: /^agentx: HTTP_PROXY: https proxies are not supported/,
  },
  // The base URL is http, so HTTPS_PROXY is not used for it; it still cannot work for anything.
  { name: 'HTTPS_PROXY that is not a URL', env: { HTTPS_PROXY: `http://alice:${PASSWORD}@[::1` }, line: /^agentx: HTTPS_PROXY: not a URL / },
  { name: 'AGENTX_BASE_URL=ftp://x', env: { AGENTX_BASE_URL: 'ftp://x' }, line: /^agentx: AGENTX_BASE_URL: not an http\(s\) URL: "ftp:\/\/x"\n$/ },
  // The value is quoted, through the terminal sanitiser: the escape sequence is not passed on.
  {
    name: 'OPENAI_BASE_URL with a line break and an escape sequence',
    env: { AGENTX_BASE_URL: undefined, OPENAI_BASE_URL: 'gopher://x/\n\u001b]0;owned\u0007' },
    line: /^agentx: OPENAI_BASE_URL: not an http\(s\) URL: "gopher:\/\/x\/ .*"\n$/,
  },
  {
    name: 'AGENTX_CA_FILE naming a missing file',
    env: { AGENTX_CA_FILE: '/nonexistent/agentx-ca.pem' },
    line: /^agentx: AGENTX_CA_FILE: cannot read \/nonexistent\/agentx-ca\.pem \(ENOENT\)\n$/,
  },
  {
    name: 'OPENAI_API_KEY with a line break',
    env: { AGENTX_API_KEY: undefined, OPENAI_API_KEY: `sk-test-0123\n${KEY_TAIL}` },
    line: /^agentx: OPENAI_API_KEY: contains a line break or another control character \(the key is not shown\)\n$/,
  },
];

/** A sandbox on the emulator with the default retry policy (a one-shot retries for up to a minute). */
function box(extra: NodeJS.ProcessEnv): ReturnType<typeof sandbox> {
  const sb = sandbox(emu.baseUrl, extra);
  delete sb.env.AGENTX_MAX_RETRIES;
  delete sb.env.AGENTX_RETRY_BASE_MS;
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete sb.env[k];
  return sb;
}

describe('configuration errors at start', () => {
  it.each(CASES)('one-shot: $name is exit 2, one line, no request', async ({ env, line }) => {
    const before = emu.requests.length;
    const attemptsBefore = emu.webSocketAttempts();
    const started = Date.now();
    const r = await runCli(['hi'], { ...box(env), timeoutMs: 15_000 });
    const elapsed = Date.now() - started;
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(line);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(r.stderr).not.toContain(PASSWORD);
    expect(r.stderr).not.toContain(KEY_TAIL);
    // Refused, not retried: nothing reached the server, and it took no retry schedule.
    expect(emu.requests.length - before).toBe(0);
    expect(emu.webSocketAttempts() - attemptsBefore).toBe(0);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('the proxy forms that work are not refused: an http:// proxy in HTTPS_PROXY, NO_PROXY, empty values', async () => {
    // HTTPS_PROXY is for https targets (the emulator is http), NO_PROXY sends 127.0.0.1 direct anyway.
    const r = await runCli(['hi'], { ...box({ HTTPS_PROXY: 'http://proxy.invalid:3128', ALL_PROXY: '', NO_PROXY: '127.0.0.1' }), timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(0);
  });

  it('the interactive session refuses the same way, before its prompt', async () => {
    const before = emu.requests.length;
    const a = spawnAgentx(box({ ALL_PROXY: `socks4://alice:${PASSWORD}@127.0.0.1:1080` }));
    const { exitCode } = await a.exited;
    expect(exitCode).toBe(2);
    expect(a.screen()).toContain('agentx: ALL_PROXY: socks4 proxies are not supported (use an http://, socks5:// or socks5h:// proxy)');
    expect(a.screen()).not.toMatch(PROMPT);
    expect(a.raw()).not.toContain(PASSWORD);
    expect(emu.requests.length - before).toBe(0);
  });
});
