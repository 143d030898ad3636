// Daily use of one-shots (issue 15): hung servers, redirects, giant outputs, broken stdout,
// --debug without a place to write, git status. The built CLI against the emulator.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox, type Sandbox } from './harness.ts';
import { canMount, fillUp, mountTmpfs } from './mounts.ts';

let emu: Emulator;
let box: Sandbox;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  for (const close of closers) await close();
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

const STACK = /\n\s+at .+:\d+:\d+/;

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        if (server instanceof http.Server) server.closeAllConnections();
      }),
  );
  return (server.address() as AddressInfo).port;
}

interface Body {
  input: { type?: string; output?: { stdout: string }[] }[];
}

describe('error bodies of servers that are not OpenAI', () => {
  const nginx502 =
    '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

  it("a proxy's HTML 502 page: one line with its title, in the retry notice and the failure; retried as before", async () => {
    emu.enqueue(...Array.from({ length: 2 }, () => ({ kind: 'raw' as const, status: 502, contentType: 'text/html', body: nginx502 })));
    const r = await runCli(['hi'], box);
    expect(r.code).toBe(1);
    const line = '502 Bad Gateway (an HTML page from the server or a proxy: 502 Bad Gateway)';
    expect(r.stderr).toContain(`⟳ ${line} — retrying in`);
    expect(r.stderr).toContain(`agentx: request failed: ${line} (gave up after 2 attempts`);
    expect(r.stderr).not.toMatch(/<|\x1b/);
  });

  it("vLLM's and FastAPI's JSON errors: their message, not '(no body)'; fatal at once", async () => {
    const vllm = { object: 'error', message: 'The model `gpt-x` does not exist.', type: 'NotFoundError', param: null, code: 404 };
    emu.enqueue({ kind: 'raw', status: 400, contentType: 'application/json', body: JSON.stringify(vllm) });
    const a = await runCli(['hi'], box);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('agentx: request failed: 400 The model `gpt-x` does not exist.');
    const fastapi = {
      detail: [
        { loc: ['body', 'input'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'model'], msg: 'Field required', type: 'missing' },
      ],
    };
    emu.enqueue({ kind: 'raw', status: 422, contentType: 'application/json', body: JSON.stringify(fastapi) });
    const b = await runCli(['hi'], box);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('agentx: request failed: 422 body.input: Field required (+1 more)');
    expect(`${a.stderr}${b.stderr}`).not.toContain('no body');
  });
});

