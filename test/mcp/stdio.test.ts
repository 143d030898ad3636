// The manager against real stdio MCP servers (test/mcp/servers): start in parallel with a
// timeout, failures reported in one line, calls and their results, cancellation reaching the
// server, list_changed, the environment servers get, and close() leaving no process behind.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../src/tools/mcp/manager.ts';
import type { McpEvent } from '../../src/tools/mcp/manager.ts';
import { isAlive } from '../support/tools.ts';
import { readMarks, RED_PNG, stdioSpec, tempDir, waitUntil } from './helpers.ts';
import type { TempDir } from './helpers.ts';

let dir: TempDir;
let manager: McpManager | undefined;

afterEach(async () => {
  await manager?.close();
  manager = undefined;
  dir?.cleanup();
});

function record(m: McpManager, name: string, args: unknown = {}) {
  const r = m.describeCall(name, JSON.stringify(args));
  if (!r)
    throw new Error(
      `no MCP tool named ${name}; have ${m
        .toolDefinitions()
        .map((d) => d.name)
        .join(', ')}`,
    );
  return r;
}

describe('stdio servers', () => {
  it('starts servers in parallel; a hanging and a crashing server are reported in one line and the rest work', async () => {
    dir = tempDir();
    const events: McpEvent[] = [];
    const env = { ...process.env, MCP_TEST_MARK_DIR: dir.path };
    manager = await McpManager.start({
      specs: [stdioSpec('good', ['serve', 'good', 'echo,add']), stdioSpec('hang', ['hang'], { startupTimeoutMs: 1_500 }), stdioSpec('crash', ['crash'])],
      env,
      projectDir: dir.path,
      startTimeoutMs: 30_000,
      onEvent: (e) => events.push(e),
    });
    const states = Object.fromEntries(manager.servers().map((s) => [s.name, s.state]));
    expect(states).toEqual({ good: 'ready', hang: 'failed', crash: 'failed' });
    const report = manager.startupReport();
    expect(report).toHaveLength(2);
    expect(report.find((l) => l.includes('hang'))).toMatch(/^mcp: server hang failed to start: did not answer within 1\.5 s$/);
    expect(report.find((l) => l.includes('crash'))).toBe(
      'mcp: server crash failed to start: exited with code 1 before it was ready: fatal: cannot open the database',
    );
    for (const line of report) expect(line).not.toContain('\n');
    // The hanging server was stopped when it timed out.
    const hangPid = Number(
      readMarks(dir.path)
        .find((l) => l.startsWith('server-pid hang'))
        ?.split(' ')[2],
    );
    expect(await waitUntil(() => (isAlive(hangPid) ? undefined : true), 'the hanging server to be stopped')).toBe(true);
    expect(
      manager
        .toolDefinitions()
        .map((d) => d.name)
        .sort(),
    ).toEqual(['mcp__good__add', 'mcp__good__echo']);
    const outcome = await manager.call(record(manager, 'mcp__good__add', { a: 2, b: 40 }));
    expect(outcome).toMatchObject({ status: 'ok', output: '42' });
    expect(events.map((e) => `${e.type}:${e.server}`).sort()).toEqual(['server_failed:crash', 'server_failed:hang', 'server_ready:good']);
  });

  it('launch() returns before the servers are up; tools appear as they come', async () => {
    dir = tempDir();
    const events: McpEvent[] = [];
    manager = await McpManager.launch({
      specs: [stdioSpec('t', ['serve', 't', 'echo'])],
      env: process.env,
      projectDir: dir.path,
      onEvent: (e) => events.push(e),
    });
    expect(manager.servers()[0]?.state).toBe('starting');
    expect(manager.toolDefinitions()).toEqual([]);
    await manager.ready;
    expect(events).toEqual([{ type: 'server_ready', server: 't', tools: 1 }]);
    expect(manager.toolDefinitions().map((d) => d.name)).toEqual(['mcp__t__echo']);
  });

  it('converts results: text, images as a note, resources, structured content, errors, capped output', async () => {
    dir = tempDir();
    manager = await McpManager.start({ specs: [stdioSpec('t', ['serve', 't'])], env: process.env, projectDir: dir.path, maxOutputBytes: 1000 });
    const call = (name: string, args: unknown = {}) => manager!.call(record(manager!, `mcp__t__${name}`, args));
    expect((await call('echo', { text: 'héllo' })).output).toBe('héllo');
    expect((await call('image')).output).toBe('a red dot\n[image image/png, 16 bytes: not shown, not a PNG, JPEG, GIF or WebP image]');
    expect((await call('resources')).output).toBe(
      [
        '[resource link: report.txt file:///tmp/report.txt (text/plain) — the report]',
        '[resource memo://one (text/plain)]',
        'embedded text',
        '[resource memo://bin (application/octet-stream), 3 bytes of binary data: not shown]',
      ].join('\n'),
    );
    expect(await call('structured')).toMatchObject({ status: 'ok', output: '{"answer":42}' });
    expect(await call('fail')).toMatchObject({ status: 'tool_error', output: 'The tool reported an error:\nsomething went wrong' });
    const big = await call('big', { bytes: 5000 });
    expect(big.cutBytes).toBe(4000);
    expect(big.output).toContain('[4000 bytes truncated]');
    expect(await call('echo', {})).toMatchObject({ status: 'ok', output: 'undefined' });
    const bad = await manager.call({ kind: 'mcp', server: 't', tool: 'echo', arguments: '[1,2]' });
    expect(bad).toMatchObject({ status: 'not_sent', output: 'MCP tool echo on server t: arguments must be a JSON object' });
  });

  it('keeps an image for the model (0600, named by its hash); one over the size limit is refused with a note', async () => {
    dir = tempDir();
    const images = join(dir.path, 'images');
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't'])],
      env: process.env,
      projectDir: dir.path,
      images: { dir: images, maxBytes: 1024 },
    });
    const photo = await manager.call(record(manager, 'mcp__t__photo', {}));
    expect(photo.output).toBe('a red square\n[image image/png, 73 bytes: image 1, attached]\n[audio audio/wav, 4 bytes: not shown]');
    expect(photo.images).toHaveLength(1);
    const part = photo.images[0]!;
    expect(part).toMatchObject({ type: 'local_image', mime: 'image/png', bytes: 73 });
    expect(part.path).toBe(join(images, `${part.sha256}.png`));
    expect(readFileSync(part.path).toString('base64')).toBe(RED_PNG);
    expect(statSync(part.path).mode & 0o777).toBe(0o600);
    expect(statSync(images).mode & 0o777).toBe(0o700);
    await manager.close();
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't'])],
      env: process.env,
      projectDir: dir.path,
      images: { dir: join(dir.path, 'small'), maxBytes: 50 },
    });
    const refused = await manager.call(record(manager, 'mcp__t__photo', {}));
    expect(refused.images).toEqual([]);
    expect(refused.output).toContain('[image image/png, 73 bytes: not shown, over the 50 bytes limit for images]');
    expect(existsSync(join(dir.path, 'small'))).toBe(false);
  });

  it('aborting a call sends the MCP cancellation, which reaches the server', async () => {
    dir = tempDir();
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'slow'])],
      env: { ...process.env, MCP_TEST_MARK_DIR: dir.path },
      projectDir: dir.path,
    });
    const abort = new AbortController();
    const pending = manager.call(record(manager, 'mcp__t__slow'), { signal: abort.signal });
    await waitUntil(() => (readMarks(dir.path).some((l) => l.startsWith('slow-started')) ? true : undefined), 'the slow tool to start');
    abort.abort();
    const outcome = await pending;
    expect(outcome.status).toBe('interrupted');
    expect(outcome.output).toBe('MCP tool slow on server t: interrupted by the user; the server was asked to cancel the call.');
    await waitUntil(() => (readMarks(dir.path).some((l) => l.startsWith('slow-aborted')) ? true : undefined), 'the server to see the cancellation');
  });

  it('a call that takes too long times out, and the server is told to cancel it', async () => {
    dir = tempDir();
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'slow'])],
      env: { ...process.env, MCP_TEST_MARK_DIR: dir.path },
      projectDir: dir.path,
    });
    const outcome = await manager.call(record(manager, 'mcp__t__slow'), { timeoutMs: 300 });
    expect(outcome).toMatchObject({
      status: 'timeout',
      output: 'MCP tool slow on server t: no answer within 300 ms; the server was asked to cancel the call.',
    });
    await waitUntil(() => (readMarks(dir.path).some((l) => l.startsWith('slow-aborted')) ? true : undefined), 'the server to see the cancellation');
  });

  it('every progress report reaches the caller, also the ones read together with the answer; the messages are redacted', async () => {
    dir = tempDir();
    manager = await McpManager.start({ specs: [stdioSpec('t', ['serve', 't', 'progress'])], env: process.env, projectDir: dir.path, secrets: ['all done'] });
    const reports: { progress?: unknown; message?: unknown }[] = [];
    const outcome = await manager.call(record(manager, 'mcp__t__progress', { count: 300 }), { onProgress: (r) => reports.push(r) });
    expect(outcome).toMatchObject({ status: 'ok', output: 'reported 300' });
    // 299 steps, 2 nonsense reports (at 100 and 200: dropped later, by progress.ts), the last state.
    expect(reports).toHaveLength(302);
    expect(reports.at(-1)).toMatchObject({ progress: 300, total: 300 });
    expect(reports.at(-1)?.message).toMatch(/^\[REDACTED\] /);
  });

  it('a call that keeps reporting progress is not cut off by the tool timeout; the total cap ends it', async () => {
    dir = tempDir();
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'ticker'])],
      env: { ...process.env, MCP_TEST_MARK_DIR: dir.path },
      projectDir: dir.path,
    });
    const alive = await manager.call(record(manager, 'mcp__t__ticker', { everyMs: 100, forMs: 1000 }), { timeoutMs: 400, onProgress: () => undefined });
    expect(alive).toMatchObject({ status: 'ok' });
    expect(alive.durationMs).toBeGreaterThanOrEqual(1000);
    const capped = await manager.call(record(manager, 'mcp__t__ticker', { everyMs: 100, forMs: 60_000 }), { timeoutMs: 400, totalTimeoutMs: 1500 });
    expect(capped.status).toBe('timeout');
    expect(capped.output).toBe(
      'MCP tool ticker on server t: still running after 1.5 s, the most a call may take however much progress it reports; the server was asked to cancel the call.',
    );
    expect(capped.durationMs).toBeGreaterThanOrEqual(1500);
    expect(capped.durationMs).toBeLessThan(5000);
    await waitUntil(() => (readMarks(dir.path).some((l) => l.startsWith('ticker-cancelled')) ? true : undefined), 'the server to see the cancellation');
  });

  it('a server that dies during a call: the call fails with the reason, the server is reported and its tools withdrawn', async () => {
    dir = tempDir();
    const events: McpEvent[] = [];
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'crash,echo'])],
      env: process.env,
      projectDir: dir.path,
      onEvent: (e) => events.push(e),
    });
    const outcome = await manager.call(record(manager, 'mcp__t__crash'));
    expect(outcome.status).toBe('failed');
    expect(outcome.output).toBe(
      'MCP tool crash on server t: the server went away during the call (exited with code 3: crashing on purpose); it may or may not have run.',
    );
    await waitUntil(() => (manager!.servers()[0]?.state === 'failed' ? true : undefined), 'the server to be marked failed');
    expect(manager.toolDefinitions()).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'server_failed', server: 't', reason: 'exited with code 3: crashing on purpose' });
    const after = await manager.call({ kind: 'mcp', server: 't', tool: 'echo', arguments: '{"text":"x"}' });
    expect(after).toMatchObject({
      status: 'not_sent',
      output: 'MCP tool echo on server t: not called: server t is failed (exited with code 3: crashing on purpose)',
    });
  });

  it('refreshes the tool list on tools/list_changed', async () => {
    dir = tempDir();
    const events: McpEvent[] = [];
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'add_tool'])],
      env: process.env,
      projectDir: dir.path,
      onEvent: (e) => events.push(e),
    });
    expect(manager.toolDefinitions().map((d) => d.name)).toEqual(['mcp__t__add_tool']);
    await manager.call(record(manager, 'mcp__t__add_tool', { name: 'fresh' }));
    await waitUntil(() => (manager!.resolveName('mcp__t__fresh') ? true : undefined), 'the new tool to appear');
    expect(events.at(-1)).toEqual({ type: 'tools_changed', server: 't', tools: 2 });
    expect(await manager.call(record(manager, 'mcp__t__fresh'))).toMatchObject({ status: 'ok', output: 'extra fresh' });
  });

  it('runs servers with the configured cwd and env, without agentx credentials, through wrapCommand', async () => {
    dir = tempDir();
    const env = { ...process.env, AGENTX_API_KEY: 'sk-secret-1', OPENAI_API_KEY: 'sk-secret-2', OTHER_HOLDER: 'sk-secret-1', KEEP_ME: 'yes', TOKEN: 't0k' };
    const wrapped: string[][] = [];
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['serve', 't', 'env'], { env: { GIVEN: '${TOKEN}', MISSING_DEFAULT: '${NOPE:-fallback}' }, cwd: dir.path })],
      env,
      secrets: ['sk-secret-1'],
      projectDir: '/',
      wrapCommand: (argv) => {
        wrapped.push(argv);
        return ['/usr/bin/env', 'WRAPPED=1', ...argv];
      },
    });
    const seen = JSON.parse((await manager.call(record(manager, 'mcp__t__env'))).output) as { cwd: string; env: Record<string, string> };
    expect(seen.cwd).toBe(dir.path);
    expect(seen.env).toMatchObject({ KEEP_ME: 'yes', GIVEN: 't0k', MISSING_DEFAULT: 'fallback', WRAPPED: '1' });
    expect(seen.env).not.toHaveProperty('AGENTX_API_KEY');
    expect(seen.env).not.toHaveProperty('OPENAI_API_KEY');
    expect(seen.env).not.toHaveProperty('OTHER_HOLDER');
    expect(wrapped).toEqual([[process.execPath, expect.stringMatching(/stdio-server\.mjs$/), 'serve', 't', 'env']]);
  });

  it('a missing ${VAR} fails only that server, with one line naming the variable and file', async () => {
    dir = tempDir();
    const env = { ...process.env };
    delete env.MCP_TEST_UNSET_TOKEN;
    manager = await McpManager.start({
      specs: [stdioSpec('needs', ['serve', 'needs'], { env: { T: '${MCP_TEST_UNSET_TOKEN}' } }), stdioSpec('fine', ['serve', 'fine', 'echo'])],
      env,
      projectDir: dir.path,
    });
    expect(manager.startupReport()).toEqual(['mcp: server needs failed to start: ${MCP_TEST_UNSET_TOKEN} is not set (in /test/.mcp.json)']);
    expect(manager.servers().find((s) => s.name === 'fine')?.state).toBe('ready');
  });

  it('close() kills the server and the processes it started', async () => {
    dir = tempDir();
    manager = await McpManager.start({
      specs: [stdioSpec('t', ['spawn-child', 't', 'echo'])],
      env: { ...process.env, MCP_TEST_MARK_DIR: dir.path },
      projectDir: dir.path,
    });
    const serverPid = manager.servers()[0]?.pid;
    const grandchild = Number(
      await waitUntil(
        () =>
          readMarks(dir.path)
            .find((l) => l.startsWith('grandchild-pid'))
            ?.split(' ')[1],
        'the grandchild pid',
      ),
    );
    expect(serverPid).toBeGreaterThan(1);
    expect(isAlive(grandchild)).toBe(true);
    await manager.close();
    manager = undefined;
    expect(isAlive(serverPid ?? 0)).toBe(false);
    expect(await waitUntil(() => (isAlive(grandchild) ? undefined : true), 'the grandchild to die')).toBe(true);
  });

  it('what a server sends back is redacted like command output, and its stderr in error lines has controls made visible', async () => {
    dir = tempDir();
    const key = 'sk-manager-redaction-0123456789';
    manager = await McpManager.start({
      specs: [
        stdioSpec('kit', ['serve', 'kit', 'env,echo'], { env: { TOKEN: '${AGENTX_API_KEY}' } }),
        stdioSpec('loud', ['loud']),
        stdioSpec('leak', ['leak'], { env: { TOKEN: '${AGENTX_API_KEY}' } }),
      ],
      env: { ...process.env, AGENTX_API_KEY: key },
      secrets: [key],
      projectDir: dir.path,
      startTimeoutMs: 30_000,
    });
    const env = await manager.call(record(manager, 'mcp__kit__env'));
    expect(env.output).toContain('"TOKEN":"[REDACTED]"');
    expect(env.output).not.toContain(key);
    const echo = await manager.call(record(manager, 'mcp__kit__echo', { text: `x ${key} y` }));
    expect(echo.output).toBe('x [REDACTED] y');
    const errors = Object.fromEntries(manager.servers().map((s) => [s.name, s.error]));
    expect(errors.leak).toBe('exited with code 1 before it was ready: fatal: token [REDACTED] refused');
    expect(errors.loud).toBe(
      'exited with code 1 before it was ready: \\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x1b[3J\\x1b[Hfatal: loud\\x1b]2;again\\x07',
    );
  });
});
