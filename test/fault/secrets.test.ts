// Secrets and permissions (issue 8, SPEC §2 and §6): the API key never reaches stdout, stderr,
// state, checkpoint, input history, --debug logs or error messages, even when a server or proxy
// echoes it back; every file agentx writes is 0600 (logs dir 0700) even under umask 000; a state
// or checkpoint file owned by another user, or a symlink pointing outside the directory, is not
// trusted; MCP servers (issue 23 §4) get the key from no project file and pass on none of it.
// Every file of every sandbox and every captured stream is grepped for the key.
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, lstatSync, mkdirSync, realpathSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, storedResponse, type Sandbox } from '../e2e/harness.ts';
import { spawnAgentx, type PtyRun } from '../e2e/pty.ts';
import { approvalsPath, recordApproval } from '../../src/tools/mcp/approval.ts';
import { STDIO_SERVER } from '../mcp/helpers.ts';
import { FULL, Tally } from './lib/env.ts';
import { hasStackTrace, isolatedFiles, modeOf, readIf, scanForSecret, walkFiles } from './lib/checks.ts';

const PROMPT = /\S+@\S+:\S*> /;
const OTHER_UID = 4242;
const canChown = typeof process.getuid === 'function' && process.getuid() === 0;

let emu: Emulator;
let oldMask = 0;
const running: PtyRun[] = [];
beforeAll(async () => {
  emu = await startEmulator();
  // Modes must be exact, not an accident of a kind umask (children inherit this one).
  oldMask = process.umask(0);
});
afterAll(async () => {
  process.umask(oldMask);
  for (const a of running) a.kill();
  await emu.close();
});

const tally = new Tally('4-secrets', 'Secrets and permissions', 'agentx run (one-shot, REPL session or setup) whose artefacts were all grepped');
const keyOf = (label: string): string => `sk-fault-${label}-${randomBytes(12).toString('hex')}`;
/** Every sandbox with the keys it used and the config files that may legitimately hold one. */
const boxes: { sb: Sandbox; keys: string[]; allowed: string[] }[] = [];
const streams: Record<string, string> = {};

function box(keyInEnv: string | undefined, extra: NodeJS.ProcessEnv = {}): Sandbox {
  const sb = sandbox(emu.baseUrl, keyInEnv === undefined ? { AGENTX_API_KEY: '', ...extra } : { AGENTX_API_KEY: keyInEnv, ...extra });
  if (keyInEnv === undefined) delete sb.env.AGENTX_API_KEY;
  boxes.push({ sb, keys: keyInEnv === undefined ? [] : [keyInEnv], allowed: [] });
  return sb;
}

function remember(name: string, text: string): void {
  streams[name] = text;
  tally.expect(`no stack trace in ${name}`, !hasStackTrace(text), text.slice(-300));
}

async function oneshot(sb: Sandbox, name: string, args: string[]): Promise<number | null> {
  tally.runs++;
  const r = await runCli(args, { cwd: sb.cwd, env: sb.env, timeoutMs: 60_000 });
  remember(`${name} stdout`, r.stdout);
  remember(`${name} stderr`, r.stderr);
  return r.code;
}

function start(sb: Sandbox): PtyRun {
  tally.runs++;
  const a = spawnAgentx(sb);
  running.push(a);
  return a;
}

async function turn(a: PtyRun, message: string): Promise<void> {
  a.line(message);
  await a.waitFor(/tokens: /, 30_000);
  await a.waitFor(PROMPT, 30_000);
}

async function quit(a: PtyRun, name: string): Promise<void> {
  a.line('quit');
  await a.exited;
  remember(name, a.screen());
}

const echoKey = (key: string): string => `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`;