describe('timeouts', () => {
  it('a server that accepts the connection and never answers ends a one-shot after header timeout × retries, exit 1', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => {
      sockets.push(s);
    });
    closers.push(() => {
      for (const s of sockets) s.destroy();
      return Promise.resolve();
    });
    const port = await listen(silent);
    const r = await runCli(['hi'], { ...box, env: { ...box.env, AGENTX_BASE_URL: `http://127.0.0.1:${port}/v1`, AGENTX_HEADERS_TIMEOUT_MS: '300' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('retrying');
    expect(r.stderr).toMatch(
      /agentx: request failed: the server sent no response headers within 300 ms \(AGENTX_HEADERS_TIMEOUT_MS; http:\/\/127\.0\.0\.1:\d+\/v1\) \(gave up after 2 attempts, [\d.]+ s of waiting; AGENTX_MAX_RETRIES, AGENTX_RETRY_MAX_MS\)\n/,
    );
    expect(r.stderr).not.toMatch(STACK);
    // Two attempts (the one-shot policy), each on its own connection.
    expect(sockets).toHaveLength(2);
  });

  it('a stream that goes silent after its headers (the emulator HANG fault) ends with exit 1', async () => {
    emu.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const r = await runCli(['hi'], { ...box, env: { ...box.env, AGENTX_STREAM_IDLE_MS: '300' } });
    emu.clearQueue();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request failed: no data from the server/);
  });

  it('--help names both timeouts; a bad value is one line and exit 2', async () => {
    const help = await runCli(['--help'], box);
    expect(help.stdout).toContain('AGENTX_HEADERS_TIMEOUT_MS');
    expect(help.stdout).toContain('AGENTX_STREAM_IDLE_MS');
    const bad = await runCli(['hi'], { ...box, env: { ...box.env, AGENTX_HEADERS_TIMEOUT_MS: 'soon' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('agentx: AGENTX_HEADERS_TIMEOUT_MS: expected a whole number ≥ 1, got "soon"\n');
  });
});

describe('bounded output', () => {
  // The 1 GiB run is in src/tools/shell-bounded.test.ts (no renderer) and bench/ (peak RSS).
  it('the model cannot raise the output cap past the ceiling: 64 MiB asked for, head + tail within 64 KiB sent', async () => {
    emu.enqueue({ kind: 'shell', commands: ['yes abcdefgh | head -c 67108864; echo LAST-LINE'], maxOutputLength: 2_000_000_000 });
    const before = emu.requests.length;
    const r = await runCli(['--no-shell-calls', 'go'], { ...box, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    const out = (emu.requests[before + 1]?.body as Body).input[0]?.output?.[0]?.stdout ?? '';
    expect(Buffer.byteLength(out)).toBeLessThan(64 * 1024 + 100);
    expect(out.startsWith('abcdefgh\n')).toBe(true);
    expect(out).toMatch(/\[670\d{5} bytes truncated\]/);
    expect(out.endsWith('LAST-LINE\n')).toBe(true);
  }, 90_000);

  it('AGENTX_MAX_OUTPUT_BYTES lowers the ceiling', async () => {
    emu.enqueue({ kind: 'shell', commands: ['yes 0123456789 | head -c 100000'], maxOutputLength: 50_000 });
    const before = emu.requests.length;
    const r = await runCli(['go'], { ...box, env: { ...box.env, AGENTX_MAX_OUTPUT_BYTES: '4096' } });
    expect(r.code).toBe(0);
    const out = (emu.requests[before + 1]?.body as Body).input[0]?.output?.[0]?.stdout ?? '';
    expect(Buffer.byteLength(out)).toBeLessThan(4096 + 100);
  });

  it('many big calls in one response: every output goes whole (within its per-command cap), the state file points into the log', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => ({ commands: [`yes call-${i} | head -c 70000`] }));
    emu.enqueue({ kind: 'calls', calls }, { kind: 'http_error', status: 400, message: 'stop here' });
    const before = emu.requests.length;
    const r = await runCli(['go'], { ...box, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    const sent = emu.requests[before + 1];
    const outputs = (sent?.body as Body).input.filter((i) => i.output !== undefined);
    expect(outputs).toHaveLength(40);
    // No per-response budget cuts them any more (the file no longer carries them): each keeps its 64 KiB cap.
    outputs.forEach((o, i) => expect(o.output?.[0]?.stdout?.endsWith(`call-${i}\n`)).toBe(true));
    expect(JSON.stringify(sent?.body)).not.toContain("in agentx's session file");
    const kept = readdirSync(box.cwd).filter((f) => f.startsWith('.agentx_responseid.oneshot-'));
    expect(kept).toHaveLength(1);
    const text = readFileSync(join(box.cwd, kept[0] ?? ''), 'utf8');
    const journal = (JSON.parse(text) as { pending_tool_calls: { output?: unknown; output_log?: string }[] }).pending_tool_calls;
    expect(journal).toHaveLength(40);
    expect(journal.every((c) => c.output === undefined && typeof c.output_log === 'string')).toBe(true);
    // Only the retry data of the failed request still holds the outputs, once.
    expect(text.length).toBeLessThan(3 * 1024 * 1024);
  }, 90_000);
});

describe('output that cannot be written', () => {
  it('EPIPE on stdout (`agentx --json … | head -1`) ends quietly, no stack trace: 0, as the turn finished (141 cases: oneshot-scripts)', async () => {
    const child = spawn(process.execPath, [CLI, '--json', 'run: echo hi'], { cwd: box.cwd, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const first = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        const nl = buf.indexOf('\n');
        // Like `head -1`: take one line, then close the reading end.
        if (nl !== -1) {
          child.stdout.destroy();
          resolve(buf.slice(0, nl));
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(JSON.parse(first)).toMatchObject({ type: 'session' });
    expect(code).toBe(0);
    expect(stderr).not.toMatch(STACK);
    expect(stderr).not.toMatch(/EPIPE|internal error/);
  });

  it('a stdout that refuses writes (EBADF) loses the text, not the run: exit 0', async () => {
    const ro = openSync('/dev/null', 'r');
    try {
      // --json writes its first line at once, long before the turn ends.
      const child = spawn(process.execPath, [CLI, '--json', 'run: echo ran > ran.txt'], { cwd: box.cwd, env: box.env, stdio: ['ignore', ro, 'pipe'] });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(stderr).not.toMatch(STACK);
      expect(code).toBe(0);
      expect(readFileSync(join(box.cwd, 'ran.txt'), 'utf8')).toBe('ran\n');
    } finally {
      closeSync(ro);
    }
  });
});

describe('--debug without a place to write', () => {
  it('a log directory that cannot be created is one warning; the request succeeds', async () => {
    writeFileSync(join(box.home, '.agentx-logs'), 'in the way');
    const r = await runCli(['--debug', 'hi'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: hi\n');
    expect(r.stderr.match(/--debug: cannot write/g)).toHaveLength(1);
  });

  const scratch = join(sandbox().home, 'probe');
  it.skipIf(!canMount(scratch))('a full disk under the log directory is one warning; every request of the tool loop succeeds', async () => {
    const logs = join(box.home, '.agentx-logs');
    const m = mountTmpfs(logs, 64);
    if (!m) throw new Error('mount failed');
    try {
      fillUp(logs);
      const r = await runCli(['--debug', 'run: echo fine'], box);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Ran it.');
      expect(r.stderr.match(/--debug: cannot write .*\(ENOSPC\); continuing without the debug log/g)).toHaveLength(1);
    } finally {
      m.unmount();
    }
  });
});

describe('HTTP redirects', () => {
  /** A proxy that answers `status` with a Location (built by `where`), and forwards /moved/* to the emulator. */
  async function redirector(status: number, where: (port: number, url: string) => string): Promise<{ port: number; seen: http.IncomingHttpHeaders[] }> {
    const seen: http.IncomingHttpHeaders[] = [];
    let port = 0;
    const server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      if (!url.startsWith('/moved/')) {
        req.resume();
        res.writeHead(status, { location: where(port, url) }).end('moved');
        return;
      }
      seen.push(req.headers);
      const target = new URL(emu.baseUrl);
      const fwd = http.request(
        { host: target.hostname, port: target.port, path: url.slice('/moved'.length), method: req.method, headers: { ...req.headers, host: target.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(fwd);
    });
    port = await listen(server);
    return { port, seen };
  }

  it('follows 307 and 308 on the same origin with the request and its key intact', async () => {
    for (const status of [307, 308]) {
      const proxy = await redirector(status, (_port, url) => `/moved${url}`);
      const r = await runCli([`via ${status}`], { ...box, env: { ...box.env, AGENTX_BASE_URL: `http://127.0.0.1:${proxy.port}/v1` } });
      expect(r.stdout).toBe(`You said: via ${status}\n`);
      expect(r.code).toBe(0);
      expect(proxy.seen[0]?.authorization).toMatch(/^Bearer sk-test/);
    }
  });

  it('never forwards the Authorization header to another host', async () => {
    const proxy = await redirector(308, (port, url) => `http://localhost:${port}/moved${url}`);
    const r = await runCli(['hi'], { ...box, env: { ...box.env, AGENTX_BASE_URL: `http://127.0.0.1:${proxy.port}/v1` } });
    expect(proxy.seen.length).toBeGreaterThan(0);
    for (const h of proxy.seen) expect(h.authorization).toBeUndefined();
    // The emulator, like the service, refuses a request without a key.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/authentication failed \(401\)/);
  });

  it('gives up after 5 redirects with one clear line', async () => {
    const proxy = await redirector(307, (_port, url) => `${url}x`);
    const r = await runCli(['hi'], { ...box, env: { ...box.env, AGENTX_BASE_URL: `http://127.0.0.1:${proxy.port}/v1` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request failed: connection failed: too many redirects \(more than 5\)/);
  });
});

describe('git hygiene', () => {
  it('the first save in a repository adds the state files to .git/info/exclude, once, and says so', async () => {
    execFileSync('git', ['init', '-q'], { cwd: box.cwd });
    // A failed one-shot keeps its state file: it must not show up in git status.
    emu.enqueue({ kind: 'http_error', status: 400, message: 'no' });
    const r = await runCli(['hi'], box);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/added \.agentx_responseid\* and \.agentx_checkpoint\* to .*\.git\/info\/exclude/g)).toHaveLength(1);
    expect(readdirSync(box.cwd).some((f) => f.startsWith('.agentx_responseid.oneshot-'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: box.cwd, encoding: 'utf8' })).toBe('');
    const again = await runCli(['hi'], box);
    expect(again.stderr).not.toContain('.git/info/exclude');
    expect(readdirSync(box.cwd).includes('.gitignore')).toBe(false);
  });

  it('outside a repository says nothing about git', async () => {
    mkdirSync(join(box.cwd, 'sub'));
    const r = await runCli(['hi'], box);
    expect(r.stderr).not.toContain('exclude');
  });
});

describe('startup weight', () => {
  it('a one-shot against an http endpoint loads neither undici nor TLS (web-lite.ts, lazy https)', async () => {
    const probe = join(box.home, 'modules.mjs');
    writeFileSync(probe, "process.once('exit', () => process.stderr.write(`MODULES ${JSON.stringify(process.moduleLoadList)}\\n`));\n");
    const child = spawn(process.execPath, ['--import', probe, CLI, 'run: echo hi'], { cwd: box.cwd, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(0);
    const modules = JSON.parse(/MODULES (.*)/.exec(stderr)?.[1] ?? '[]') as string[];
    expect(modules.length).toBeGreaterThan(50);
    expect(modules.filter((m) => /undici|\btls\b|\bhttps\b/.test(m))).toEqual([]);
  });

  it('a plain one-shot starts no process: no git, no bwrap probe (lazy snapshot store); crypto only for the conversation log checksums', async () => {
    const probe = join(box.home, 'modules.mjs');
    writeFileSync(
      probe,
      [
        // Every spawn (spawn, execFile, exec) goes through ChildProcess.prototype.spawn. The probe
        // itself loads child_process, so its presence in the module list is not checked.
        "import cp from 'node:child_process';",
        'let spawned = 0;',
        'const original = cp.ChildProcess.prototype.spawn;',
        'cp.ChildProcess.prototype.spawn = function (...args) { spawned++; return original.apply(this, args); };',
        "process.once('exit', () => process.stderr.write(`MODULES ${JSON.stringify(process.moduleLoadList)} SPAWNED ${spawned}\\n`));",
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', probe, CLI, 'hello there'], { cwd: box.cwd, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(0);
    const modules = JSON.parse(/MODULES (.*) SPAWNED/.exec(stderr)?.[1] ?? '[]') as string[];
    expect(modules.length).toBeGreaterThan(50);
    // The conversation log checksums each record (store/log/conversation-log.ts): node:crypto is loaded once for that.
    expect(modules.filter((m) => /crypto/.test(m)).length).toBeGreaterThan(0);
    expect(/SPAWNED (\d+)/.exec(stderr)?.[1]).toBe('0');
  });
});