it('one-shots: the key stays out of every output, state file and --debug log, even when the server echoes it', async () => {
  const key = keyOf('oneshot');
  const sb = box(key, { OPENAI_API_KEY: key });
  expect(await oneshot(sb, 'one-shot with a tool call, --debug', ['--debug', 'run: echo hello'])).toBe(0);
  // A model that lists the environment (agents do, when debugging) must not see the key.
  emu.enqueue({ kind: 'shell', commands: ['env; echo "[$AGENTX_API_KEY][$OPENAI_API_KEY]"; exit 3'] });
  tally.expect('a model command listing the environment runs', (await oneshot(sb, 'one-shot running env', ['--debug', 'show me the env'])) === 0);
  const failures: [string, Parameters<Emulator['enqueue']>][] = [
    ['401 echoing the key', [{ kind: 'http_error', status: 401, message: echoKey(key), code: 'invalid_api_key' }]],
    ['500s echoing the key', [{ kind: 'http_error', status: 500, times: 2, message: `upstream said: Bearer ${key}` }]],
    [
      'response.failed echoing the key',
      [
        { kind: 'failed', code: 'invalid_api_key', message: echoKey(key) },
        { kind: 'failed', code: 'invalid_api_key', message: echoKey(key) },
      ],
    ],
    [
      'SSE error event echoing the key',
      [
        {
          kind: 'raw',
          body: `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'invalid_api_key', message: echoKey(key), sequence_number: 0 })}\n\n`,
        },
      ],
    ],
  ];
  const runs = FULL ? failures : failures.slice(0, 2);
  for (const [name, steps] of runs) {
    emu.enqueue(...steps);
    const code = await oneshot(sb, `one-shot ${name}`, ['--debug', '--json', `fail: ${name}`]);
    // A fatal failure is not retried: its spare copy must not reach the next run.
    emu.clearQueue();
    tally.expect(`${name}: exit 1`, code === 1, String(code));
  }
  const logs = walkFiles(join(sb.home, '.agentx-logs'));
  tally.expect('--debug wrote logs', logs.length >= 1 + runs.length, String(logs.length));
  tally.expect('the log directory is 0700', modeOf(join(sb.home, '.agentx-logs')) === 0o700, modeOf(join(sb.home, '.agentx-logs')).toString(8));
  tally.expect('failed one-shots keep their isolated files', isolatedFiles(sb.cwd).length === runs.length);
}, 120_000);

it('a REPL session with the key from setup: hidden while typed, never echoed, files private', async () => {
  const key = keyOf('setup');
  const sb = box(undefined);
  const config = join(sb.home, '.agentx');
  boxes.at(-1)?.keys.push(key);
  boxes.at(-1)?.allowed.push(config);
  const a = start(sb);
  await a.waitFor('API key [not set]: ', 30_000);
  a.line(key);
  await a.waitFor('Model [', 30_000);
  a.line('');
  await a.waitFor('Base URL [', 30_000);
  a.line('');
  await a.waitFor(PROMPT, 30_000);
  await turn(a, 'run: echo from-the-repl');
  // The end of the command's output, then the prompt: the status line drawn while `!env` runs
  // matches PROMPT too, and a line typed before the command ended would go to it, not the REPL.
  a.line('!env; echo env-$((40 + 2))-done');
  await a.waitFor('env-42-done', 30_000);
  await a.waitFor(PROMPT, 30_000);
  emu.enqueue({ kind: 'http_error', status: 403, message: `forbidden for ${key}` });
  a.line('this one fails');
  await a.waitFor(/request failed/, 30_000);
  await a.waitFor(PROMPT, 30_000);
  await turn(a, 'and this one works');
  await quit(a, 'REPL session with setup');
  tally.expect('the config file holds the key typed in setup', readIf(config)?.includes(key) === true);
  for (const f of [config, join(sb.cwd, '.agentx_responseid'), join(sb.cwd, '.agentx_checkpoint'), join(sb.home, '.agentx_history')]) {
    tally.expect(`${f} exists`, existsSync(f));
  }
}, 120_000);

it('agentx setup --api-key writes the config 0600 and the key then works from it', async () => {
  const key = keyOf('flag');
  const sb = box(undefined);
  const config = join(sb.home, '.agentx');
  boxes.at(-1)?.keys.push(key);
  boxes.at(-1)?.allowed.push(config);
  writeFileSync(config, '# written by hand, world-readable\nAGENTX_MODEL=gpt-5\n', { mode: 0o644 });
  tally.expect('setup exits 0', (await oneshot(sb, 'setup --api-key', ['setup', '--api-key', key])) === 0);
  tally.expect('one-shot with the key from the config exits 0', (await oneshot(sb, 'one-shot keyed by config', ['--debug', 'run: echo ok'])) === 0);
}, 60_000);

it('untrusted state and checkpoint: another owner or a symlink out of the directory is neither used nor changed', async () => {
  const sb = box(keyOf('trust'));
  const outside = join(dirname(sb.cwd), 'outside');
  mkdirSync(outside);
  const head = await storedResponse(emu, 'trusted earlier turn');
  const valid = `${JSON.stringify({ version: 1, response_id: head, usage: { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0, turns: 1 } })}\n`;
  const state = join(sb.cwd, '.agentx_responseid');
  const checkpoint = join(sb.cwd, '.agentx_checkpoint');
  const firstPrevious = async (name: string, run: () => Promise<unknown>): Promise<string | undefined> => {
    const n = emu.requests.length;
    await run();
    const prev = (emu.requests[n]?.body as { previous_response_id?: string } | undefined)?.previous_response_id;
    tally.expect(`${name}: a fresh chain, not the untrusted file's`, prev === undefined, String(prev));
    return prev;
  };

  if (canChown) {
    // A checkpoint planted by another user: one-shots must not branch from it, nor touch it.
    writeFileSync(checkpoint, valid, { mode: 0o644 });
    chownSync(checkpoint, OTHER_UID, OTHER_UID);
    await firstPrevious('foreign checkpoint', () => oneshot(sb, 'one-shot beside a foreign checkpoint', ['hello']));
    tally.expect('a foreign checkpoint is left as it was', readIf(checkpoint) === valid && statSync(checkpoint).uid === OTHER_UID);
    tally.expect('the one-shot says why it ignores the checkpoint', /owned by another user/.test(streams['one-shot beside a foreign checkpoint stderr'] ?? ''));
    unlinkSync(checkpoint);
  } else {
    tally.notes.push('not run as root: the "owned by another user" cases need chown and were skipped');
  }

  // Symlinks out of the directory: not followed; a save replaces the link, never the target.
  const outState = join(outside, 'state.json');
  const outCp = join(outside, 'checkpoint.json');
  writeFileSync(outState, valid, { mode: 0o600 });
  writeFileSync(outCp, valid, { mode: 0o600 });
  symlinkSync(outCp, checkpoint);
  symlinkSync(outState, state);
  await firstPrevious('checkpoint symlink out of the directory', () => oneshot(sb, 'one-shot beside an outside checkpoint link', ['hello']));
  const a = start(sb);
  await a.waitFor('symlink pointing outside this directory', 30_000);
  await a.waitFor(PROMPT, 30_000);
  await firstPrevious('state symlink out of the directory', () => turn(a, 'fresh, not from the link'));
  await quit(a, 'REPL beside outside links');
  tally.expect('the state link target is untouched', readIf(outState) === valid);
  tally.expect('the checkpoint link target is untouched', readIf(outCp) === valid);
  for (const p of [state, checkpoint]) {
    tally.expect(`${p}: the link was replaced by a private file`, !lstatSync(p).isSymbolicLink() && modeOf(p) === 0o600);
  }

  if (canChown) {
    // A state file owned by another user: the session runs in memory only and never rewrites it.
    unlinkSync(state);
    writeFileSync(state, valid, { mode: 0o644 });
    chownSync(state, OTHER_UID, OTHER_UID);
    const b = start(sb);
    await b.waitFor('owned by another user', 30_000);
    await b.waitFor(PROMPT, 30_000);
    await firstPrevious('foreign state', () => turn(b, 'in memory only'));
    await quit(b, 'REPL beside a foreign state');
    const after = lstatSync(state);
    tally.expect(
      'a foreign state file is left as it was',
      readIf(state) === valid && after.uid === OTHER_UID && modeOf(state) === 0o644,
      `uid ${after.uid} mode ${modeOf(state).toString(8)} same text ${String(readIf(state) === valid)}`,
    );
  }
}, 120_000);

it('MCP servers: a project file never gets the key; what a server sends back or says on stderr is redacted (issue 23 §4)', async () => {
  const key = keyOf('mcp');
  const sb = box(key);
  const server = (mode: string[], env: Record<string, string>): unknown => ({ command: process.execPath, args: [STDIO_SERVER, ...mode], env });
  // The person's own file passes the key to two servers (their choice): one reports its
  // environment to the model, one quotes it in its last words on stderr.
  mkdirSync(join(sb.home, '.config', 'agentx'), { recursive: true });
  writeFileSync(
    join(sb.home, '.config', 'agentx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        kit: server(['serve', 'kit', 'env'], { TOKEN: '${AGENTX_API_KEY}' }),
        leak: server(['leak'], { TOKEN: '${AGENTX_API_KEY}' }),
      },
    }),
  );
  // An approved project file reaching for the key in env and in headers: refused, never started.
  const text = JSON.stringify({
    mcpServers: {
      projEnv: server(['serve', 'projEnv', 'env'], { TOKEN: '${AGENTX_API_KEY}' }),
      projHeaders: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${AGENTX_API_KEY}' } },
    },
  });
  writeFileSync(join(sb.cwd, '.mcp.json'), text);
  recordApproval(approvalsPath(sb.env), realpathSync(join(sb.cwd, '.mcp.json')), createHash('sha256').update(text).digest('hex'), new Date());
  const n = emu.requests.length;
  emu.enqueue({ kind: 'function', name: 'mcp__kit__env', arguments: '{}' }, { kind: 'text', text: 'seen' });
  tally.expect('a one-shot with MCP servers runs', (await oneshot(sb, 'one-shot with MCP servers', ['--json', 'show me the server env'])) === 0);
  const output = JSON.stringify(emu.requests.slice(n).map((r) => r.body));
  tally.count('MCP routes checked', 4);
  tally.expect('the env tool result reached the model, redacted', output.includes('\\"TOKEN\\":\\"[REDACTED]\\"'), output.slice(0, 300));
  const stderr = streams['one-shot with MCP servers stderr'] ?? '';
  tally.expect('the stderr notice is redacted', /server leak failed to start: .*fatal: token \[REDACTED\] refused/.test(stderr), stderr);
  for (const name of ['projEnv', 'projHeaders']) {
    tally.expect(
      `project server ${name} refused in one line`,
      stderr.split('\n').filter((l) => l.includes(`"${name}" uses \${AGENTX_API_KEY}`)).length === 1,
      stderr,
    );
  }
}, 120_000);

it('every artefact of every run above is free of the keys, and every file agentx wrote is 0600', () => {
  // Files the tests planted themselves (ledger, links' targets, foreign files) are skipped.
  const ours = /(?:\.agentx_responseid(?:\.oneshot-.*|\.bak-.*)?|\.agentx_checkpoint|\.agentx|\.agentx_history|agentx-.*\.jsonl)$/;
  for (const { sb, keys, allowed } of boxes) {
    for (const file of walkFiles(dirname(sb.home))) {
      if (!ours.test(file)) continue;
      const st = lstatSync(file);
      if (canChown && st.uid === OTHER_UID) continue;
      tally.count('files checked for mode 0600');
      tally.expect(`${file} is 0600`, (st.mode & 0o777) === 0o600, (st.mode & 0o777).toString(8));
    }
    for (const key of keys) scanForSecret(key, [dirname(sb.home)], streams, tally, allowed);
  }
  // Nor does it travel in a request body (tool outputs, context): only in the Authorization header.
  const bodies = JSON.stringify(emu.requests.map((r) => r.body));
  for (const { keys } of boxes) for (const key of keys) tally.expect('the API key is in no request body', !bodies.includes(key));
  const report = tally.save();
  expect(report.failures).toEqual([]);
});
